"""The night plan: at dusk a bed or a shelter, food before dark, out in the morning. Pure.

The reflex chain asks :func:`plan` once it has no fight, escape, hunger or
order to see to. From dusk (:data:`DUSK`) until morning (:data:`MORNING`) the
bot sleeps in a bed within :data:`BED_RADIUS` when a bed can be used, and
keeps working until then while one is near; with no bed it walls itself in
(``survive.shelter``: two blocks into the ground and a roof, or blocks it
holds round it) and waits there. It eats first when its food bar is not
full. In its shelter a mining task goes on (:func:`works_under_cover`:
``gather.stone`` or ``gather.iron`` with a pickaxe that can do it), dug
*down* from the shelter's floor with ``under_cover`` (the gather action then
only digs a sealed shaft and tunnels under the roof, never walking out onto
the surface), and so does a craft or a smelt whose next step can be done
there — the night workshop: a craft at the carried table or a smelt in the
carried furnace, placed in the sealed pocket and dug back up, a 2x2 craft,
or stone or iron dug under cover; any other task (wood) waits for the morning.
A bed that refuses, or a monster beside it, sends the bot to a shelter instead. In full day
(:data:`LEAVE_FROM`) with no hostile in sight it digs its way out
(``survive.escape``, retried after a failure only once ``may_leave``) and the
task resumes; with the time of day unknown nothing changes. :func:`shelter_spot`
tells the chain's memory where the bot sheltered (kept while it mines below
it); by night walls round the bot are a shelter, never a trap
(:func:`resting`): the escape reflex leaves them alone until morning.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pepa.game.crafting import FURNACE, IRON_PICKAXES, PICKAXES, TABLE, CraftingError
from pepa.game.steps import book_for, next_step_for
from pepa.world.view import Vec3, WorldView

__all__ = [
    "BED_RADIUS",
    "DUSK",
    "LEAVE_FROM",
    "MORNING",
    "NightStep",
    "closed_in",
    "is_night",
    "plan",
    "resting",
    "shelter_spot",
    "works_under_cover",
]

DUSK = 12000
"""Ticks of the day when the sun starts to set (vanilla 1.16.5 ``DimensionType.getCelestialAngle``:
day time 12000 is sunset). Monsters may spawn on the surface from 13188 (sky light 7 and
below, ``MonsterEntity.isValidLightLevel``): the bot starts for shelter at 12000."""
BED_FROM, BED_UNTIL = 12541, 23458
"""Ticks of the day when a bed can be used (vanilla 1.16.5 ``World.isDaytime`` false:
``skylightSubtracted`` ≥ 4; mineflayer's ``bot.sleep`` uses the same window)."""
MORNING = BED_UNTIL + 1
"""The first tick of the morning: ``World.isDaytime`` again (``skylightSubtracted`` 3), a bed
refuses. Zombies and skeletons under the open sky do not burn yet: they need a brightness above
0.5 (vanilla 1.16.5 ``ZombieEntity.livingTick``), and at sky darkening 3 it is exactly 0.5
(``DimensionType.getAmbientLight``: light 12 → 0.5); from 23624 (darkening 2) they burn."""
LEAVE_FROM = 0
"""Ticks of the day from which the bot leaves its shelter: full day (sky darkening 0, from 23960
by vanilla 1.16.5 ``World.calculateInitialSkylight``), the undead burning since 23624."""
LEAVE_CLEAR = 16.0
"""No leaving the shelter while a hostile is this close (the view's threat radius)."""
BED_RADIUS = 16.0
"""Blocks to a bed the bot walks to for the night."""
SLEEP_SAFE_RADIUS = 8.0
"""No sleeping with a monster this close (vanilla 1.16.5 ``ServerPlayerEntity.trySleep``:
8 blocks across, 5 up and down)."""
FULL = 20
"""A full food bar: the bot eats before dark below this."""
AT_HOME = 4.0
"""Blocks from the cell inside the home's door the bot may be and be at home (the hut's room is
3 by 3 behind it)."""
HOME_REACH = 160.0
"""Blocks from home beyond which the bot shelters where it is at dusk instead of walking home
(a walk of about a minute and a half: the dusk before monsters spawn is 1188 ticks, 59 s at
real time)."""
STILL_THERE = 1.5
"""Blocks the bot may be from the spot it sheltered at and still be in its shelter."""
UNDER_COVER_REACH = 9.0
"""Blocks sideways from its shelter a bot mining under cover may be and still be in it (the
JS gather action's tunnels reach 6 along each axis: 8.5 on the diagonal)."""
NIGHT_WORK = {"gather.stone": PICKAXES, "gather.iron": IRON_PICKAXES}
"""Tasks that go on from a shelter by night → the pickaxes one of which the bot must hold
(without one the task's next step is crafting, which walks to a table on the surface)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class NightStep:
    """One decision of the night plan."""

    kind: str
    """``sleep``, ``eat``, ``home``, ``shelter``, ``mine``, ``wait`` or ``leave-shelter``."""
    skill: str | None
    """The skill to run; None to stay put."""
    args: Mapping[str, Any] = field(default_factory=dict)
    reason: str = ""


def is_night(time_of_day: int | None, lead: float = 0.0) -> bool:
    """Whether it is dusk or night: from :data:`DUSK` (``lead`` ticks sooner: a lesson, knob
    ``dusk_lead``) until :data:`MORNING`."""
    return time_of_day is not None and DUSK - lead <= time_of_day % 24000 < MORNING


def at_home(here: Vec3, home: Vec3) -> bool:
    """Whether ``here`` is in the home whose door's inside cell is ``home`` (:data:`AT_HOME`)."""
    return here.distance_to(home) <= AT_HOME


def closed_in(world: WorldView) -> bool:
    """No side to walk out of and a block right above the head: a shelter's shape."""
    enclosure = world.enclosure
    return (
        world.connected
        and enclosure is not None
        and enclosure.open_sides == 0
        and enclosure.ceiling == 2
    )


def shelter_spot(
    world: WorldView, previous: Vec3 | None, lead: float = 0.0, home: Vec3 | None = None
) -> Vec3 | None:
    """Where the bot shelters: the spot it is closed in at by night, kept while it stays
    there (into the morning, until it is out) and, by night, while it mines below its floor
    within :data:`UNDER_COVER_REACH`; None once it has left (``lead``: as :func:`is_night`). A
    bot still down its mine in
    the morning is out of its shelter: its task's own walk takes it up (the escape's search
    from such mines kept failing in the gauntlet, where that walk got out)."""
    here = world.position
    if home is not None and here is not None and at_home(here, home):
        return None  # the home's walls and door: never dug out of in the morning
    night = is_night(world.time_of_day, lead)
    if night and closed_in(world) and here is not None:
        return here if previous is None or here.distance_to(previous) > STILL_THERE else previous
    if previous is None or here is None:
        return None
    if here.distance_to(previous) <= STILL_THERE:
        return previous
    below = here.y <= previous.y + 0.5
    sideways = ((here.x - previous.x) ** 2 + (here.z - previous.z) ** 2) ** 0.5
    return previous if night and below and sideways <= UNDER_COVER_REACH else None


def works_under_cover(
    task: Mapping[str, Any] | None, items: Mapping[str, int], version: str | None = None
) -> bool:
    """Whether ``task`` can go on from a shelter by night: mining with a fit pickaxe
    (:data:`NIGHT_WORK`), or a ``craft.*`` / ``smelt.*`` whose next step (planned from
    ``items`` as the skill will) is one of those, a craft at the held table or in the 2x2
    grid, or a smelt in the held furnace: the bot carries its workshop into the shelter."""
    if task is None:
        return False
    skill = str(task.get("skill", ""))
    pickaxes = NIGHT_WORK.get(skill)
    if pickaxes is not None:
        return any(items.get(p, 0) > 0 for p in pickaxes)
    kind, _, item = skill.partition(".")
    if kind not in ("craft", "smelt") or not item:
        return False
    count = int((task.get("args") or {}).get("count") or 1)
    try:
        step = next_step_for(item, count, items, version)
        if step is None:
            return True  # held already: the skill ends at once
        if step[0] in NIGHT_WORK:
            return any(items.get(p, 0) > 0 for p in NIGHT_WORK[step[0]])
        if step[0].startswith("smelt."):
            return items.get(FURNACE, 0) > 0
        if step[0].startswith("craft."):
            variants = book_for(version).by_result.get(step[1], [])
            in_hand = any(not r.needs_table for r in variants)
            return bool(variants) and (in_hand or items.get(TABLE, 0) > 0)
    except (CraftingError, KeyError, ValueError, OSError):
        return False
    return False  # wood, food: out on the surface, in the morning


def resting(world: WorldView, shelter: Vec3 | None, lead: float = 0.0) -> bool:
    """Whether walls round the bot are a shelter, not a trap: by night, in its shelter or in a
    spot with no side open (a shelter half built; the night plan roofs it); in the morning, in
    its shelter until it may leave (:func:`_stays`). ``lead``: as :func:`is_night`."""
    enclosure = world.enclosure
    walled = enclosure is not None and enclosure.open_sides == 0
    if is_night(world.time_of_day, lead):
        return shelter is not None or walled
    return shelter is not None and _stays(world) is not None


def _stays(world: WorldView) -> str | None:
    """Why a bot in its shelter by day stays in it: the time unknown, not full day yet
    (:data:`LEAVE_FROM`), a hostile within :data:`LEAVE_CLEAR`; None when it may go."""
    time = world.time_of_day
    if time is None:
        return "time of day unknown"
    if not LEAVE_FROM <= time % 24000 < DUSK:
        return "in the shelter until full day"
    if any(t.distance <= LEAVE_CLEAR for t in world.threats):
        return "a hostile near the shelter"
    return None


def _work(world: WorldView, task: Mapping[str, Any] | None) -> NightStep | None:
    """The task, under cover, when it can go on in the shelter (:func:`works_under_cover`)."""
    if task is None or not works_under_cover(task, world.inventory.items, world.version):
        return None
    args = {**dict(task.get("args") or {}), "under_cover": True}
    skill = str(task["skill"])
    why = "mining down from the shelter" if skill in NIGHT_WORK else "working in the shelter"
    return NightStep(kind="mine", skill=skill, args=args, reason=why)


def plan(
    world: WorldView,
    *,
    shelter: Vec3 | None,
    food: str | None,
    may_sleep: bool,
    may_shelter: bool,
    task: Mapping[str, Any] | None = None,
    may_leave: bool = True,
    lead: float = 0.0,
    home: Vec3 | None = None,
) -> NightStep | None:
    """The night plan's step now, or None (day; a bed near by that cannot be used yet).

    ``shelter``: where the bot sheltered (:func:`shelter_spot`); ``food``: the food to eat now,
    None when it has none or has just eaten; ``may_sleep`` / ``may_shelter`` / ``may_leave``:
    False for a while after a bed, a shelter or a way out failed; ``task``: the task slot's task
    (``skill``, ``args``), which goes on under cover when it can (:func:`works_under_cover`);
    ``lead``: ticks before :data:`DUSK` the night begins (a lesson, knob ``dusk_lead``);
    ``home``: the cell inside the home's door (None: no home, or the way there failed a moment
    ago): the bot walks home from within :data:`HOME_REACH` when its bed is not near.
    """
    time = world.time_of_day
    if not is_night(time, lead):
        if shelter is None:
            return None
        work = _work(world, task)
        if work is not None:  # the morning, and work that goes on here: the surface can wait
            return work
        why = _stays(world) or (None if may_leave else "the way out failed a moment ago")
        if why is not None:
            return NightStep(kind="wait", skill=None, reason=why)
        # up to the surface: from a mine dug down from the shelter a way 3 blocks off is
        # still underground (the gauntlet's bot spent its days climbing a 1x1 shaft)
        up = {"mode": "surface"}
        return NightStep(kind="leave-shelter", skill="survive.escape", args=up, reason="morning")
    if world.sleeping:
        return NightStep(kind="wait", skill=None, reason="asleep")
    hungry = world.food is not None and world.food < FULL
    if hungry and food is not None:
        why = f"food {world.food} at dusk"
        return NightStep(kind="eat", skill="survive.eat", args={"item": food}, reason=why)
    if shelter is not None:
        work = _work(world, task)
        return work or NightStep(kind="wait", skill=None, reason="in the shelter until morning")
    beds = [b for b in world.beds if b.distance <= BED_RADIUS]
    here = world.position
    if home is not None and here is not None and not beds:
        far = here.distance_to(home)
        if at_home(here, home):  # its walls and door keep the night out: no shelter in it
            return NightStep(kind="wait", skill=None, reason="at home")
        if far <= HOME_REACH:
            return NightStep(
                kind="home", skill="base.go-home", reason=f"dusk: home, {far:.0f} blocks"
            )
    usable = time is not None and BED_FROM <= time % 24000 <= BED_UNTIL
    if beds and not usable:  # the bed is the night's refuge: work on until it can be used
        return None
    near = any(t.distance <= SLEEP_SAFE_RADIUS for t in world.threats)
    if beds and may_sleep and not near:  # a refusal or a monster by it: a shelter instead
        bed = min(beds, key=lambda b: b.distance)
        return NightStep(
            kind="sleep",
            skill="survive.sleep",
            args={"bed": {"x": bed.x, "y": bed.y, "z": bed.z}},
            reason="night",
        )
    if not may_shelter:
        return None
    return NightStep(kind="shelter", skill="survive.shelter", reason="dusk, no bed near")
