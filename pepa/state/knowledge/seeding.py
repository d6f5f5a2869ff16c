"""A knowledge base's first fill from minecraft-data: recipes, blocks, mobs and the starter
lessons, once per game version; in a base a fleet shares, by one bot while the others go on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from pony import orm

from pepa.game.crafting import Recipes
from pepa.state.knowledge._models import utcnow

if TYPE_CHECKING:
    from pepa.state.knowledge.store import KnowledgeStore

__all__ = ["SEED_LOCK", "STARTER_VERDICTS", "seed"]

STARTER_VERDICTS = {
    "zombie": ("fight", "slow melee mob: fight it with a weapon, back off under 8 hp"),
    "husk": ("fight", "like a zombie; causes hunger"),
    "spider": ("fight", "fast and climbs walls: fight in the open"),
    "skeleton": ("fight", "ranged: close the distance or break line of sight"),
    "creeper": ("flee", "explodes within 3 blocks: never melee without a shield, run"),
    "witch": ("flee", "throws potions: keep away"),
    "enderman": ("ignore", "neutral unless looked at: do not look, do not hit"),
    "drowned": ("fight", "in water it is faster: fight from land"),
}
"""Fight-or-flee verdicts for common mobs, seeded once."""
SEED_LOCK = 0x9E9A5EED
"""PostgreSQL advisory lock held while a bot seeds a shared base (the others then skip)."""


def seed(store: KnowledgeStore, version: str, data_root: Path) -> bool | None:
    """Fill recipes, blocks, mobs and starter lessons from minecraft-data, once per version.

    True: seeded now; False: seeded already. None: another bot of a fleet sharing the
    base is seeding it right now; try again later. The fleet's bots join together and
    one seeds while the others go on: waiting on its lock, 10 of 64 bots' knowledge
    actors were once replaced as hung (no heartbeat answer for 5 s)."""
    if store.meta(f"seeded:{version}") is not None:
        return False
    with orm.db_session:
        e = store.e
        if store.shared:
            # execute, not select: Pony runs a select alone in autocommit, which would
            # free the lock at once; execute opens the transaction that holds it
            got = store.db.execute(
                "SELECT pg_try_advisory_xact_lock($key)", {}, {"key": SEED_LOCK}
            ).fetchone()
            if not got or not got[0]:
                return None
            if e["Meta"].get(key=f"seeded:{version}") is not None:
                return False
        paths = json.loads((data_root / "dataPaths.json").read_text())["pc"][version]
        items = json.loads((data_root / paths["items"] / "items.json").read_text())
        blocks = json.loads((data_root / paths["blocks"] / "blocks.json").read_text())
        entities = json.loads((data_root / paths["entities"] / "entities.json").read_text())
        names = {item["id"]: item["name"] for item in items}
        recipes = Recipes.load(version, data_root)
        for result, variants in recipes.by_result.items():
            for r in variants:
                e["RecipeRow"](
                    result=result, count=r.count, ingredients=dict(r.ingredients),
                    needs_table=r.needs_table,
                )  # fmt: skip
        # the names known already, in one query each (a get per row was 860 round trips)
        known_blocks = set(orm.select(b.name for b in e["BlockIntel"]))
        known_mobs = set(orm.select(m.name for m in e["MobIntel"]))
        seeded_mobs = set(orm.select(x.hostile for x in e["Lesson"] if x.source == "seed"))
        for block in blocks:
            if block["name"] not in known_blocks:
                known_blocks.add(block["name"])
                tools = [names.get(int(i), str(i)) for i in (block.get("harvestTools") or {})]
                drops = [
                    names.get(d, str(d)) for d in block.get("drops") or [] if isinstance(d, int)
                ]
                e["BlockIntel"](
                    name=block["name"], hardness=block.get("hardness"),
                    harvest_tools=tools, drops=drops, light=int(block.get("emitLight") or 0),
                )  # fmt: skip
        for entity in entities:
            if entity.get("type") not in ("mob", "hostile", "passive", "animal", "ambient"):
                continue
            if entity["name"] in known_mobs:
                continue
            known_mobs.add(entity["name"])
            verdict, note = STARTER_VERDICTS.get(entity["name"], ("", ""))
            e["MobIntel"](
                name=entity["name"], category=entity.get("category") or "",
                hostile=entity.get("category") == "Hostile mobs", verdict=verdict, note=note,
            )  # fmt: skip
        for mob, (verdict, note) in STARTER_VERDICTS.items():
            flee = verdict == "flee"
            if mob in seeded_mobs:  # seeded for another version (a fleet's shared database)
                continue
            e["Lesson"](
                skill="combat.attack-nearest", situation="hostile nearby", hostile=mob,
                verdict="avoid" if flee else "note",
                alternative="survive.flee" if flee else "",
                text=f"{mob}: {note}", confidence=0.6, source="seed",
            )  # fmt: skip
        store.set_meta(f"seeded:{version}", utcnow().isoformat())
    return True
