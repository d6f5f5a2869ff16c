"""The exception tree drawn in pepa/base/errors.py matches every PepaError subclass in the code."""

from __future__ import annotations

import importlib
import pkgutil
import re
from dataclasses import dataclass

import pytest

import pepa.base.errors
from pepa.base.errors import PepaError

PACKAGES = ("pepa", "tui", "skills")
"""Every package pyproject.toml ships: a PepaError subclass may live in any of them."""

ROW = re.compile(r"^    (?P<branch>[│├└─ ]*)(?P<name>\w+) +(?P<module>[\w.]+) +(?P<meaning>\S.*)$")


@dataclass(frozen=True, slots=True, kw_only=True)
class Drawn:
    """One row of the tree: a class, the module said to define it, its parent in the tree."""

    name: str
    module: str
    parent: str | None


def import_everything() -> None:
    """Import every module of the shipped packages (``__main__`` modules run, so not those)."""
    for package in PACKAGES:
        root = importlib.import_module(package)
        for info in pkgutil.walk_packages(root.__path__, f"{package}."):
            if info.name.rsplit(".", 1)[-1] != "__main__":
                importlib.import_module(info.name)


def subclasses(cls: type) -> set[type]:
    """Every class below ``cls``, at any depth."""
    found: set[type] = set()
    for sub in cls.__subclasses__():
        found |= {sub} | subclasses(sub)
    return found


def drawn_tree() -> dict[str, Drawn]:
    """The rows of the ``::`` block in pepa/base/errors.py's docstring, by class name."""
    doc = pepa.base.errors.__doc__ or ""
    block = doc.split("::\n\n", 1)[1].split("\n\n", 1)[0]
    rows: dict[str, Drawn] = {}
    ancestors: list[str] = []
    for line in block.splitlines():
        match = ROW.match(line)
        assert match, f"not a row of the tree: {line!r}"
        depth = len(match["branch"]) // 4
        del ancestors[depth:]
        name = match["name"]
        assert name not in rows, f"{name} is drawn twice"
        rows[name] = Drawn(
            name=name, module=match["module"], parent=ancestors[-1] if ancestors else None
        )
        ancestors.append(name)
    return rows


@pytest.fixture(scope="module")
def tree() -> dict[str, Drawn]:
    return drawn_tree()


@pytest.fixture(scope="module")
def classes() -> dict[str, type]:
    import_everything()
    found = subclasses(PepaError) | {PepaError}
    by_name = {cls.__name__: cls for cls in found}
    assert len(by_name) == len(found), "two PepaError subclasses share a name"
    return by_name


def test_every_subclass_is_drawn(tree: dict[str, Drawn], classes: dict[str, type]) -> None:
    missing = sorted(
        f"{cls.__module__}.{name}" for name, cls in classes.items() if name not in tree
    )
    assert not missing, f"add to the tree in pepa/base/errors.py: {missing}"


def test_every_drawn_class_exists(tree: dict[str, Drawn], classes: dict[str, type]) -> None:
    stale = sorted(set(tree) - set(classes))
    assert not stale, f"drawn in pepa/base/errors.py but not a PepaError subclass: {stale}"


def test_rows_name_the_defining_module(tree: dict[str, Drawn], classes: dict[str, type]) -> None:
    wrong = {
        name: (row.module, classes[name].__module__)
        for name, row in tree.items()
        if name in classes and row.module != classes[name].__module__
    }
    assert not wrong, f"(drawn, actual) module: {wrong}"


def test_rows_hang_under_their_base(tree: dict[str, Drawn], classes: dict[str, type]) -> None:
    wrong = {}
    for name, row in tree.items():
        if name not in classes or name == "PepaError":
            continue
        bases = [b.__name__ for b in classes[name].__bases__ if issubclass(b, PepaError)]
        if bases != [row.parent]:
            wrong[name] = (row.parent, bases)
    assert not wrong, f"(drawn parent, actual pepa bases): {wrong}"
    assert tree["PepaError"].parent is None


def test_the_tree_is_recognised() -> None:
    """Guards the parser: a tree it failed to read would make the other tests vacuous."""
    rows = drawn_tree()
    assert rows["LineTooLong"] == Drawn(
        name="LineTooLong", module="pepa.base.errors", parent="ProtocolError"
    )
    assert len(rows) > 10
