"""A chest report from the bridge (the end of a store, fetch or look_in) is checked as data
before the curriculum's storage memory sees it (pepa/actors/perception.py ``chest_seen``)."""

from __future__ import annotations

import pytest

from pepa.actors.perception import chest_seen, chests_seen

pytestmark = pytest.mark.timeout(30)

CHEST = (10, 64, -3)


def test_a_chest_report_is_read_as_data_and_a_malformed_one_is_dropped() -> None:
    done = {"action": "store", "ok": True, "chest": {"x": 10, "y": 64, "z": -3},
            "contents": {"cobblestone": 64, "iron_ore": 7}}  # fmt: skip
    seen = chest_seen(done)
    assert seen is not None and (seen.x, seen.y, seen.z) == CHEST and not seen.gone
    assert dict(seen.items) == {"cobblestone": 64, "iron_ore": 7}
    gone = chest_seen({"action": "fetch", "ok": False, "error": "no chest at 10 64 -3",
                       "chest": {"x": 10, "y": 64, "z": -3}})  # fmt: skip
    assert gone is not None and gone.gone
    assert chest_seen({**done, "action": "goto"}) is None
    for bad in ({"x": 1}, {"x": 1, "y": 2, "z": 9e9}):
        assert chest_seen({**done, "chest": bad}) is None
    for contents in ({"../etc": 1}, {"dirt": 0}, {"dirt": True}, {"dirt": 1.5}, "dirt"):
        assert chest_seen({**done, "contents": contents}) is None


def test_a_build_reports_its_new_chests_empty() -> None:
    built = {"action": "settle", "ok": True, "chests": [{"x": 1, "y": 64, "z": 2}, {"x": 2.0}]}
    (chest,) = chests_seen(built)
    assert (chest.x, chest.y, chest.z, dict(chest.items)) == (1, 64, 2, {})
    assert chests_seen({**built, "ok": False}) == ()
    assert chests_seen({**built, "chests": "everywhere"}) == ()
