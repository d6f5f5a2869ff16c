"""The catalogue of actions (pepa.link.actions) and every side that must agree with it.

The bot's JS registry (``pepa/link/js/actions/index.js``, read by node: each action's
function and its parameter names) lists exactly the catalogue's actions with exactly its
arguments in its order; the api ``createBot`` hands Python has a function for each of them;
``MinecraftLink`` and ``FakeLink`` take every row and refuse anything else, before any JS; and
``FakeLink`` records a call as the catalogue names it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pepa.link.actions import (
    ACTIONS,
    CATALOGUE,
    REQUIRED,
    Action,
    ActionCallError,
    Result,
    camel,
    row,
)
from pepa.link.login import LinkSettings
from pepa.link.minecraft import BOT_JS, METHODS, MinecraftLink
from pepa.testing import FakeLink
from pepa.worldserver.process import free_port
from tests.js import run_node

pytestmark = pytest.mark.timeout(60)

EXAMPLES: dict[str, Any] = {
    "float": 1.5,
    "int": 2,
    "bool": True,
    "str": "oak_log",
    "list[str]": ["oak_log", "birch_log"],
    "list[(x, z)]": [(1.0, 2.0)],
    "list[(x, y, z)]": [(1.0, 64.0, 2.0)],
    "list[(x, z, radius)]": [(1.0, 2.0, 3.0)],
    "{name: blocks}": {"zombie": 3.0},
    "{block: cost}": {"magma_block": 100.0},
    "{item: count}": {"cobblestone": 32},
    "list[(dx, dy, dz, names, facing, keep)]": [(0, -1, 0, ("dirt",), "", True)],
}
"""A value of each argument type."""
WRONG = object()
"""A value no argument type takes."""


def example(action: Action) -> dict[str, Any]:
    """Every argument of ``action`` given, each a value of its type."""
    return {arg.name: EXAMPLES[arg.type.name] for arg in action.args}


def start(link: Any, action: Action, args: dict[str, Any]) -> Any:
    """``act`` for an action, ``call`` for an instant call."""
    if action.result is Result.ACTION:
        return link.act(action.name, **args)
    return link.call(action.name, **args)


class Recorder:
    """The JS api's functions as Python callables that record what reaches them."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []

    def fns(self) -> dict[str, Any]:
        def fn(js: str) -> Any:
            def record(*args: Any, timeout: float) -> bool:
                self.calls.append((js, args))
                return True

            return record

        return {js: fn(js) for js in METHODS}


def real_link(tmp_path: Path) -> tuple[MinecraftLink, Recorder]:
    """A MinecraftLink, never started, whose JS functions are a :class:`Recorder`'s."""
    settings = LinkSettings(host="127.0.0.1", port=1, username="cat", server_dir=tmp_path)
    link = MinecraftLink(settings, on_event=lambda event: None, on_bridge_dead=lambda why: None)
    recorder = Recorder()
    link._fns = recorder.fns()
    return link, recorder


BOT_SIDE = r"""
const { createBot, ACTIONS } = require(process.argv[1])
const registry = {}
for (const [name, a] of Object.entries(ACTIONS)) {
  registry[name] = { id: a.id, args: a.args, family: a.family }
}
// nothing listens on the port: the bot never joins, its api is there all the same
const api = createBot({ host: '127.0.0.1', port: Number(process.argv[2]), username: 'catalogue',
  version: '1.16.5' }, () => {})
const functions = Object.keys(api).filter((k) => typeof api[k] === 'function').sort()
process.stdout.write(JSON.stringify({ registry, functions }))
process.exit(0)
"""
"""What bot_helper.js dispatches: its registry of actions (actions/index.js: each function's
parameters as written) and the functions of the api ``createBot`` hands Python."""


@pytest.fixture(scope="module")
def bot_side() -> dict[str, Any]:
    return dict(run_node(BOT_SIDE, str(BOT_JS / "bot_helper.js"), str(free_port())))


# -- the catalogue and the bot's JS ------------------------------------------------------------


def test_the_js_registry_has_exactly_the_catalogues_actions(bot_side: dict[str, Any]) -> None:
    js = set(bot_side["registry"])
    rows = {action.js for action in CATALOGUE}
    assert js == rows, (
        f"only in JS: {sorted(js - rows)}; only in the catalogue: {sorted(rows - js)}"
    )


@pytest.mark.parametrize("action", CATALOGUE, ids=lambda a: a.name)
def test_each_js_action_takes_the_rows_arguments_in_its_order(
    bot_side: dict[str, Any], action: Action
) -> None:
    js = bot_side["registry"].get(action.js)
    assert js is not None, f"no JS function {action.js} for the row {action.name}"
    where = f"actions/{js['family']}.js {action.js}"
    assert js["args"] == [arg.js for arg in action.args], f"{where}: its parameters"
    takes_id = action.result is Result.ACTION
    assert js["id"] == takes_id, f"{where}: {'an action takes' if takes_id else 'no'} id first"


def test_the_api_python_looks_up_is_the_catalogues_and_the_connections(
    bot_side: dict[str, Any],
) -> None:
    # MinecraftLink looks each of METHODS up once per connection; sightCost is a benchmark's
    assert set(bot_side["functions"]) == {*METHODS, "sightCost"}


# -- the catalogue itself -----------------------------------------------------------------------


def test_every_row_is_one_named_action_with_a_doc_and_checkable_arguments() -> None:
    assert len(ACTIONS) == len(CATALOGUE)
    for action in CATALOGUE:
        assert action.doc and action.doc.endswith("."), action.name
        assert action.name == action.name.lower() and " " not in action.name
        assert action.bind(example(action)).keys() == {a.name for a in action.args}
        assert len({camel(a.name) for a in action.args}) == len(action.args), action.name


def test_a_bad_call_names_the_action_and_the_argument() -> None:
    with pytest.raises(ActionCallError, match=r"no action 'fly'.*known: arm, attack"):
        row("fly")
    gather = row("gather")
    with pytest.raises(ActionCallError, match=r"'gather' needs the argument 'count'"):
        gather.bind({"names": ["oak_log"]})
    with pytest.raises(ActionCallError, match=r"'gather' has no argument 'depth'"):
        gather.bind({"names": ["oak_log"], "count": 1, "depth": 3})
    with pytest.raises(ActionCallError, match=r"'gather': argument 'count' must be int, got 1.5"):
        gather.bind({"names": ["oak_log"], "count": 1.5})
    with pytest.raises(ActionCallError, match=r"argument 'names' must be list\[str\], got 'oak'"):
        gather.bind({"names": "oak", "count": 1})
    with pytest.raises(ActionCallError, match=r"'cover': argument 'sources' must be"):
        row("cover").bind({"sources": [(1.0, 2.0)]})  # (x, z): the archers need a y
    with pytest.raises(ActionCallError, match=r"'attack': argument 'stop_first' must be bool"):
        row("attack").bind({"entity_id": 7, "stop_first": 1})


def test_arguments_are_kept_by_name_and_sent_to_js_in_the_rows_order() -> None:
    gather = row("gather")
    values = gather.bind({"names": ("oak_log",), "count": 3, "under_cover": True})
    assert values == {"names": ["oak_log"], "count": 3, "radius": 48.0, "drops": [],
                      "under_cover": True}  # fmt: skip
    assert gather.to_js(values) == [["oak_log"], 3, 48.0, [], True]
    arm = row("arm")
    sent = arm.to_js(arm.bind({"reach": {"zombie": 3, "creeper": 2.5}, "hp": 20, "food": 18}))
    assert sent == [[["creeper", 2.5], ["zombie", 3.0]], 20.0, 18]
    flee = row("flee")
    assert flee.to_js(flee.bind({"sources": [(1, 2)]})) == [[[1.0, 2.0]], 16.0]


# -- the links: every row, nothing else -------------------------------------------------------


@pytest.mark.parametrize("action", CATALOGUE, ids=lambda a: a.name)
def test_the_minecraft_link_sends_every_row_to_its_js_function_in_order(
    tmp_path: Path, action: Action
) -> None:
    link, js = real_link(tmp_path)
    args = example(action)
    answer = start(link, action, args)
    (name, sent), *_ = js.calls
    expected = action.to_js(action.bind(args))
    if action.result is Result.ACTION:
        assert isinstance(answer, str) and answer.startswith("a")
        assert (name, sent) == (action.js, (answer, *expected))
    else:
        assert answer is True
        assert (name, sent) == (action.js, tuple(expected))


@pytest.mark.parametrize("make", ["minecraft", "fake"])
def test_both_links_refuse_anything_but_a_row_before_any_js(tmp_path: Path, make: str) -> None:
    link: Any
    if make == "minecraft":
        link, js = real_link(tmp_path)
    else:
        link, js = FakeLink(), None
    bad: list[tuple[str, str, dict[str, Any]]] = [
        ("act", "fly", {}),
        ("call", "fly", {}),
        ("act", "attack", {"entity_id": 7}),  # an instant call through act
        ("call", "gather", {"names": ["oak_log"], "count": 1}),  # an action through call
    ]
    for action in CATALOGUE:
        how = "act" if action.result is Result.ACTION else "call"
        bad.append((how, action.name, {**example(action), "bogus": 1}))
        for arg in action.args:
            bad.append((how, action.name, {**example(action), arg.name: WRONG}))
            if arg.default is REQUIRED:
                missing = {k: v for k, v in example(action).items() if k != arg.name}
                bad.append((how, action.name, missing))
    for how, name, args in bad:
        with pytest.raises(ActionCallError, match=repr(name)):
            getattr(link, how)(name, **args)
    if js is not None:
        assert js.calls == []  # not one reached JS
    else:
        assert link.actions == [] and link.orders == []


def test_the_fake_link_records_every_row_as_the_catalogue_names_it() -> None:
    link = FakeLink()
    for action in CATALOGUE:
        args = example(action)
        answer = start(link, action, args)
        recorded = link.last(action.name)
        assert (recorded.name, recorded.args) == (action.name, action.bind(args))
        assert recorded.id == (answer if action.result is Result.ACTION else None)
        assert (recorded in link.orders) == action.order
    assert len(link.actions) + len(link.orders) == len(CATALOGUE)
    with pytest.raises(ActionCallError, match="'gotoPlayer'"):
        link.calls("gotoPlayer")  # the JS spelling is not the catalogue's


def test_a_refused_or_offline_call_is_recorded_and_fails() -> None:
    link = FakeLink(refuse={"gather", "chat"})
    assert link.act("gather", names=["oak_log"], count=1) is None
    assert link.call("chat", text="hi") is False and link.said == []
    assert link.calls("gather")[0].ok is False
    link.connected = False
    assert link.act("wear") is None and link.call("attack", entity_id=1) is False
