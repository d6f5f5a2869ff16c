"""An entity shown to a player sends its metadata to that player alone (tests/js/spawn_metadata.js:
the embedded world and three plain clients standing together, in one Node process).

flying-squid's spawnEntity sent the metadata of an entity shown to one player to every player
near it: with the mend off, each of the three clients got a spawned zombie's metadata 3 times
and a dropped item's 6 times (1.16.5). In the sandbox with 32 working bots those writes were
47 of the 125 s its server spent writing packets (pepa/worldserver/js/fixes/spawn_metadata.js).
"""

from __future__ import annotations

import pytest

from tests.js import run_script

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]


@pytest.mark.parametrize(
    ("version", "per_spawn"),
    [
        ("1.16.5", {"mob": 1, "item": 2}),  # metadata apart from the spawn, then the item's own
        ("1.12.2", {"mob": 0, "item": 1}),  # a mob's metadata in its spawn packet; the item's own
    ],
)
def test_a_spawns_metadata_goes_to_the_player_it_is_shown_to(
    version: str, per_spawn: dict[str, int]
) -> None:
    out = run_script("spawn_metadata.js", version, timeout=110)
    for what, metadata in per_spawn.items():
        assert out[what] == [{"spawns": 1, "metadata": metadata}] * 3, (what, out)
    # a metadata change still goes to every player near
    assert out["change"] == [{"spawns": 0, "metadata": 1}] * 3, out
