"""Strict validation of LLM replies. Pure: text in, a typed value or :class:`ReplyRejected` out.

A reply is one JSON object, bare or inside a single ```` ```json ```` fence, and
nothing else. Rejected, and never stored:

- an empty or oversized reply, or one that looks like an error (``Error:``,
  ``rate limit``, ``Too Many Requests``, a Python traceback, an HTML page);
- prose before or after the JSON, several fences, invalid JSON, a non-object;
- a missing field, a field of the wrong type (``true`` is not a number), a
  string over its length limit;
- a skill id the registry does not know, an alternative or a next action the
  coach may not dispatch (``Skill.coach_may_dispatch``);
- a lesson's ``verdict`` other than ``avoid``, ``prefer`` or ``note``, a
  ``prefer`` without an alternative, a ``note`` with one, an alternative equal
  to the skill itself, a confidence outside 0..1.

Accepted values are normalised: strings stripped, ``hostile`` lower-cased,
``confidence`` clamped to :data:`LLM_CONFIDENCE_CAP`. Keys the schema does
not name are ignored (they are never stored).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import orjson

from pepa.llm._base import LlmError
from pepa.policy.reflex.hazards import HAZARD_MOB, HAZARD_PREFIX
from pepa.policy.reflex.knobs import KNOB_PREFIX, KNOBS, TUNE, parse_change
from pepa.policy.reflex.situation import Situation
from pepa.world.contact import RELATIONS, block_name

__all__ = [
    "LLM_CONFIDENCE_CAP",
    "MAX_LESSONS",
    "VERDICTS",
    "LessonReply",
    "NextAction",
    "PostMortemReply",
    "ReplyRejected",
    "SkillCatalog",
    "extract_object",
    "stored_lesson_problem",
    "validate_next_action",
    "validate_postmortem",
]

LLM_CONFIDENCE_CAP = 0.8
"""The most confidence an LLM-written lesson starts with (outcomes may raise it later)."""
MAX_LESSONS = 5
"""Lessons one post-mortem may carry."""
MAX_REPLY = 16_000
"""Characters of a reply looked at, at most; longer is rejected."""
VERDICTS = ("avoid", "prefer", "note")
"""What a lesson may say about its skill."""

_FENCE = re.compile(r"\A```(?:json)?[ \t]*\n(?P<body>.*?)\n[ \t]*```\Z", re.DOTALL | re.IGNORECASE)
_ERROR = re.compile(
    r"\A(?:error|fatal|exception)\b|\Atraceback \(most recent call last\)|rate[ _-]?limit"
    r"|too many requests|quota exceeded|<!doctype|<html|<body|<head>",
    re.IGNORECASE,
)
_HOSTILE = re.compile(r"^[a-z_]{0,40}$")


class ReplyRejected(LlmError):
    """A reply that failed validation: ``reason`` says why, ``excerpt`` is its first 200 chars."""

    def __init__(self, reason: str, reply: str) -> None:
        self.reason = reason
        self.excerpt = reply[:200]
        super().__init__(f"{reason}: {self.excerpt!r}")


@dataclass(frozen=True, slots=True, kw_only=True)
class SkillCatalog:
    """The skill ids a reply may name."""

    ids: frozenset[str]
    """Every skill of the registry."""
    advisable: frozenset[str]
    """The ones advice and the coach may start (``coach_may_dispatch``)."""
    descriptions: Mapping[str, str]
    """Id → one sentence, for prompts."""

    @classmethod
    def from_registry(cls, registry: Mapping[str, Any] | None = None) -> SkillCatalog:
        """The catalog of ``skills.REGISTRY`` (or of ``registry``)."""
        if registry is None:
            from skills import REGISTRY

            registry = REGISTRY
        return cls(
            ids=frozenset(registry),
            advisable=frozenset(k for k, s in registry.items() if s.coach_may_dispatch),
            descriptions={k: s.description for k, s in sorted(registry.items())},
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class LessonReply:
    """One validated lesson draft."""

    skill: str
    situation: str
    hostile: str
    verdict: str
    alternative: str
    text: str
    confidence: float

    def as_dict(self) -> dict[str, Any]:
        """Plain values, as :class:`pepa.runtime.events.DeathAnalysed` carries them."""
        return asdict(self)


@dataclass(frozen=True, slots=True, kw_only=True)
class PostMortemReply:
    """A validated post-mortem."""

    cause: str
    analysis: str
    lessons: tuple[LessonReply, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class NextAction:
    """A validated next-action suggestion."""

    skill: str
    reason: str


def extract_object(reply: Any) -> dict[str, Any]:
    """The one JSON object ``reply`` consists of; :class:`ReplyRejected` otherwise."""
    if not isinstance(reply, str) or not reply.strip():
        raise ReplyRejected("empty reply", str(reply or ""))
    if len(reply) > MAX_REPLY:
        raise ReplyRejected(f"reply longer than {MAX_REPLY} characters", reply)
    text = reply.strip()
    if _ERROR.search(text[:400]):
        raise ReplyRejected("error text instead of an answer", reply)
    fenced = _FENCE.match(text)
    if fenced is not None:
        text = fenced.group("body").strip()
    if "```" in text:
        raise ReplyRejected("prose or several fences around the JSON", reply)
    if not (text.startswith("{") and text.endswith("}")):
        if text.startswith("[") and text.endswith("]"):
            raise ReplyRejected("not a JSON object", reply)
        why = "prose around the JSON" if "{" in text else "not JSON"
        raise ReplyRejected(why, reply)
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:
        raise ReplyRejected("invalid JSON", reply) from None
    if not isinstance(data, dict):
        raise ReplyRejected("not a JSON object", reply)
    return data


def validate_postmortem(reply: Any, catalog: SkillCatalog | None = None) -> PostMortemReply:
    """A post-mortem reply: ``{cause, analysis, lessons: [...]}``."""
    catalog = catalog or SkillCatalog.from_registry()
    data = extract_object(reply)
    text = str(reply)
    lessons = data.get("lessons", [])
    if not isinstance(lessons, list):
        raise ReplyRejected("lessons is not a list", text)
    if len(lessons) > MAX_LESSONS:
        raise ReplyRejected(f"more than {MAX_LESSONS} lessons", text)
    return PostMortemReply(
        cause=_string(data, "cause", 200, text, required=True),
        analysis=_string(data, "analysis", 2000, text, required=True),
        lessons=tuple(_lesson(item, catalog, text) for item in lessons),
    )


def validate_next_action(reply: Any, catalog: SkillCatalog | None = None) -> NextAction:
    """A next-action reply: ``{skill, reason}`` naming a skill the coach may dispatch."""
    catalog = catalog or SkillCatalog.from_registry()
    data = extract_object(reply)
    text = str(reply)
    skill = _string(data, "skill", 80, text, required=True)
    if skill not in catalog.ids:
        raise ReplyRejected(f"unknown skill {skill!r}", text)
    if skill not in catalog.advisable:
        raise ReplyRejected(f"skill {skill!r} may not be dispatched by the coach", text)
    return NextAction(skill=skill, reason=_string(data, "reason", 200, text, required=True))


def stored_lesson_problem(lesson: Any, catalog: SkillCatalog) -> str:
    """Why a stored lesson may not reach the policy ("" when it may).

    A lesson another bot wrote into a shared base passes the checks an LLM's
    lesson passes (skill, verdict, alternative, hostile, text, confidence), and
    its situation must be a canonical signature: a row planted or altered in
    the database is as untrusted as a reply.
    """
    item = {
        "skill": lesson.skill, "verdict": lesson.verdict, "alternative": lesson.alternative,
        "hostile": lesson.hostile, "text": lesson.text, "confidence": lesson.confidence,
    }  # fmt: skip
    shown = str(lesson.text)[:200]
    try:
        _lesson(item, catalog, shown)
    except ReplyRejected as exc:
        return exc.reason
    if not str(lesson.text).isprintable():
        return "its text holds control characters"
    signature = lesson.signature
    if not isinstance(signature, str) or Situation.parse(signature).signature() != signature:
        return "its situation is not a signature"
    return ""


def _lesson(item: Any, catalog: SkillCatalog, text: str) -> LessonReply:
    if not isinstance(item, dict):
        raise ReplyRejected("a lesson is not an object", text)
    skill = _string(item, "skill", 80, text, required=True)
    if skill.startswith(KNOB_PREFIX):
        return _knob_lesson(item, skill, text)
    if skill.startswith(HAZARD_PREFIX):
        return _hazard_lesson(item, skill, text)
    if skill not in catalog.ids:
        raise ReplyRejected(f"unknown skill {skill!r}", text)
    verdict = _string(item, "verdict", 10, text, required=True)
    if verdict not in VERDICTS:
        raise ReplyRejected(f"verdict {verdict!r} is not one of {', '.join(VERDICTS)}", text)
    alternative = _string(item, "alternative", 80, text)
    if alternative:
        if alternative not in catalog.ids:
            raise ReplyRejected(f"unknown skill {alternative!r}", text)
        if alternative not in catalog.advisable:
            raise ReplyRejected(f"alternative {alternative!r} may not be dispatched", text)
        if alternative == skill:
            raise ReplyRejected(f"alternative of {skill!r} is the skill itself", text)
    if verdict == "prefer" and not alternative:
        raise ReplyRejected("a prefer lesson names no alternative", text)
    if verdict == "note" and alternative:
        raise ReplyRejected("a note lesson names an alternative", text)
    hostile = _string(item, "hostile", 40, text).lower()
    if not _HOSTILE.match(hostile):
        raise ReplyRejected(f"hostile {hostile!r} is not a mob name", text)
    return _reply(
        item, text, skill=skill, hostile=hostile, verdict=verdict, alternative=alternative
    )


def _hazard_lesson(item: Mapping[str, Any], skill: str, text: str) -> LessonReply:
    """A lesson about a block type (``hazard.below``, ``hazard.inside``, ``hazard.touching``)
    or a mob type (``hazard.mob``): verdict ``avoid``, no alternative, and its subject, in
    ``hostile``, a plain block or mob name."""
    kind = skill[len(HAZARD_PREFIX) :]
    if skill != HAZARD_MOB and kind not in RELATIONS:
        raise ReplyRejected(f"unknown hazard lesson {skill!r}", text)
    verdict = _string(item, "verdict", 10, text, required=True)
    if verdict != "avoid":
        raise ReplyRejected(f"a hazard lesson's verdict is 'avoid', not {verdict!r}", text)
    if _string(item, "alternative", 80, text):
        raise ReplyRejected("a hazard lesson names no alternative", text)
    subject = _string(item, "hostile", 40, text).lower()
    if block_name(subject) is None:
        raise ReplyRejected(f"{subject!r} is not a block or mob name", text)
    return _reply(item, text, skill=skill, hostile=subject, verdict="avoid", alternative="")


def _knob_lesson(item: Mapping[str, Any], skill: str, text: str) -> LessonReply:
    """A lesson that turns a knob of the policy (pepa.policy.reflex.knobs): a knob of the whitelist,
    verdict ``tune``, a signed change within the knob's span; its hostile is the knob's own
    (none for a knob about no mob), or a mob name for a knob of every fight."""
    name = skill[len(KNOB_PREFIX) :]
    knob = KNOBS.get(name)
    if knob is None:
        raise ReplyRejected(f"unknown knob {name!r}", text)
    verdict = _string(item, "verdict", 10, text, required=True)
    if verdict != TUNE:
        raise ReplyRejected(f"a knob lesson's verdict is {TUNE!r}, not {verdict!r}", text)
    change = _string(item, "alternative", 80, text, required=True)
    if parse_change(name, change) is None:
        raise ReplyRejected(f"change {change!r} of {name} is not a signed number within "
                            f"{knob.high - knob.low:g}", text)  # fmt: skip
    hostile = _string(item, "hostile", 40, text).lower()
    if knob.mob is not None:
        hostile = knob.mob  # the knob says what it is about
    elif not hostile or not _HOSTILE.match(hostile):
        raise ReplyRejected(f"knob {name} needs the mob of the fight, not {hostile!r}", text)
    return _reply(item, text, skill=skill, hostile=hostile, verdict=TUNE, alternative=change)


def _reply(
    item: Mapping[str, Any], text: str, *, skill: str, hostile: str, verdict: str, alternative: str
) -> LessonReply:
    """The lesson with its checked parts, and its free text and confidence checked now."""
    return LessonReply(
        skill=skill,
        situation=_string(item, "situation", 100, text),
        hostile=hostile,
        verdict=verdict,
        alternative=alternative,
        text=_string(item, "text", 300, text, required=True),
        confidence=_confidence(item, text),
    )


def _confidence(item: Mapping[str, Any], text: str) -> float:
    confidence = item.get("confidence")
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        raise ReplyRejected("confidence is not a number", text)
    if not 0.0 <= confidence <= 1.0:
        raise ReplyRejected(f"confidence {confidence} is outside 0..1", text)
    return min(float(confidence), LLM_CONFIDENCE_CAP)


def _string(
    data: Mapping[str, Any], key: str, limit: int, text: str, *, required: bool = False
) -> str:
    value = data.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise ReplyRejected(f"{key} is {'missing' if value is None else 'not a string'}", text)
    value = value.strip()
    if required and not value:
        raise ReplyRejected(f"{key} is empty", text)
    if len(value) > limit:
        raise ReplyRejected(f"{key} is longer than {limit} characters", text)
    return value
