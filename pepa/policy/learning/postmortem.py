"""The offline post-mortem: classify a death from its context bundle and write a lesson. Pure.

No LLM is needed: the bundle says what the bot was doing, what was near and
how its health and food went. The lesson it writes is concrete enough for the
reflex chain to act on (``avoid`` a skill against a hostile, with a
whitelisted ``alternative``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pepa.policy.reflex import night
from pepa.policy.reflex.food import best_food
from pepa.policy.reflex.knobs import TUNE, knob_skill
from pepa.policy.reflex.situation import Situation, fight_signature, first_met, situation_of
from pepa.state.knowledge.records import LessonDraft
from pepa.world.death import DeathCause, death_cause
from pepa.world.view import WorldView

__all__ = ["PostMortemDraft", "analyse"]


@dataclass(frozen=True, slots=True, kw_only=True)
class PostMortemDraft:
    """What the analysis concluded."""

    cause: str
    analysis: str
    lesson: LessonDraft | None
    knobs: tuple[LessonDraft, ...] = ()
    """Knob lessons (pepa.policy.reflex.knobs): a number of the policy to turn, as well."""


def analyse(reason: str, bundle: Mapping[str, Any]) -> PostMortemDraft:
    """Why the bot died, and what to do differently.

    The cause (``bundle["cause"]``, :func:`pepa.world.death.death_cause`) says
    what killed it; only a death with no message and no blow seen falls back
    to what the snapshots show (food at 0, the nearest hostile).
    """
    cause = death_cause(bundle.get("cause"))
    snapshots = list(bundle.get("snapshots") or [])
    skill = str(bundle.get("last_skill") or "")
    hostile = bundle.get("last_hostile") or {}
    foods = [s.get("food") for s in snapshots if s.get("food") is not None]
    hps = [s.get("hp") for s in snapshots if s.get("hp") is not None]
    lost = f"{hps[0]:g} → {hps[-1]:g}" if len(hps) >= 2 else "?"
    doing = skill or "nothing"
    guessed = cause.kind == "unknown"
    if guessed:  # no word from the server: what the snapshots show
        if foods and foods[-1] == 0 and not hostile.get("name"):
            cause = DeathCause(kind="starvation")
        elif hostile.get("name"):
            cause = DeathCause(kind="mob", killer=str(hostile["name"]))
    if cause.kind == "starvation":
        return PostMortemDraft(
            cause="starvation",
            analysis="food reached 0 and health drained away",
            lesson=LessonDraft(
                skill="survive.eat", situation="food low", hostile="", verdict="note",
                alternative="", text="keep food in the inventory; eat before food drops to 6",
                confidence=0.6, signature=Situation(cause="starvation").signature(),
            ),
            knobs=_HAZARD_KNOBS["starvation"],
        )  # fmt: skip
    name = cause.killer or ""
    if cause.kind in _FOES and name:
        met = fight_signature(snapshots, name, cause.kind)
        near = hostile.get("distance") if hostile.get("name") == name else None
        seen = f"{name} at {near} blocks" if near is not None else name
        told = "" if guessed else f"{cause.summary()}; "
        last = _last_alive(snapshots)
        keep = (
            *_fight_knobs(name, cause, met), *_hungry(name, met, snapshots),
            *_caught_out(name, last, skill), *_bare(name, met, last),
        )  # fmt: skip
        if skill.startswith("combat.attack-nearest"):
            return PostMortemDraft(
                knobs=keep,
                cause=f"lost a fight to {name}",
                analysis=f"fought {seen}; {told}health {lost}",
                lesson=LessonDraft(
                    skill="combat.attack-nearest", situation="hostile nearby", hostile=name,
                    verdict="avoid", alternative="survive.flee",
                    text=f"do not fight {name} like this: flee instead", confidence=0.7,
                    signature=met,
                ),
            )  # fmt: skip
        return PostMortemDraft(
            knobs=keep,
            cause=f"killed by {name} while doing {doing}",
            analysis=f"{told}{seen}; health {lost}",
            lesson=LessonDraft(
                skill="combat.attack-nearest", situation="hostile nearby", hostile=name,
                verdict="note", alternative="", confidence=0.5,
                text=f"{name} killed the bot while it was busy with {doing}", signature=met,
            ),
        )  # fmt: skip
    if cause.kind in _HAZARDS:
        what = cause.summary()
        return PostMortemDraft(
            knobs=_HAZARD_KNOBS.get(cause.kind, ()),
            cause=f"{what} while doing {doing}",
            analysis=f"{cause.text or what}; health {lost}",
            lesson=LessonDraft(
                skill=skill or "nav.goto", situation=cause.kind, hostile="", verdict="note",
                alternative="", confidence=0.5, signature=Situation(cause=cause.kind).signature(),
                text=f"{what} while doing {doing}: {_HAZARDS[cause.kind]}",
            ),
        )  # fmt: skip
    return PostMortemDraft(
        cause=cause.summary() if cause.kind != "unknown" else (reason or "unknown"),
        analysis=cause.text or "no message from the server, no hostile near, food fine",
        lesson=None,
    )


_FOES = frozenset({"mob", "player", "arrow", "explosion"})
"""Causes with a killer the combat policy can fight or flee."""
_HAZARDS = {
    "fall": "mind the drop",
    "lava": "keep away from lava",
    "fire": "keep out of fire",
    "drowning": "come up for air",
    "suffocation": "do not stand where blocks fall",
    "void": "keep away from the world's edge",
    "contact": "keep off the block that pricked it",
}
"""Deaths by the world, not a foe: what the lesson notes."""


def _fight_knobs(name: str, cause: DeathCause, met: str) -> tuple[LessonDraft, ...]:
    """The knobs a death in a fight turns, in that fight's situation (``met``): a creeper's
    blast, the distance kept from creepers; any other foe, the health wanted before taking one
    on, and the crowd fled from when it came with others. None with the fight unknown (no
    snapshot showed the killer): one death says nothing about fights in general."""
    if cause.kind == "explosion" and name == "creeper":
        why = f"blown up: keep {CREEPER_KEEP:g} blocks from creepers"
        return (_turn("creeper_keep", f"+{CREEPER_KEEP:g}", name, met, why),)
    if not met:
        return ()
    margin = _turn(
        "fight_margin", f"+{FIGHT_MARGIN:g}", name, met,
        f"killed by {name}: want {FIGHT_MARGIN:g} more health before a fight like this",
    )  # fmt: skip
    crowd = Situation.parse(met).crowd
    if crowd in ("0", "1", ""):
        return (margin,)
    why = f"killed by {name} with {crowd} hostiles near: flee from one hostile fewer"
    return margin, _turn("crowd", "-1", name, met, why)


FIGHT_MARGIN = 4.0
"""Health a death in a fight has the bot want beyond the policy's own before a like fight:
one zombie's blow and a half on hard (3 times 1.5), an arrow or two."""
CREEPER_KEEP = 7.0
"""Blocks to keep from creepers after one blew the bot up: a lit creeper stops swelling beyond
7 (vanilla SwellGoal), so one kept that far never goes off."""


AIR_SOONER = 8.0
"""Air points (0.75 s each) sooner a drowning has the bot swim up: at 16 of 20, 12 s of air, for
24 blocks of water at the 2 blocks a second a bot swims up."""


def _hungry(name: str, met: str, snapshots: list[Any]) -> tuple[LessonDraft, ...]:
    """A death in a fight begun below :data:`FIGHT_FOOD` food (no healing in it) with food in
    the bag has the bot eat before like fights: read from the first snapshot with the foe
    in it, where the fight's situation comes from."""
    view = first_met(snapshots, name) if met else None
    if (
        view is None
        or view.food is None
        or view.food >= FIGHT_FOOD
        or best_food(view.inventory.items, 20) is None
    ):
        return ()
    why = f"killed by {name} on {view.food} food with food held: eat before a fight like this"
    return (_turn("fight_food", f"+{FIGHT_FOOD:g}", name, met, why),)


FIGHT_FOOD = 18.0
"""Food from which a bot heals (vanilla: natural regeneration at 18 and more)."""


def _last_alive(snapshots: list[Any]) -> WorldView | None:
    """The last of a death's snapshots with the bot alive in it."""
    alive = [s for s in snapshots if isinstance(s, Mapping) and (s.get("hp") or 0) > 0]
    return WorldView.from_wire(alive[-1]) if alive else None


def _caught_out(name: str, view: WorldView | None, skill: str) -> tuple[LessonDraft, ...]:
    """A death to a foe by night out in the open (the last snapshot alive not closed in) has the
    bot start for its bed or shelter :data:`DUSK_LEAD` ticks sooner, everywhere; not one in
    its bed or mining down from its shelter (``skill``, the last one run), where the night
    plan had done its part."""
    if view is None or not night.is_night(view.time_of_day) or night.closed_in(view):
        return ()
    if view.sleeping or skill.split(" ")[0] in ("survive.sleep", *night.NIGHT_WORK):
        return ()
    why = f"caught out by night by {name}: start for shelter {DUSK_LEAD:g} ticks before dusk"
    return (_turn("dusk_lead", f"+{DUSK_LEAD:g}", "", "", why),)


def _bare(name: str, met: str, view: WorldView | None) -> tuple[LessonDraft, ...]:
    """A death to a foe with no armour on (in the fight's situation, else the last snapshot
    alive) has the curriculum hand out the plan's armour and shield first, everywhere."""
    worn = Situation.parse(met).armour if met else situation_of(view).armour if view else ""
    if worn != "none":
        return ()
    why = f"killed by {name} with no armour on: armour and a shield before the rest of the plan"
    return (_turn("gear_first", "+1", "", "", why),)


DUSK_LEAD = 1000.0
"""Ticks sooner a death out in the night has the bot start for shelter (50 s of a 20-minute day;
monsters spawn on the surface from 13188, 1188 ticks after dusk)."""


def _turn(knob: str, change: str, hostile: str, signature: str, text: str) -> LessonDraft:
    """A lesson that turns a knob of the policy (pepa.policy.reflex.knobs)."""
    return LessonDraft(
        skill=knob_skill(knob), situation="knob", hostile=hostile, verdict=TUNE,
        alternative=change, text=text, confidence=0.7, signature=signature,
    )  # fmt: skip


NIGHT_FOOD = 4.0
"""Pieces of food a starvation has the bot hunt for before dusk: a night's hunger and more."""
_HAZARD_KNOBS: dict[str, tuple[LessonDraft, ...]] = {
    "starvation": (
        _turn("eat_below", "+3", "", "", "starved: eat below 19 food, not 16"),
        _turn(
            "night_food",
            f"+{NIGHT_FOOD:g}",
            "",
            "",
            f"starved: {NIGHT_FOOD:g} pieces of food in the bag before dusk",
        ),
    ),
    "drowning": (
        _turn("air_below", f"+{AIR_SOONER:g}", "", "", "drowned: come up for air at 16 of 20"),
    ),
}
"""The knobs a death by the world turns, by cause (a fall or lava: the place is walked around,
docs/knowledge.md "Places that killed the bot")."""
