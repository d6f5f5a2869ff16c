"""Knowledge: the bot's memory of this server — receives what happened, keeps it, answers asks.

Only this actor's thread touches ``knowledge.db`` (or a fleet's PostgreSQL).
It routes each message to the module that decides and stores or sends what
that module answers: deaths, post-mortems and lesson grades
(:mod:`pepa.policy.learning.deaths`); every write to the knowledge base
(:mod:`pepa.state.knowledge.writer`: a broken database costs a warning, the bot
plays on without memory); "am I in a loop?" every 30 minutes
(:mod:`pepa.policy.learning.reflection`; plan changes go to ``plan.md``'s one
writer, the curriculum, as :class:`RevisePlan`); wiki lookups off this
thread (:mod:`pepa.state.knowledge.wikilookups`); retention at start and once a day
(:mod:`pepa.state.knowledge.upkeep`); proposals on disk (:mod:`pepa.state.proposals`).
It answers the typed asks ``ActiveLessons``, ``Proposals`` and ``Reflect``.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter, deque
from collections.abc import Iterable
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from pepa.base.errors import ActorUnavailable
from pepa.base.threads import thread_name
from pepa.policy.coach.validate import SkillCatalog, stored_lesson_problem
from pepa.policy.learning.attribution import describe_hazard, subject_of
from pepa.policy.learning.deaths import (
    ACT_ON,
    DeathAnalysis,
    Grade,
    NearMiss,
    active_lessons,
    announcement,
    drafts_of,
)
from pepa.policy.learning.reflection import Window, death_facts, proposal, reflect
from pepa.policy.reflex.situation import Situation
from pepa.policy.watchdog.progress import KEPT_AREAS
from pepa.runtime import SupervisedActor, SupervisionContext
from pepa.runtime.events import (
    ActivityChanged,
    AdviceApplied,
    ChatReceived,
    ChatSent,
    Connected,
    DamageTaken,
    DeathAnalysed,
    DeathAnalysisRequested,
    DecideProposal,
    Died,
    ErrorRaised,
    LearningChanged,
    ProposalDrafted,
    ProposalsChanged,
    ReflectionWanted,
    RevisePlan,
    SayInChat,
    SkillFinished,
    TopicAsked,
    WorldObserved,
)
from pepa.runtime.events.queries import (
    ActiveLessons,
    DeathPlaces,
    Learning,
    LearningSummary,
    ProposalIds,
    Proposals,
    Reflect,
)
from pepa.state.files import write_atomic
from pepa.state.knowledge._models import utcnow
from pepa.state.knowledge.records import LessonDraft, LessonRecord
from pepa.state.knowledge.shared import Heard, LessonListener
from pepa.state.knowledge.upkeep import prune_server
from pepa.state.knowledge.wiki import WikiClient
from pepa.state.knowledge.wikilookups import WikiFetched, WikiLookups
from pepa.state.knowledge.writer import StoreWriter
from pepa.state.memory import read_text
from pepa.state.proposals import ProposalError, ProposalStore
from pepa.state.retention import PRUNE_EVERY, RetentionPolicy
from pepa.world.death import DeathCause

__all__ = ["Knowledge"]

logger = logging.getLogger(__name__)

MAX_IN_FORCE = 200
"""Lessons the reflex chain acts on at most: the most confident, whatever a shared base holds."""
SEED_RETRY = 2.0
"""Seconds before a seed that found another bot seeding the shared base looks again."""
SEED_JOIN = 10.0
"""Seconds a stopping actor waits for its seed under way."""
REFLECT_EVERY = 1800.0
"""Seconds between two reflections (``PEPA_REFLECT_EVERY``)."""
RECENT_BUNDLES = 32
"""Deaths whose bundles are kept for a later LLM post-mortem (its queue holds 16 causes)."""
RECENT_LESSONS = 8
SUBJECTS = ("block", "mob", "action", "place")
"""What lessons are about, in the order the learning view lists them."""
RECENT_NEAR_MISSES = 5
"""Near-misses the learning view shows."""
"""Lesson changes the learning summary shows at most."""
RECENT_WINDOW = 3600.0
"""Seconds a lesson change stays in the learning summary."""


@dataclass(frozen=True, slots=True, kw_only=True)
class _Rescan:
    """Timer: look for proposals written by other processes."""


@dataclass(frozen=True, slots=True, kw_only=True)
class _Reflect:
    """Timer: reflect on the window since the last reflection."""


@dataclass(frozen=True, slots=True, kw_only=True)
class _Prune:
    """Timer (and once at start): forget what is older than the retention window."""


@dataclass(frozen=True, slots=True, kw_only=True)
class _Seed:
    """Timer: seed the base for ``version`` again (another bot of the fleet was seeding it)."""

    version: str


@dataclass(frozen=True, slots=True, kw_only=True)
class _Seeded:
    """The seed's thread is done: True seeded, False seeded before (or failed, logged), None
    another bot was seeding (look again)."""

    version: str
    seeded: bool | None


@dataclass(frozen=True, slots=True, kw_only=True)
class _LessonsHeard:
    """Other bots sharing the base wrote, graded or decayed lessons
    (:mod:`pepa.state.knowledge.shared`)."""

    heard: Heard


class Knowledge(SupervisedActor):
    """Keeps the knowledge base and the proposals; learns from deaths; reflects."""

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
        username: str = "",
    ) -> None:
        super().__init__(supervision=supervision)
        self.server_dir = server_dir
        self.username = username
        """This bot: its deaths and its lessons' announcements in a base a fleet shares."""
        self.listener: LessonListener | None = None
        """Hears the lessons of the other bots sharing a PostgreSQL base (None: alone)."""
        self.catalog = SkillCatalog.from_registry()
        """The skills a lesson read from the base may name (:func:`stored_lesson_problem`)."""
        self.refused: set[int] = set()
        """Lessons refused and warned of (each once)."""
        self.told: dict[int, float] = {}
        """Lesson id → the confidence the reflex chain was last told."""
        self.seeding: threading.Thread | None = None
        """A shared base's seed under way, off this actor's thread (None: none yet)."""
        self.retention = retention or RetentionPolicy()
        """What is kept of chat, deaths, danger points, reflections and logs
        (:mod:`pepa.state.retention`)."""
        self.prune_every = prune_every
        self.reflect_every = reflect_every
        self.window = Window(utcnow())
        """What happened since the last reflection."""
        self.decayed_at = utcnow()
        """When stale lessons last lost confidence (at each reflection)."""
        self.proposals = ProposalStore(server_dir / "proposals")
        self.db_url = db_url
        """A ``postgresql://`` URL shared by a fleet; None: ``knowledge.db`` of this server."""
        self.data_root = data_root
        self.rescan = rescan
        self.listed: ProposalIds | None = None
        """The proposals last published as :class:`ProposalsChanged`."""
        self.db = StoreWriter(None)
        self.deaths = DeathAnalysis()
        self.lesson_log: deque[tuple[float, str]] = deque(maxlen=RECENT_LESSONS)
        """``(now, "12:04 held: …")`` of lessons learned or graded, newest last."""
        self.learning = LearningSummary()
        """The summary last published as :class:`LearningChanged`."""
        self.near_misses: deque[str] = deque(maxlen=RECENT_NEAR_MISSES)
        """``12:04 lost 12 to …`` of the last near-misses, newest first."""
        self.near_miss_count = 0
        """Near-misses since this actor started."""
        self.bundles: dict[int, dict[str, Any]] = {}
        """The last deaths' bundles by id, oldest first: an LLM post-mortem that comes later
        signs its lessons with the death's situation."""
        self.wiki_lookups = WikiLookups(
            None, WikiClient(wiki_url) if wiki_url else None, tell=self.handle.tell
        )
        """Wiki pages looked up off this thread (docs/wiki.md); empty ``wiki_url``: cache only."""

    def setup(self) -> None:
        for event_type in (
            DecideProposal, ProposalDrafted, Died, ChatReceived, ChatSent, SkillFinished,
            WorldObserved, ActivityChanged, Connected, AdviceApplied, DeathAnalysed, TopicAsked,
            DamageTaken,
        ):  # fmt: skip
            self.runtime.bus.subscribe(event_type, self.handle)
        self.db = StoreWriter.open(self.server_dir / "knowledge.db", self.db_url, self.username)
        self.wiki_lookups.store = self.db.store
        if self.db.store is not None and self.db.store.shared and self.db_url:
            handle = self.handle
            self.listener = LessonListener(
                self.db_url, lambda heard: handle.tell(_LessonsHeard(heard=heard))
            ).start()
        self._refresh()
        self._learned()
        for lesson in self._trusted(self.db.lessons(ACT_ON, MAX_IN_FORCE)):
            self.deaths.harmless.learn(lesson.skill, lesson.hostile, lesson.confidence, ACT_ON)
        self.every(self.rescan, _Rescan())
        if self.reflect_every > 0:
            self.every(self.reflect_every, _Reflect())
        self.actor_ref.tell(_Prune())  # the first message after setup: a start never waits on it
        self.every(self.prune_every, _Prune())

    def cleanup(self) -> None:
        if self.seeding is not None:
            self.seeding.join(SEED_JOIN)  # a seed under way ends before its database closes
        if self.listener is not None:
            self.listener.close()
        self.wiki_lookups.close()
        self.db.close()

    def on_message(self, message: Any) -> Any:
        match message:
            case WorldObserved(view=view):
                self._grade(self.deaths.observe(view, self.now()))
            case ActivityChanged(reflex=reflex, skill=skill):
                self.deaths.doing(reflex, skill)
            case Died(reason=reason, position=position, cause=cause):
                self._died(reason, position, cause)
            case DamageTaken(hp=hp, source=source):
                self._near_miss(self.deaths.hurt(source, hp, self.now()))
            case AdviceApplied():
                self.deaths.advice(message, self.now())
            case SkillFinished(skill=skill, ok=ok, seconds=seconds):
                self.db.record_skill(skill, ok, seconds)
                self.window.ran(skill, ok)
                self._grade(self.deaths.finished(skill, ok, self.now()))
            case DeathAnalysed():
                self._store_analysis(message)
            case ChatReceived(sender=sender, text=text):
                self.db.log_chat(sender, "in", text)
            case ChatSent(text=text):
                self.db.log_chat(None, "out", text)
            case Connected(version=version) | _Seed(version=version):
                self._seed(version)
            case _Seeded(version=version, seeded=seeded):
                if seeded is None:
                    self.later(SEED_RETRY, _Seed(version=version))
            case ActiveLessons():
                lessons = self._trusted(self.db.lessons(ACT_ON, MAX_IN_FORCE))
                self.told.update((lesson.id, lesson.confidence) for lesson in lessons)
                return active_lessons(lessons)
            case Proposals():
                return self._listing()
            case Learning():
                return self.learning
            case DeathPlaces():
                return tuple(self.db.death_places(KEPT_AREAS))
            case Reflect() | _Reflect():
                return self._reflect()
            case DecideProposal(id=proposal_id, decision=decision):
                try:
                    moved = self.proposals.decide(proposal_id, decision)
                except ProposalError as exc:
                    self.publish(ErrorRaised(source="proposals", text=str(exc)))
                else:
                    logger.info("proposal %s: %sd (now %s)", proposal_id, decision, moved)
                self._refresh()
            case ProposalDrafted(file_name=file_name, markdown=markdown):
                logger.warning("new proposal: %s", self.proposals.write(file_name, markdown))
                self._refresh()
            case _Rescan():
                self._refresh()
                fresh = sum(self.now() - at <= RECENT_WINDOW for at, _ in self.lesson_log)
                if fresh != len(self.learning.recent_lessons):  # one aged out of the hour
                    self._learned()
            case _Prune():
                self._prune()
            case _LessonsHeard(heard=heard):
                self._heard(heard)
            case WikiFetched():
                self.wiki_lookups.finished(message)
            case TopicAsked(topic=topic):
                self._answer(topic)
            case _:
                return super().on_message(message)
        return None

    def _seed(self, version: str) -> None:
        """Seed the base for ``version``. A shared base's seed runs on a thread of its own: with
        a fleet joining, the bot that seeds took over the 5 s heartbeat on a busy machine and
        its actor was replaced as hung. A bot's own SQLite file seeds here (about 120 ms,
        and one writer at a time suits SQLite)."""
        if self.db.store is None or not self.db.store.shared:
            self.db.seed(version, self.data_root)  # never None: no other bot seeds this file
            return
        if self.seeding is not None and self.seeding.is_alive():
            return  # the one under way answers
        db, data_root, tell = self.db, self.data_root, self.handle.tell

        def run() -> None:
            seeded = db.seed(version, data_root)
            try:
                tell(_Seeded(version=version, seeded=seeded))
            except ActorUnavailable:
                pass  # the actor stopped meanwhile; the next one seeds at its Connected

        self.seeding = threading.Thread(
            target=run, name=thread_name("knowledge-seed", self.username or None), daemon=True
        )
        self.seeding.start()

    # -- deaths and lessons ----------------------------------------------------------------

    def _died(self, reason: str, position: dict[str, float] | None, cause: DeathCause) -> None:
        """Grade the advice that failed; store the death, post-mortem and lesson; ask for more."""
        post = self.deaths.died(reason, self.now(), cause)
        # what carries to other places first: the pathfinder keeps off those blocks at once
        if post.attribution is not None:
            logger.info("death put down to: %s", post.attribution.describe())
        for draft in post.hazards:
            self._learn(draft, "offline")
        self._grade(post.grades)
        record = self.db.record_death(reason, position, post.bundle, cause.as_dict())
        if record is None:
            if post.hazards:
                self._learned()
            return
        logger.warning("death %d recorded: %s", record.id, reason)
        self.bundles[record.id] = post.bundle
        while len(self.bundles) > RECENT_BUNDLES:
            del self.bundles[next(iter(self.bundles))]
        found, analysis = post.analysis.cause, post.analysis.analysis
        self.db.add_postmortem(record.id, backend="offline", cause=found, analysis=analysis)
        logger.info("post-mortem of death %d: %s (%s)", record.id, found, analysis)
        for draft in (*filter(None, (post.analysis.lesson,)), *post.analysis.knobs):
            self._learn(draft, "offline")
        self._learned()
        self.publish(DeathAnalysisRequested(death_id=record.id, reason=reason, bundle=post.bundle))

    def _near_miss(self, near: NearMiss | None) -> None:
        """A large loss survived: logged, counted for people, and its lessons learned (weaker
        than a death's)."""
        if near is None:
            return
        what = near.attribution.describe()
        logger.warning("near-miss: %s", what)
        self.near_misses.appendleft(f"{utcnow():%H:%M} {what}")
        self.near_miss_count += 1
        for draft in near.lessons:
            self._learn(draft, "near-miss")
        self._learned()

    def _store_analysis(self, done: DeathAnalysed) -> None:
        """An LLM's validated post-mortem: stored beside the offline one, its lessons learned."""
        self.db.add_postmortem(
            done.death_id, backend=done.backend, cause=done.cause, analysis=done.analysis
        )
        logger.info("post-mortem of death %d by %s: %s", done.death_id, done.backend, done.cause)
        for draft in drafts_of(done.lessons, self.bundles.get(done.death_id)):
            self._learn(draft, done.backend)

    def _learn(self, draft: LessonDraft, source: str) -> None:
        lesson = self.db.learn(draft, source)
        if lesson is not None:
            where = Situation.parse(lesson.signature).describe() if lesson.signature else "anywhere"
            text, confidence = lesson.text, lesson.confidence
            logger.info("lesson (%s): %s (confidence %.2f; %s)", source, text, confidence, where)
            self._announce(lesson)
            self._log_lesson(f"learned ({source}): {lesson.text} → {lesson.confidence:.2f}")

    def _heard(self, heard: Heard) -> None:
        """Lessons other bots of the fleet paid for: this bot's chain acts on them too (those
        that pass :func:`stored_lesson_problem`), read in one query. After an overflow, the
        lessons in force, and those it acted on that may have fallen below, are read again
        instead (two queries), and those the chain has not been told of as they are now are
        told."""
        theirs = {ident: bot for ident, bot in heard.lessons.items() if bot != self.username}
        if heard.overflowed:
            lessons = self.db.lessons(ACT_ON, MAX_IN_FORCE)
            seen = {lesson.id for lesson in lessons}
            fallen = [i for i, c in self.told.items() if c >= ACT_ON and i not in seen]
            lessons += self.db.lessons_by_id(fallen)  # decayed or graded below, meanwhile
        elif theirs:
            lessons = self.db.lessons_by_id(theirs)
        else:
            return  # its own, already told
        told = 0
        for lesson in self._trusted(lessons):
            if heard.overflowed and self.told.get(lesson.id) == lesson.confidence:
                continue
            bot = theirs.get(lesson.id, "")
            logger.info(
                "lesson from %s: %s (confidence %.2f)", bot or "another bot", lesson.text,
                lesson.confidence,
            )  # fmt: skip
            self._announce(lesson)
            self._log_lesson(
                f"from {bot or 'another bot'}: {lesson.text} → {lesson.confidence:.2f}"
            )
            told += 1
        if told:
            self._learned()

    def _announce(self, lesson: LessonRecord) -> None:
        """Tell the reflex chain a lesson's confidence now (and the watch that grades block
        lessons met unhurt)."""
        self.told[lesson.id] = lesson.confidence
        self.deaths.harmless.learn(lesson.skill, lesson.hostile, lesson.confidence, ACT_ON)
        self.publish(announcement(lesson))

    def _where(self) -> str:
        return self.db.store.where if self.db.store is not None else "the knowledge base"

    def _trusted(self, lessons: Iterable[LessonRecord]) -> list[LessonRecord]:
        """The lessons that pass the checks an LLM's lesson passes; each other one warned of
        once (a shared base's rows are written by other processes, or by whoever can connect)."""
        kept = []
        for lesson in lessons:
            problem = stored_lesson_problem(lesson, self.catalog)
            if not problem:
                kept.append(lesson)
            elif lesson.id not in self.refused:
                self.refused.add(lesson.id)
                logger.warning(
                    "lesson %d in %s refused, never acted on: %s (%r)",
                    lesson.id, self._where(), problem, lesson.text[:120],
                )  # fmt: skip
        return kept

    def _grade(self, grades: tuple[Grade, ...]) -> None:
        for grade in grades:
            lesson = self.db.grade(
                grade.skill, grade.hostile, grade.verdict, success=grade.success,
                signature=grade.signature,
            )  # fmt: skip
            if lesson is not None:
                logger.info(
                    "lesson %s/%s %s: %s → confidence %.2f (applied %d)", grade.skill,
                    grade.hostile, grade.verdict, "held" if grade.success else "failed",
                    lesson.confidence, lesson.applied,
                )  # fmt: skip
                self._announce(lesson)
                self._log_lesson(
                    f"{'held' if grade.success else 'failed'}: {grade.verdict} {grade.skill}"
                    f"{' vs ' + grade.hostile if grade.hostile else ''} → {lesson.confidence:.2f}"
                )
        if grades:
            self._learned()

    def _log_lesson(self, text: str) -> None:
        self.lesson_log.append((self.now(), f"{utcnow():%H:%M} {text}"))

    def _learned(self) -> None:
        """Publish :class:`LearningChanged` when the summary for people changed."""
        causes, last, in_force = self.db.learning(ACT_ON)
        now = self.now()
        force = self.db.lessons(ACT_ON, MAX_IN_FORCE)
        subjects = Counter(subject_of(lesson.skill) for lesson in force)
        subjects["place"] = len(self.db.death_places(KEPT_AREAS))
        hazards = sorted(
            (x for x in force if subject_of(x.skill) != "action"), key=lambda x: -x.confidence
        )
        summary = LearningSummary(
            lessons_by_subject=tuple((s, subjects[s]) for s in SUBJECTS if subjects[s]),
            hazards=tuple(
                f"{describe_hazard(x.skill, x.hostile)} {x.confidence:.2f}"
                for x in hazards[:RECENT_LESSONS]
            ),
            near_misses=self.near_miss_count,
            recent_near_misses=tuple(self.near_misses),
            deaths=sum(causes.values()),
            deaths_by_cause=tuple(sorted(causes.items(), key=lambda kv: (-kv[1], kv[0]))),
            recent_deaths=tuple(f"{at:%H:%M} {reason}" for at, reason in last),
            lessons_in_force=in_force,
            recent_lessons=tuple(
                text for at, text in reversed(self.lesson_log) if now - at <= RECENT_WINDOW
            ),
        )  # fmt: skip
        if summary != self.learning:
            self.learning = summary
            self.publish(LearningChanged(summary=summary))

    # -- reflection ------------------------------------------------------------------------

    def _decay(self, now: datetime) -> None:
        """Lessons that stopped mattering lose confidence; the chain hears of those it drops."""
        for lesson in self.db.decay(self.decayed_at, now, ACT_ON):
            if lesson.confidence < ACT_ON:
                logger.info("lesson no longer in force (not confirmed lately): %s", lesson.text)
            self._announce(lesson)  # the chain's copy decays too
        self.decayed_at = now

    def _reflect(self) -> Path | None:
        """Reflect on the window since the last reflection; the report's path."""
        now = utcnow()
        self._decay(now)
        deaths = death_facts(self.db.deaths_since(self.window.start))
        diary = self.server_dir / "diary" / f"{now:%Y-%m-%d}.md"
        lines = [line.strip() for line in read_text(diary).splitlines() if line.strip()]
        result = reflect(at=now, deaths=deaths, skills=self.window.close(now), diary=lines)
        report = self.server_dir / "reflections" / f"{now:%Y%m%d-%H%M%S}.md"
        try:
            write_atomic(report, result.markdown.encode())
        except OSError as exc:
            logger.warning("cannot write the reflection %s: %s", report, exc)
            return None
        if result.plan_changes:  # plan.md is the curriculum's: it applies them
            self.publish(RevisePlan(changes=result.plan_changes, source="reflection", at=now))
        if result.findings:  # a model may read it: only one with something in it (the budget)
            self.publish(ReflectionWanted(report=result.markdown, at=now))
        for lesson in result.lessons:
            self._learn(lesson, "reflection")
        for hint in result.proposal_hints:
            drafted = proposal(hint, now, self.proposals.pending())
            if drafted is not None:
                self.proposals.write(*drafted)
                self._refresh()
        logger.info(
            "reflection: in a loop? %s (%d findings) → %s",
            "yes" if result.in_loop else "no", len(result.findings), report,
        )  # fmt: skip
        return report

    # -- proposals, wiki, retention ----------------------------------------------------------

    def _listing(self) -> ProposalIds:
        return ProposalIds(
            pending=tuple(self.proposals.pending()), approved=tuple(self.proposals.approved())
        )

    def _refresh(self) -> None:
        listed = self._listing()
        if listed != self.listed:
            self.listed = listed
            self.publish(ProposalsChanged(pending=listed.pending, approved=listed.approved))

    def _answer(self, topic: str) -> None:
        """The local tables first; when they miss, the wiki (off this thread)."""
        local = self.db.describe(topic)
        if local:
            self.publish(SayInChat(text=local[:240]))
            return
        bus = self.runtime.bus

        def said(future: Future[str | None]) -> None:
            summary = None if future.cancelled() or future.exception() else future.result()
            text = summary or f"I don't know {topic}: not in my tables, and the wiki had nothing"
            bus.publish(SayInChat(text=text[:240]))

        self.wiki_lookups.lookup(topic.replace(" ", "_")).add_done_callback(said)

    def _prune(self) -> None:
        now, today = utcnow(), datetime.now().date()
        prune_server(self.db, self.server_dir, policy=self.retention, now=now, today=today)
