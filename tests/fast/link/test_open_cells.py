"""cover.js's open(): a cell read as its state id answers what a Block made by blockAt did.

The snapshot's enclosure (the four sides the bot can step onto, the ceiling over it) reads 15
cells 5 times a second; it asked mineflayer's ``blockAt`` for each, which makes a Block, and
now reads the cell's state id (``cover.open``). ``tests/js/open_cells.js`` compares the two on
every cell of boxes round surface and underground points, past the loaded chunks and past the
world's top and bottom, before and after cells change to blocks with and without a collision
box. Tried: an ``open`` that counted a column not loaded as closed fails on 980 cells.
"""

from __future__ import annotations

import pytest

from tests.js import run_script

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("version", ["1.8.8", "1.12.2", "1.16.5", "1.21.4"])
def test_open_answers_what_a_block_from_block_at_answered(version: str) -> None:
    report = run_script("open_cells.js", version, 1, timeout=110)
    assert report["mismatches"] == []
    assert report["cells"] == 2 * 28 * 7 * 10 * 7  # before and after the changes
    assert 0 < report["open"] < report["cells"]  # both kinds of cell compared
    assert report["unloaded"] > 0
