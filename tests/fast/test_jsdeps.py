"""The check that keeps the bot's JS and the world server's JS apart (``tests/jsdeps.py``, run
by ``./pepa.sh lint``): it passes on the real trees and fails, file and line named, on a copy
of them with a forbidden reference planted. Pure: no node, no server."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests import jsdeps

FOLDERS = (*jsdeps.TREES, *jsdeps.SHARED)


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """The four JS folders of the repository, copied under ``tmp_path`` as they lie."""
    for folder in FOLDERS:
        shutil.copytree(jsdeps.ROOT / folder, tmp_path / folder)
    return tmp_path


def plant(root: Path, file: str, line: str) -> int:
    """``line`` added at the end of ``file``; its line number."""
    path = root / file
    text = path.read_text(encoding="utf-8")
    if not text.endswith("\n"):
        text += "\n"
    path.write_text(text + line + "\n", encoding="utf-8")
    return text.count("\n") + 1


def test_the_real_trees_pass() -> None:
    assert jsdeps.check() == []
    assert jsdeps.main([]) == 0


def test_the_copy_passes_before_anything_is_planted(copy: Path) -> None:
    assert jsdeps.check(copy) == []


def test_a_world_plugin_requiring_the_bots_js_fails_with_file_and_line(
    copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = "pepa/worldserver/js/plugins/mobs.js"
    line = plant(copy, file, "const melee = require('../../../link/js/melee')")
    assert jsdeps.main(["--root", str(copy)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [
        f"{file}:{line}: require('../../../link/js/melee') reaches pepa/link/js/melee: the world"
        " server's JS (pepa/worldserver/js) may require its own tree and the shared JS, never"
        " the bot's JS (pepa/link/js)"
    ]


def test_a_path_built_from_dirname_into_the_world_server_fails(copy: Path) -> None:
    file = "pepa/link/js/melee.js"
    line = plant(
        copy, file, "const c = require(path.join(__dirname, '..', '..', 'worldserver', 'js'))"
    )
    [refused] = jsdeps.check(copy)
    assert (refused.file, refused.line, refused.target) == (file, line, "pepa/worldserver/js")
    assert "never the world server's JS" in refused.why


def test_a_path_whose_last_part_is_computed_is_checked_by_its_folder(copy: Path) -> None:
    file = "pepa/worldserver/js/server.js"
    plant(copy, file, "const moves = path.join(__dirname, '../../link/js', `${name}.js`)")
    [refused] = jsdeps.check(copy)
    assert refused.target == "pepa/link/js"


def test_a_path_built_from_a_constant_made_from_dirname_is_followed(copy: Path) -> None:
    file = "pepa/worldserver/js/scenario/world.js"
    plant(copy, file, "const HERE = __dirname")
    plant(copy, file, "const UP = path.join(HERE, '..')")
    line = plant(copy, file, "const bot = require(path.join(UP, '..', '..', 'link', 'js', 'goto'))")
    [refused] = jsdeps.check(copy)
    assert (refused.line, refused.target) == (line, "pepa/link/js/goto")


def test_the_shared_js_may_require_neither_tree(copy: Path) -> None:
    plant(copy, "pepa/game/js/eyes.js", "const f = require('../../worldserver/js/life/combat')")
    plant(copy, "pepa/base/js/frames.js", 'require("../../link/js/reach.js")')
    refused = jsdeps.check(copy)
    assert [(r.file, r.target) for r in refused] == [
        ("pepa/base/js/frames.js", "pepa/link/js/reach.js"),
        ("pepa/game/js/eyes.js", "pepa/worldserver/js/life/combat"),
    ]
    assert all("the shared JS" in r.why and "may require only" in r.why for r in refused)


def test_a_path_out_of_the_js_trees_fails(copy: Path) -> None:
    plant(copy, "pepa/link/js/reach.js", "require('../../daemon/secret.js')")
    [refused] = jsdeps.check(copy)
    assert refused.target == "pepa/daemon/secret.js" and "outside the JS trees" in refused.why


def test_what_either_tree_may_require_passes(copy: Path) -> None:
    plant(copy, "pepa/link/js/reach.js", "const { eyeHeight } = require('../../game/js/eyes')")
    plant(copy, "pepa/worldserver/js/server.js", "require('../../base/js/frames.js')")
    plant(copy, "pepa/game/js/eyes.js", "require('../../base/js/frames')")
    plant(copy, "pepa/link/js/goto.js", "require(path.resolve(__dirname, '../../node_modules/x'))")
    assert jsdeps.check(copy) == []


def test_comments_and_strings_that_are_not_requires_are_not_references(copy: Path) -> None:
    plant(copy, "pepa/link/js/reach.js", "// require('../../worldserver/js/server')")
    plant(copy, "pepa/link/js/reach.js", "/* path.join(__dirname, '../../worldserver') */")
    plant(copy, "pepa/link/js/reach.js", "const note = 'see ../../worldserver/js/server.js'")
    plant(copy, "pepa/link/js/reach.js", "const re = /'require('..\\/..\\/worldserver')/")
    assert jsdeps.check(copy) == []
