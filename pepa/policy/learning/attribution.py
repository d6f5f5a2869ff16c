"""Attribution: a death or a near-miss put down to what carries to other places. Pure.

A lesson keyed to a place helps only there; one keyed to what hurt helps
wherever that is met again. :func:`attribute` reads the blows of one episode
(a death's, or the large loss of a near-miss: :class:`NearMissWatch`) and the
snapshots before it, and says in transferable terms what happened
(:class:`Attribution`):

- the **block types** blamed, each with how the bot met it (``below``: stood on
  it, ``inside``: walked into it, ``touching``: brushed its side; for a fall,
  where the fall began). A block is blamed only by contrast: one the bot
  stood on, walked in or touched unhurt in the snapshots before the first
  blow is not the cause (the grass it walked on before the magma);
- the **mob type** and how it hurt (melee, ranged, explosion);
- what the bot was **doing** (walking, digging, fighting, fleeing, ...) and the
  **surroundings** (surface or underground, in water, near lava).

:func:`hazard_lessons` turns it into lessons keyed by the block or the mob
(skills ``hazard.below``, ``hazard.inside``, ``hazard.touching``,
``hazard.mob``): a death's weigh :data:`DEATH_CONFIDENCE`, a near-miss's less
(:data:`NEAR_MISS_CONFIDENCE`). Nothing here names a block or a mob: what
hurt is read from the blows, whatever the world holds.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pepa.policy.reflex.combat import MOBS
from pepa.policy.reflex.hazards import HAZARD_MOB, HAZARD_PREFIX, hazard_skill
from pepa.state.knowledge.records import LessonDraft
from pepa.world.contact import RELATIONS, Contact
from pepa.world.death import DamageSource

__all__ = [
    "BLOCK_KINDS",
    "DEATH_CONFIDENCE",
    "HARMLESS_FOR",
    "HARMLESS_GAP",
    "HEAVY_BLOW",
    "NEAR_MISS_CONFIDENCE",
    "NEAR_MISS_GAP",
    "NEAR_MISS_LOSS",
    "NEAR_MISS_WINDOW",
    "Attribution",
    "HarmlessWatch",
    "NearMissWatch",
    "activity_of",
    "attribute",
    "describe_hazard",
    "hazard_lessons",
    "subject_of",
]

BLOCK_KINDS = frozenset({"fall", "lava", "fire", "contact", "suffocation", "magic", "generic"})
"""Blows a block can be blamed for. Not drowning (water is everywhere: the ``air_below`` knob
learns that), starvation, the void, or a foe's blow."""
FOE_KINDS = frozenset({"mob", "player", "arrow", "explosion"})
HEAVY_BLOW = 6.0
"""A blow this heavy (a zombie's is 3, 4.5 on hard) from a mob the fight policy has no row for
(``MOBS``: it falls to the rule for unknown hostiles) makes a lesson to keep from that mob
type. A mob with a row is learnt about by the fight's advice and knobs."""
DEATH_CONFIDENCE = 0.75
"""A death's lesson: in force at once, and a block it names is never stepped on."""
NEAR_MISS_CONFIDENCE = 0.6
"""A near-miss's lesson: in force (the chain acts from 0.6), weaker than a death's: a block it
names costs more to step on, and is not forbidden, until it hurts again."""
NEAR_MISS_LOSS = 8.0
"""Health lost within :data:`NEAR_MISS_WINDOW` that makes a near-miss (two fifths of a bar),
or down to :data:`NEAR_MISS_LEFT` after a loss of half that."""
NEAR_MISS_LEFT = 4.0
NEAR_MISS_WINDOW = 10.0
"""Seconds over which a near-miss's losses add up."""
NEAR_MISS_GAP = 30.0
"""Seconds after a near-miss before the next can be counted (one episode, one lesson)."""
MAX_BLAMED = 3
"""Block types one episode blames at most (the heaviest: each must have hurt)."""
SAFE_BEFORE = 1.0
"""Seconds before the first blow from which a snapshot shows what the bot met unhurt."""

_ACTIVITIES = (
    ("combat.", "fighting"), ("survive.flee", "fleeing"), ("survive.pillar", "pillaring up"),
    ("survive.escape", "digging out"), ("survive.shelter", "building a shelter"),
    ("gather.", "digging"), ("craft.", "crafting"), ("nav.", "walking"), ("food.", "hunting"),
    ("survive.sleep", "sleeping"), ("survive.surface", "swimming up"),
)  # fmt: skip


def subject_of(skill: str) -> str:
    """What a lesson is about, for people: ``block`` (a block type to keep off), ``mob`` (a mob
    type to keep from), ``action`` (advice on a skill, a knob of the policy)."""
    if skill == HAZARD_MOB:
        return "mob"
    return "block" if skill.startswith(HAZARD_PREFIX) else "action"


def describe_hazard(skill: str, subject: str) -> str:
    """A block or mob lesson for people: ``magma_block: standing on``, ``ravager: keep away``."""
    if skill == HAZARD_MOB:
        return f"{subject}: keep away"
    relation = skill[len(HAZARD_PREFIX) :]
    return f"{subject}: {_RELATION_WORDS.get(relation, relation)}"


def activity_of(skill: str | None) -> str:
    """What the bot was doing, in a word, from the skill it ran (``walking``, ``digging``)."""
    if not skill:
        return "standing"
    return next((word for prefix, word in _ACTIVITIES if skill.startswith(prefix)), skill)


@dataclass(frozen=True, slots=True, kw_only=True)
class Attribution:
    """What one death or near-miss is put down to, in terms that carry to other places."""

    kind: str
    """The kind of the heaviest blow (pepa.world.death.KINDS)."""
    lost: float
    """Health lost in the episode."""
    blocks: tuple[tuple[str, str], ...] = ()
    """``(relation, block)`` blamed, heaviest first."""
    mob: str = ""
    """The mob type whose blows hurt most, "" for none."""
    how: str = ""
    """How the mob hurt: ``melee``, ``ranged``, ``explosion``; "" for no mob."""
    heaviest: float = 0.0
    """The heaviest single blow of :attr:`mob`."""
    activity: str = "standing"
    surroundings: tuple[str, ...] = ()
    """``underground``/``surface``/``high``, ``in water``, ``near lava``, as seen last."""

    def describe(self) -> str:
        """For people: ``lost 12 to fall from stone_pressure_plate (inside) while walking``."""
        what = [f"{name} ({relation})" for relation, name in self.blocks]
        if self.mob:
            what.append(f"{self.mob} ({self.how})")
        by = f" from {', '.join(what)}" if what else ""
        where = f"; {', '.join(self.surroundings)}" if self.surroundings else ""
        return f"lost {self.lost:g} to {self.kind}{by} while {self.activity}{where}"


def attribute(
    sources: Sequence[DamageSource],
    *,
    safe: Iterable[Contact] = (),
    skill: str | None = None,
    last: Mapping[str, Any] | None = None,
) -> Attribution:
    """The attribution of the blows of one episode (oldest first). ``safe``: the contacts of
    the snapshots before the first blow (what the bot met unhurt); ``skill``: the one it ran;
    ``last``: the last snapshot's wire form (its surroundings)."""
    lost = sum(s.amount for s in sources)
    heaviest = max(sources, key=lambda s: s.amount, default=None)
    unharmed = {pair for contact in safe for pair in contact.pairs()}
    weight: dict[tuple[str, str], float] = defaultdict(float)
    count: dict[tuple[str, str], int] = defaultdict(int)
    falls: set[tuple[str, str]] = set()
    for source in sources:
        if source.kind not in BLOCK_KINDS:
            continue
        for pair in _met(source):
            if pair not in unharmed:
                weight[pair] += source.amount
                count[pair] += 1
                if source.kind == "fall":
                    falls.add(pair)
    # a block that hurts does so again as long as the bot is on, in or against it: one blow
    # nothing explained (a blast whose creeper was gone) blames none; a fall is one blow
    proven = [p for p in weight if count[p] >= 2 or p in falls]
    blamed = sorted(proven, key=lambda p: (-weight[p], RELATIONS.index(p[0]), p[1]))[:MAX_BLAMED]
    by_mob: dict[str, list[DamageSource]] = defaultdict(list)
    for source in sources:
        if source.kind in FOE_KINDS and source.by and source.kind != "player":
            by_mob[source.by].append(source)
    mob = max(by_mob, key=lambda m: sum(s.amount for s in by_mob[m]), default="")
    blows = by_mob.get(mob, [])
    return Attribution(
        kind=heaviest.kind if heaviest is not None else "unknown", lost=round(lost, 2),
        blocks=tuple(blamed), mob=mob, how=_how(blows),
        heaviest=max((s.amount for s in blows), default=0.0),
        activity=activity_of(skill), surroundings=_surroundings(last or {}),
    )  # fmt: skip


def _met(source: DamageSource) -> Iterable[tuple[str, str]]:
    """The ``(relation, block)`` a blow may be put down to: what the bot stood on or in where
    it came from (for a fall, where the fall began; else as it stepped into the cell: a trap
    that buried it was sprung there), and, but for a fall, what it touched as it was hurt."""
    start = source.start
    came = [] if start is None else [(r, n) for r, n in start.pairs() if r != "touching"]
    if source.kind == "fall" or source.contact is None:
        return came
    return [*source.contact.pairs(), *(p for p in came if not source.contact.has(*p))]


def _how(blows: Sequence[DamageSource]) -> str:
    if not blows:
        return ""
    kinds = {s.kind for s in blows}
    return "explosion" if "explosion" in kinds else "ranged" if "arrow" in kinds else "melee"


def _surroundings(last: Mapping[str, Any]) -> tuple[str, ...]:
    found: list[str] = []
    position = last.get("position")
    if isinstance(position, Mapping) and isinstance(position.get("y"), int | float):
        y = float(position["y"])
        found.append("underground" if y < 56 else "high" if y > 100 else "surface")
    contact = Contact.parse(last.get("contact"))
    if last.get("headInWater") is True or (contact is not None and "water" in contact.inside):
        found.append("in water")
    if contact is not None and any(n == "lava" for _, n in contact.pairs()):
        found.append("near lava")
    return tuple(found)


def hazard_lessons(attribution: Attribution, *, death: bool) -> tuple[LessonDraft, ...]:
    """The lessons an attributed death (``death``) or near-miss teaches: one per block blamed,
    and one to keep from a mob with no row in the fight policy whose blows were
    :data:`HEAVY_BLOW` or more. Each is about its
    block or mob anywhere (no situation): it carries to every place."""
    confidence = DEATH_CONFIDENCE if death else NEAR_MISS_CONFIDENCE
    what = "died" if death else "nearly died"
    doing = attribution.activity
    drafts = [
        LessonDraft(
            skill=hazard_skill(relation),
            situation=f"{relation} {name}",
            hostile=name,
            verdict="avoid",
            alternative="",
            confidence=confidence,
            signature="",
            text=f"{what} of {attribution.kind} {_RELATION_WORDS[relation]} {name} while "
            f"{doing}: keep off it",
        )
        for relation, name in attribution.blocks
    ]
    if attribution.mob and attribution.mob not in MOBS and attribution.heaviest >= HEAVY_BLOW:
        drafts.append(
            LessonDraft(
                skill=HAZARD_MOB,
                situation=f"{attribution.how} {attribution.mob}",
                hostile=attribution.mob,
                verdict="avoid",
                alternative="",
                confidence=confidence,
                signature="",
                text=f"{what}: a {attribution.mob} hit for {attribution.heaviest:g} "
                f"({attribution.how}): keep away from it",
            )
        )
    return tuple(drafts)


_RELATION_WORDS = {"below": "standing on", "inside": "walking into", "touching": "touching"}


class NearMissWatch:
    """Blows as they come; a near-miss when they add up to a large loss the bot survives.

    :meth:`hurt` takes each blow with the health left and the time; it answers
    the blows of a near-miss (oldest first) when the last :data:`NEAR_MISS_WINDOW`
    seconds lost :data:`NEAR_MISS_LOSS` or more, or left :data:`NEAR_MISS_LEFT` or
    less after half that, and no near-miss was counted in the last
    :data:`NEAR_MISS_GAP` seconds. A death (:meth:`died`) ends the episode: its
    blows are the death's to teach.
    """

    def __init__(self) -> None:
        self.blows: list[tuple[float, DamageSource]] = []
        self.last_at: float | None = None

    def hurt(
        self, source: DamageSource, hp: float, now: float
    ) -> tuple[tuple[float, DamageSource], ...]:
        """One blow; the near-miss's blows with their times when this one makes one, else ()."""
        self.blows = [(at, s) for at, s in self.blows if now - at <= NEAR_MISS_WINDOW]
        self.blows.append((now, source))
        if hp <= 0 or (self.last_at is not None and now - self.last_at < NEAR_MISS_GAP):
            return ()
        lost = sum(s.amount for _, s in self.blows)
        if lost < NEAR_MISS_LOSS and not (hp <= NEAR_MISS_LEFT and lost >= NEAR_MISS_LOSS / 2):
            return ()
        self.last_at = now
        blows, self.blows = tuple(self.blows), []
        return blows

    def died(self) -> None:
        """The bot died: the blows so far were the death's."""
        self.blows = []


HARMLESS_FOR = 3.0
"""Seconds in contact with a block a lesson names, with no blow at all, that show the lesson
wrong there: it is graded down (a death's lesson falls out of force after two)."""
HARMLESS_GAP = 60.0
"""Seconds between two such grades of one lesson."""


class HarmlessWatch:
    """A block lesson is graded down when the bot meets the block as the lesson says (stands on
    it, is inside it, touches it) for :data:`HARMLESS_FOR` seconds unhurt: so a block blamed
    wrongly (the grass under a berry bush) stops being kept off, as a fight lesson that
    fails does. A block that does hurt is never met unhurt that long."""

    def __init__(self) -> None:
        self.lessons: set[tuple[str, str]] = set()
        """``(relation, block)`` of the block lessons in force."""
        self.since: dict[tuple[str, str], float] = {}
        """When the contact with each began (unhurt since)."""
        self.graded: dict[tuple[str, str], float] = {}
        self.last_blow = -math.inf

    def learn(self, skill: str, block: str, confidence: float, in_force: float) -> None:
        """A lesson's confidence now (any lesson: those about blocks are kept)."""
        relation = skill[len(HAZARD_PREFIX) :] if skill.startswith(HAZARD_PREFIX) else ""
        if relation not in RELATIONS:
            return
        if confidence >= in_force:
            self.lessons.add((relation, block))
        else:
            self.lessons.discard((relation, block))

    def hurt(self, now: float) -> None:
        """A blow: no contact so far was unhurt."""
        self.last_blow = now
        self.since.clear()

    def observe(self, contact: Contact | None, now: float) -> tuple[tuple[str, str], ...]:
        """The ``(relation, block)`` of the lessons shown wrong by the contact now."""
        if not self.lessons:
            return ()
        met = {pair for pair in (contact.pairs() if contact else ()) if pair in self.lessons}
        self.since = {pair: self.since.get(pair, now) for pair in met}
        wrong = []
        for pair, began in self.since.items():
            if min(now - began, now - self.last_blow) < HARMLESS_FOR:
                continue
            if now - self.graded.get(pair, -math.inf) < HARMLESS_GAP:
                continue
            self.graded[pair] = now
            wrong.append(pair)
        return tuple(wrong)
