"""Knowledge: the bot's memory of this server — proposals and the knowledge base.

Only this actor's thread touches ``knowledge.db``. It records every death
with its context bundle (the last 30 s of snapshots, the last skill, the
last hostile and its distance, hp and food) and a danger POI, every chat
line in and out, and every skill run; it seeds recipes, blocks and mobs from
minecraft-data for the version the server speaks. If the database cannot be
opened it warns once and the bot plays on without it. At start and once a day
it prunes what is older than the retention window (``pepa/retention.py``):
chat lines, death bundles, danger points, reflections and old log files.
"""

from __future__ import annotations

import logging
import re
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from pepa.events import (
    ActivityChanged,
    AdviceApplied,
    ChatReceived,
    ChatSent,
    Connected,
    DeathAnalysed,
    DeathAnalysisRequested,
    DecideProposal,
    Died,
    ErrorRaised,
    LessonLearned,
    ProposalDrafted,
    ProposalsChanged,
    SayInChat,
    SkillFinished,
    TopicAsked,
    WorldObserved,
)
from pepa.knowledge import KnowledgeError, KnowledgeStore
from pepa.knowledge._models import utcnow
from pepa.knowledge.coach_offline import LessonDraft, analyse
from pepa.knowledge.reflection import DeathFact, adjust_plan, reflect
from pepa.knowledge.wiki import WikiClient
from pepa.knowledge.wiki_actor import WikiFetched, WikiLookups
from pepa.memory import PLAN_FILE, append_line, read_text, write_atomic
from pepa.proposals import ProposalError, ProposalStore
from pepa.retention import PRUNE_EVERY, RetentionPolicy, prune_logs, prune_reflections
from pepa.statefiles import SchemaError, load
from pepa.supervision import SupervisedActor, SupervisionContext

__all__ = ["Knowledge"]

logger = logging.getLogger(__name__)

BUNDLE_SECONDS = 30.0
"""How much of the past a death's context bundle keeps."""
REFLECT_EVERY = 1800.0
"""Seconds between two reflections (``PEPA_REFLECT_EVERY``)."""
ADVICE_WINDOW = 60.0
"""A death this soon after following a lesson counts against the lesson."""


@dataclass(frozen=True, slots=True, kw_only=True)
class _Rescan:
    """Timer: look for proposals written by other processes."""


@dataclass(frozen=True, slots=True, kw_only=True)
class _Reflect:
    """Timer: reflect on the window since the last reflection."""


@dataclass(frozen=True, slots=True, kw_only=True)
class _Prune:
    """Timer (and once at start): forget what is older than the retention window."""


class Knowledge(SupervisedActor):
    """Publishes the pending proposals, applies decisions, keeps the knowledge base."""

    def __init__(
        self,
        *,
        supervision: SupervisionContext,
        server_dir: Path,
        rescan: float = 5.0,
        data_root: Path | None = None,
        db_url: str | None = None,
        reflect_every: float = REFLECT_EVERY,
        wiki_url: str = "",
        retention: RetentionPolicy | None = None,
        prune_every: float = PRUNE_EVERY,
    ) -> None:
        super().__init__(supervision=supervision)
        self.server_dir = server_dir
        self.retention = retention or RetentionPolicy()
        """What is kept of chat, deaths, danger points, reflections and logs (pepa/retention.py)."""
        self.prune_every = prune_every
        self.reflect_every = reflect_every
        self.window_start = utcnow()
        self.window_runs: dict[str, dict[str, float]] = {}
        """Skill runs since the last reflection: ``{skill: {ok, failed}}``."""
        self.proposals = ProposalStore(server_dir / "proposals")
        self.db_path = server_dir / "knowledge.db"
        self.db_url = db_url
        """A ``postgresql://`` URL shared by a fleet; None: ``knowledge.db`` of this server."""
        self.data_root = data_root
        self.rescan = rescan
        self.pending: tuple[str, ...] | None = None
        self.approved: tuple[str, ...] | None = None
        self.store: KnowledgeStore | None = None
        self.recent: deque[tuple[float, dict[str, Any]]] = deque()
        self.activity: str | None = None
        self.advised: list[tuple[float, AdviceApplied]] = []
        """Lessons followed lately whose outcome is not known yet."""
        self.wiki_lookups = WikiLookups(
            None, WikiClient(wiki_url) if wiki_url else None, tell=self.handle.tell
        )
        """Wiki pages looked up off this thread (docs/wiki.md); empty ``wiki_url``: cache only."""

    def setup(self) -> None:
        for event_type in (
            DecideProposal, ProposalDrafted, Died, ChatReceived, ChatSent, SkillFinished,
            WorldObserved, ActivityChanged, Connected, AdviceApplied, DeathAnalysed, TopicAsked,
        ):  # fmt: skip
            self.runtime.bus.subscribe(event_type, self.handle)
        try:
            if self.db_url:
                self.store = KnowledgeStore(url=self.db_url).open()
            else:
                self.store = KnowledgeStore(self.db_path).open()
        except KnowledgeError as exc:
            logger.warning("no knowledge base this time (the bot plays on): %s", exc)
            self.store = None
        self.wiki_lookups.store = self.store
        self._refresh()
        self.every(self.rescan, _Rescan())
        if self.reflect_every > 0:
            self.every(self.reflect_every, _Reflect())
        self.handle.tell(_Prune())  # the first message after setup: a start never waits on it
        self.every(self.prune_every, _Prune())

    def cleanup(self) -> None:
        self.wiki_lookups.close()
        if self.store is not None:
            self.store.close()

    def pending_proposals(self) -> tuple[str, ...]:
        """Ids of the pending proposals (proxy-callable)."""
        return tuple(self.proposals.pending())

    def on_message(self, message: Any) -> Any:
        match message:
            case WorldObserved(snapshot=snapshot):
                now = time.monotonic()
                self.recent.append((now, snapshot))
                while self.recent and now - self.recent[0][0] > BUNDLE_SECONDS:
                    self.recent.popleft()
            case ActivityChanged(reflex=reflex, skill=skill):
                self.activity = skill or reflex or self.activity
            case Died(reason=reason, position=position):
                self._grade_advice(None, now=time.monotonic())
                self._record_death(reason, position)
            case AdviceApplied():
                self.advised.append((time.monotonic(), message))
            case DeathAnalysed():
                self._store_analysis(message)
            case ChatReceived(sender=sender, text=text):
                self._write(lambda s: s.log_chat(speaker=sender, direction="in", text=text))
            case ChatSent(text=text):
                self._write(lambda s: s.log_chat(speaker=None, direction="out", text=text))
            case SkillFinished(skill=skill, ok=ok, seconds=seconds):
                self._write(lambda s: s.record_skill(skill, ok, seconds))
                runs = self.window_runs.setdefault(skill, {"ok": 0, "failed": 0})
                runs["ok" if ok else "failed"] += 1
                if ok:
                    self._grade_advice(skill, now=time.monotonic())
            case Connected(version=version):
                self._seed(version)
            case DecideProposal(id=proposal_id, decision=decision):
                try:
                    moved = self.proposals.decide(proposal_id, decision)
                except ProposalError as exc:
                    self.publish(ErrorRaised(source="proposals", text=str(exc)))
                else:
                    logger.info("proposal %s: %sd (now %s)", proposal_id, decision, moved)
                self._refresh()
            case ProposalDrafted(file_name=file_name, markdown=markdown):
                path = self.proposals.write(file_name, markdown)
                logger.warning("new proposal: %s", path)
                self._refresh()
            case _Rescan():
                self._refresh()
            case _Reflect():
                self.reflect()
            case _Prune():
                self.prune()
            case WikiFetched():
                self.wiki_lookups.finished(message)
            case TopicAsked(topic=topic):
                self._answer(topic)
            case _:
                return super().on_message(message)
        return None

    def _record_death(self, reason: str, position: dict[str, float] | None) -> None:
        snapshots = [snapshot for _, snapshot in self.recent]
        last = snapshots[-1] if snapshots else {}
        threats = last.get("threats") or []
        bundle = {
            "snapshots": snapshots[-150:],
            "last_skill": self.activity,
            "last_hostile": threats[0] if threats else None,
            "hp": last.get("hp"),
            "food": last.get("food"),
            "inventory": last.get("inventory"),
        }
        record = self._write(
            lambda s: s.record_death(reason=reason, position=position, bundle=bundle)
        )
        if record is None:
            return
        logger.warning("death %d recorded: %s", record.id, reason)
        post = analyse(reason, bundle)
        self._write(
            lambda s: s.add_postmortem(
                record.id, backend="offline", cause=post.cause, analysis=post.analysis
            )
        )
        logger.info("post-mortem of death %d: %s (%s)", record.id, post.cause, post.analysis)
        if post.lesson is not None:
            self._learn(post.lesson, "offline")
        self.publish(DeathAnalysisRequested(death_id=record.id, reason=reason, bundle=bundle))

    def _answer(self, topic: str) -> None:
        """The local tables first; when they miss, the wiki (off this thread)."""
        local = self._write(lambda s: s.describe(topic))
        if local:
            self.publish(SayInChat(text=local[:240]))
            return
        bus = self.runtime.bus

        def said(future: Future[str | None]) -> None:
            summary = None if future.cancelled() or future.exception() else future.result()
            text = summary or f"I don't know {topic}: not in my tables, and the wiki had nothing"
            bus.publish(SayInChat(text=text[:240]))

        self.wiki(topic.replace(" ", "_")).add_done_callback(said)

    def wiki(self, title: str) -> Future[str | None]:
        """The summary of a wiki page, looked up off this thread (proxy-callable)."""
        return self.wiki_lookups.lookup(title)

    def reflect(self) -> Path | None:
        """Reflect on the window since the last reflection; the report's path (proxy-callable)."""
        now = utcnow()
        deaths = self._write(lambda s: s.deaths_since(self.window_start)) or []
        facts = [
            DeathFact(
                cause=cause, x=d.position["x"] if d.position else None,
                z=d.position["z"] if d.position else None, hostile=d.last_hostile,
                skill=d.last_skill,
            )
            for d, cause in deaths
        ]  # fmt: skip
        result = reflect(at=now, deaths=facts, skills=self.window_runs, diary=self._diary(now))
        self.window_start, self.window_runs = now, {}
        report = self.server_dir / "reflections" / f"{now:%Y%m%d-%H%M%S}.md"
        try:
            write_atomic(report, result.markdown.encode())
            if result.plan_changes:
                self._adjust_plan(result.plan_changes, now)
        except OSError as exc:
            logger.warning("cannot write the reflection %s: %s", report, exc)
            return None
        for lesson in result.lessons:
            self._learn(lesson, "reflection")
        for hint in result.proposal_hints:
            self._propose(hint, now)
        logger.info(
            "reflection: in a loop? %s (%d findings) → %s",
            "yes" if result.in_loop else "no", len(result.findings), report,
        )  # fmt: skip
        return report

    def prune(self) -> dict[str, int]:
        """Apply the retention policy now; what went, by part (proxy-callable).

        Each part (database, reflections, logs) is pruned on its own: one that
        fails costs a warning, never the others, the timer or the actor.
        """
        policy, now = self.retention, utcnow()
        pruned: dict[str, int] = {}
        parts: tuple[tuple[str, Callable[[], dict[str, int]]], ...] = (
            ("the knowledge base", lambda: self._prune_store(policy.cutoff(now))),
            ("reflections", lambda: {"reflections": len(prune_reflections(
                self.server_dir / "reflections", now=now, policy=policy))}),
            ("logs", lambda: {"log_files": len(prune_logs(
                self.server_dir / "logs", today=datetime.now().date(), policy=policy))}),
        )  # fmt: skip
        for what, action in parts:
            try:
                pruned.update(action())
            except Exception as exc:  # any failure: the next part and the next day still run
                logger.warning("pruning %s failed: %s", what, exc)
        if any(pruned.values()):
            done = ", ".join(f"{n} {part.replace('_', ' ')}" for part, n in pruned.items() if n)
            logger.info("retention (%s): pruned %s", policy.describe(), done)
        return pruned

    def _prune_store(self, before: datetime) -> dict[str, int]:
        if self.store is None:
            return {}
        return self.store.prune(before=before)

    def _diary(self, now: datetime) -> list[str]:
        path = self.server_dir / "diary" / f"{now:%Y-%m-%d}.md"
        return [line.strip() for line in read_text(path).splitlines() if line.strip()]

    def _adjust_plan(self, changes: tuple[str, ...], now: datetime) -> None:
        plan_path = self.server_dir / "plan.md"
        old = load(plan_path, PLAN_FILE, "", log=logger, then="starting with no plan")
        new = adjust_plan(old, changes, now)
        if new == old:
            return
        try:  # never write a plan its own reader would move aside (months of adjustments)
            PLAN_FILE.parse(new.encode())
        except SchemaError as exc:
            logger.warning("reflection left plan.md as it is: the adjusted plan %s", exc)
            return
        if old:
            write_atomic(plan_path.with_name("plan.md.bak"), old.encode())
        write_atomic(plan_path, new.encode())
        diary = self.server_dir / "diary" / f"{now:%Y-%m-%d}.md"
        append_line(diary, f"- {now:%H:%M} reflection changed the plan: {'; '.join(changes)}")
        logger.warning("reflection adjusted plan.md (backup in plan.md.bak)")

    def _propose(self, hint: str, now: datetime) -> None:
        skill = hint.split(":", 1)[0]
        slug = "reflection-" + re.sub(r"[^a-z0-9]+", "-", skill.lower()).strip("-")
        if any(existing.endswith(f"{slug}.md") for existing in self.proposals.pending()):
            return  # the same hint is already waiting for an operator
        markdown = (
            f"# Proposal: `{skill}` keeps failing (reflection)\n\n"
            f"Created {now:%Y-%m-%d %H:%M:%S} UTC by the reflection loop.\n\n"
            f"## Finding\n\n{hint}\n\n## Suggested work\n\n"
            f"Find why `{skill}` fails so often, change the skill or its preconditions, "
            "with a test on the test server that reproduces it.\n"
        )
        self.proposals.write(f"{now:%Y%m%d-%H%M%S}-{slug}.md", markdown)
        self._refresh()

    def _learn(self, draft: LessonDraft, source: str) -> None:
        lesson = self._write(lambda s: s.add_lesson(draft, source=source))
        if lesson is not None:
            logger.info("lesson (%s): %s (confidence %.2f)", source, lesson.text, lesson.confidence)
            self._announce(lesson)

    def _store_analysis(self, done: DeathAnalysed) -> None:
        """An LLM's validated post-mortem: stored beside the offline one, its lessons learned."""
        self._write(
            lambda s: s.add_postmortem(
                done.death_id, backend=done.backend, cause=done.cause, analysis=done.analysis
            )
        )
        logger.info("post-mortem of death %d by %s: %s", done.death_id, done.backend, done.cause)
        for lesson in done.lessons:
            self._learn(
                LessonDraft(
                    skill=str(lesson["skill"]), situation=str(lesson.get("situation") or ""),
                    hostile=str(lesson.get("hostile") or ""), verdict=str(lesson["verdict"]),
                    alternative=str(lesson.get("alternative") or ""), text=str(lesson["text"]),
                    confidence=float(lesson["confidence"]),
                ),
                done.backend,
            )  # fmt: skip

    def _grade_advice(self, finished: str | None, *, now: float) -> None:
        """Grade the lessons followed lately: ``finished`` skill went well, None: the bot died."""
        self.advised = [(at, a) for at, a in self.advised if now - at <= ADVICE_WINDOW]
        keep: list[tuple[float, AdviceApplied]] = []
        graded: set[tuple[str, str, str]] = set()
        for at, advice in self.advised:
            key = (advice.skill, advice.hostile, advice.verdict)
            if finished is not None and advice.instead != finished:
                keep.append((at, advice))
                continue
            if key in graded:
                continue  # one grade per outcome, however often the chain re-dispatched
            graded.add(key)
            success = finished is not None
            lesson = self._write(lambda s, k=key, ok=success: s.grade_lesson(*k, success=ok))
            if lesson is not None:
                logger.info(
                    "lesson %s/%s %s: %s → confidence %.2f (applied %d)", advice.skill,
                    advice.hostile, advice.verdict, "held" if success else "failed",
                    lesson.confidence, lesson.applied,
                )  # fmt: skip
                self._announce(lesson)
        self.advised = keep

    def active_lessons(self) -> list[dict[str, Any]]:
        """Lessons the reflex chain acts on (proxy-callable)."""
        if self.store is None:
            return []
        lessons = self._write(lambda s: s.lessons(min_confidence=0.6)) or []
        return [
            {
                "skill": x.skill,
                "hostile": x.hostile,
                "verdict": x.verdict,
                "alternative": x.alternative,
                "confidence": x.confidence,
            }
            for x in lessons
        ]

    def _announce(self, lesson: Any) -> None:
        self.publish(
            LessonLearned(
                skill=lesson.skill,
                hostile=lesson.hostile,
                verdict=lesson.verdict,
                alternative=lesson.alternative,
                confidence=lesson.confidence,
            )
        )

    def _seed(self, version: str) -> None:
        if self.store is None or self.data_root is None:
            return
        try:
            if self.store.seed(version, self.data_root):
                logger.info("knowledge base seeded from minecraft-data %s", version)
        except (OSError, KeyError, ValueError) as exc:
            logger.warning("cannot seed the knowledge base for %s: %s", version, exc)

    def _write(self, action: Any) -> Any:
        """Run one store call; a failing database costs a warning, never the actor."""
        if self.store is None:
            return None
        try:
            return action(self.store)
        except Exception as exc:  # Pony/sqlite errors of every kind: keep playing
            logger.warning("knowledge base write failed: %s", exc)
            return None

    def approved_proposals(self) -> tuple[str, ...]:
        """Ids of the approved proposals (proxy-callable)."""
        return tuple(self.proposals.approved())

    def _refresh(self) -> None:
        pending, approved = tuple(self.proposals.pending()), tuple(self.proposals.approved())
        if (pending, approved) != (self.pending, self.approved):
            self.pending, self.approved = pending, approved
            self.publish(ProposalsChanged(pending=pending, approved=approved))
