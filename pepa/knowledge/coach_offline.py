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

__all__ = ["LessonDraft", "PostMortemDraft", "analyse"]


@dataclass(frozen=True, slots=True, kw_only=True)
class LessonDraft:
    """A lesson to store."""

    skill: str
    situation: str
    hostile: str
    verdict: str
    alternative: str
    text: str
    confidence: float


@dataclass(frozen=True, slots=True, kw_only=True)
class PostMortemDraft:
    """What the analysis concluded."""

    cause: str
    analysis: str
    lesson: LessonDraft | None


def analyse(reason: str, bundle: Mapping[str, Any]) -> PostMortemDraft:
    """Why the bot died, and what to do differently."""
    snapshots = list(bundle.get("snapshots") or [])
    skill = str(bundle.get("last_skill") or "")
    hostile = bundle.get("last_hostile") or {}
    name = str(hostile.get("name") or "")
    foods = [s.get("food") for s in snapshots if s.get("food") is not None]
    hps = [s.get("hp") for s in snapshots if s.get("hp") is not None]
    if foods and foods[-1] == 0 and not name:
        return PostMortemDraft(
            cause="starvation",
            analysis="food reached 0 and health drained with no hostile near",
            lesson=LessonDraft(
                skill="survive.eat", situation="food low", hostile="", verdict="note",
                alternative="", text="keep food in the inventory; eat before food drops to 6",
                confidence=0.6,
            ),
        )  # fmt: skip
    if name:
        lost = f"{hps[0]:g} → {hps[-1]:g}" if len(hps) >= 2 else "?"
        if skill.startswith("combat.attack-nearest"):
            return PostMortemDraft(
                cause=f"lost a fight to {name}",
                analysis=f"fought {name} at {hostile.get('distance')} blocks; health {lost}",
                lesson=LessonDraft(
                    skill="combat.attack-nearest", situation="hostile nearby", hostile=name,
                    verdict="avoid", alternative="survive.flee",
                    text=f"do not fight {name} like this: flee instead", confidence=0.7,
                ),
            )  # fmt: skip
        return PostMortemDraft(
            cause=f"killed by {name} while doing {skill or 'nothing'}",
            analysis=f"{name} at {hostile.get('distance')} blocks; health {lost}",
            lesson=LessonDraft(
                skill="combat.attack-nearest", situation="hostile nearby", hostile=name,
                verdict="note", alternative="", confidence=0.5,
                text=f"{name} killed the bot while it was busy with {skill or 'nothing'}",
            ),
        )  # fmt: skip
    return PostMortemDraft(cause=reason or "unknown", analysis="no hostile, food fine", lesson=None)
