"""Perception: keeps the world model and publishes what the bot sees.

Raw events from the Minecraft link arrive as :class:`WorldEvent` tells (the
link thread only enqueues). Perception turns them into typed events
(``HostileSpotted``, ``HealthChanged``, ``Died``, ``ChatReceived`` …) and
into :class:`WorldObserved` snapshots: at once on health, food and chat changes,
:data:`SETTLE` after an entity's (its threat is told at once, from the event),
and every 0.2 s while anything changes — except a change that is
only animals walking about and the clock going on, published at most every 5 seconds
(:data:`DRIFT_EVERY`).
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from operator import attrgetter
from typing import Any

from pepa.link.api import Link
from pepa.policy.perception.model import WorldModel
from pepa.runtime import SupervisedActor, SupervisionContext, TimerHandle
from pepa.runtime.events import (
    ActionFinished,
    ChatReceived,
    ChestSeen,
    Connected,
    DamageTaken,
    Died,
    Disconnected,
    ErrorRaised,
    FirstBlow,
    Kicked,
    PlayersListed,
    Respawned,
    WorldObserved,
)
from pepa.world.death import damage_source, death_cause
from pepa.world.view import Entity, WorldView

__all__ = ["Perception", "WorldEvent", "chat_event", "first_blow", "players_event"]

logger = logging.getLogger(__name__)

OBSERVE_INTERVAL = 0.2
"""Seconds between snapshots while connected (5 per second)."""
DRIFT_EVERY = 5.0
"""Seconds between views published when all that changed is where animals stand and the clock
going on as it goes: the drift of a world around a bot that does nothing. Passive mobs wander
all the time and the server tells the time once a second, so an idle bot's view changed every
snapshot in these alone, and each view was a WorldObserved to seven actors (the largest part
of an idle bot's Python time). Nothing reacts to an animal's step (hunting finds its prey in
JS); what reads the clock acts at dusk, at night and in the morning, thresholds thousands of
ticks apart, and a view held back is at most 100 ticks behind. Only an idle bot's views are
held: a bot at work changes its own view 5 times a second, clock and animals and all. An animal
that comes or goes, day turning to night or back (``is_day``), a clock that jumps (an
operator's ``/time set``: :data:`CLOCK_SLACK`) and every other change (hostiles, players, the
bot itself) are published at once."""
CLOCK_SLACK = 40
"""Ticks the clock may run ahead of the time gone by (20 a second) and still go on as it goes:
the server's time packets come once a second, so a view may see one a second early."""
QUIET_AFTER = 2.0
QUIET_EVERY = 1.0
"""Once nothing but the animals and the clock has changed for :data:`QUIET_AFTER` seconds (an
idle bot), a snapshot every :data:`QUIET_EVERY` seconds instead of every
:data:`OBSERVE_INTERVAL`. A snapshot is a bridge round trip, the largest part of an idle bot's
CPU that is left. Reaction does not wait on it: health, hurt and deaths take a snapshot at
once, entities :data:`SETTLE` later, and the first change beyond the animals and the clock (the
bot moving, its air, its inventory, a hostile or a player) brings the rate back to 5 per
second; an animal that comes into sight or goes out of it does not (at the edge of sight of 32
bots standing together they did, 3 times a minute a bot, each waking 10 snapshots). The timer
follows the rate: a quiet bot's perception wakes once a second, not five times to skip four."""
SETTLE = 0.1
"""Seconds from an ``entities`` event to its snapshot. What reacts to a hostile has it from the
event (:class:`HostileSpotted`, :class:`HostileGone`), so the snapshot that follows is for the
rest of the view, and taken at once it went to the bridge beside the swing: a zombie near 32
bots standing together was 32 snapshots in the bridges, 32 parses and 224 views published at the
moment every bot's reflex swung. A burst of entities events within it is one snapshot."""
_IMMEDIATE = frozenset({"health", "hurt", "entityDead", "spawn", "respawn"})


@dataclass(frozen=True, slots=True)
class WorldEvent:
    """One raw event from ``bot_helper.js`` (a plain dict with ``type``)."""

    raw: dict[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class _Observe:
    """Timer: take a snapshot."""


def _drift(old: WorldView, new: WorldView, elapsed: float) -> bool:
    """Whether the two views, ``elapsed`` seconds apart, differ in nothing but where the same
    animals stand and a clock that went on as it goes (:data:`DRIFT_EVERY`)."""
    if old.time_of_day is None or new.time_of_day is None:
        if old.time_of_day != new.time_of_day:
            return False
    elif (new.time_of_day - old.time_of_day) % 24000 > elapsed * 20 + CLOCK_SLACK:
        return False  # set, or turned back
    return _still(old) == _still(new)  # day turning to night is in is_day, which _still keeps


def _calm(old: WorldView, new: WorldView) -> bool:
    """Whether the two views differ in nothing but animals (where they stand, which are in
    sight) and the clock."""
    return _tame(old) == _tame(new)


_placeless = attrgetter(*(f.name for f in fields(Entity) if f.name not in ("distance", "position")))
"""An animal's fields that :func:`_still` compares, id first: all but where it stands."""


def _still(view: WorldView) -> tuple[WorldView, list[tuple[Any, ...] | Entity]]:
    """The view with its animals' places and its clock left out (and so its entities in id
    order), as a value to compare: the view without entities and clock, and its entities,
    an animal as its fields but distance and position. (A copy of each animal without them
    cost 10 us an animal, a snapshot 5 times a second a bot.)"""
    entities = sorted(
        (_placeless(e) if e.animal else e for e in view.entities),
        key=_entity_id,
    )
    return replace(view, entities=(), time_of_day=None), entities


def _entity_id(entry: tuple[Any, ...] | Entity) -> int:
    return entry.id if isinstance(entry, Entity) else int(entry[0])


def _tame(view: WorldView) -> WorldView:
    """The view without its animals and its clock (:func:`_calm`)."""
    others = sorted((e for e in view.entities if not e.animal), key=lambda e: e.id)
    return replace(view, entities=tuple(others), time_of_day=None, is_day=None)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def chat_event(raw: dict[str, Any]) -> ChatReceived:
    """A JS ``chat`` event as :class:`ChatReceived`; wrongly typed fields count as absent."""
    return ChatReceived(
        sender=_text(raw.get("from")),
        text=str(raw.get("text", "")),
        kind=str(raw.get("kind")),
        sender_uuid=_text(raw.get("senderUuid")),
        on_list=raw.get("onList") is True,
    )


def first_blow(raw: dict[str, Any]) -> FirstBlow | None:
    """A JS ``firstBlow`` event as :class:`FirstBlow`; None without an entity id and a name."""
    entity_id, name, distance = raw.get("id"), raw.get("name"), raw.get("distance")
    if not isinstance(entity_id, int) or isinstance(entity_id, bool) or not isinstance(name, str):
        logger.warning("a first blow without an entity id and a name: %r", raw)
        return None
    far = float(distance) if isinstance(distance, int | float) else 0.0
    return FirstBlow(name=name, distance=far, entity_id=entity_id)


def players_event(raw: dict[str, Any]) -> PlayersListed:
    """A JS ``players`` event (the server's player list) as :class:`PlayersListed`."""
    entries = raw.get("players")
    players = tuple(
        (entry["name"], _text(entry.get("uuid")))
        for entry in (entries if isinstance(entries, list) else [])
        if isinstance(entry, dict) and isinstance(entry.get("name"), str)
    )
    return PlayersListed(players=players)


class Perception(SupervisedActor):
    """Owns the world model; the only reader of world snapshots."""

    def __init__(
        self, *, supervision: SupervisionContext, link: Link | None = None, server_label: str = ""
    ) -> None:
        super().__init__(supervision=supervision)
        self.link = link
        self.server_label = server_label
        self.model = WorldModel()
        self.last_view: WorldView | None = None
        self.published_at = -math.inf
        self.changed_at = -math.inf
        """When a snapshot last showed more than animals walking and the clock going."""
        self.next_observe: TimerHandle | None = None
        self.next_at = math.inf
        """When :attr:`next_observe` is due."""
        self.next_quiet = False
        """The next snapshot is :data:`QUIET_EVERY` away (the bot was quiet)."""

    def setup(self) -> None:
        self._observe(force=True)
        self._schedule()

    def on_message(self, message: Any) -> Any:
        match message:
            case _Observe():
                self._observe()
                self._schedule()
            case WorldEvent(raw=raw):
                self._world_event(raw)
            case _:
                return super().on_message(message)
        return None

    def _schedule(self) -> None:
        """The next timed snapshot: 5 a second, or once a second while the bot is quiet."""
        self.next_quiet = self.now() - self.changed_at >= QUIET_AFTER
        self._observe_in(QUIET_EVERY if self.next_quiet else OBSERVE_INTERVAL)

    def _observe_in(self, delay: float) -> None:
        if self.next_observe is not None:
            self.next_observe.cancel()
        self.next_at = self.now() + delay
        self.next_observe = self.later(delay, _Observe())

    def _soon(self) -> None:
        """The next snapshot :data:`SETTLE` from now, unless one is due sooner."""
        if self.next_observe is None or self.next_at > self.now() + SETTLE:
            self._observe_in(SETTLE)

    def _observe(self, *, force: bool = False) -> bool:
        """Take a snapshot and publish what changed; whether more than animals and the clock
        changed (or ``force``)."""
        before = self.model.view
        taken = self.now()
        if self.link is not None:
            raw = self.link.snapshot()
            if raw is None:
                # a call that failed while connected (a stalled bridge) keeps the last view:
                # forgetting it would leave a death with nothing near it to learn from
                if self.model.has_seen and not self.link.connected:
                    self.model.disconnected()
            else:
                for event in self.model.apply(raw):
                    self.publish(event)
        view = self.model.view
        changed = force or not _calm(before, view)
        if changed:
            self.changed_at = taken
        if force or view != self.last_view:
            now = self.now()
            last, elapsed = self.last_view, now - self.published_at
            drifted = last is not None and elapsed < DRIFT_EVERY and _drift(last, view, elapsed)
            if drifted and not force:
                return changed  # a later snapshot publishes it (compared with the last one)
            self.last_view = view
            self.published_at = now
            self.publish(WorldObserved(view=view))
        return changed

    def _world_event(self, raw: dict[str, Any]) -> None:
        kind = raw.get("type")
        if kind == "entities":
            # threats first, straight from the event: the snapshot can follow
            for event in self.model.spotted(raw.get("spawned") or []):
                self.publish(event)
            for gone in self.model.gone(raw.get("gone") or []):
                self.publish(gone)
            self._soon()
        if kind == "connected":
            self.model.connected(_text(raw.get("version")))
            logger.info("in the world at %s (version %s)", self.server_label, raw.get("version"))
            self.publish(Connected(server=self.server_label, version=str(raw.get("version"))))
        elif kind == "chat":
            self.publish(chat_event(raw))
        elif kind == "players":
            self.publish(players_event(raw))
        elif kind == "death":
            cause = death_cause(raw.get("cause"))
            reason = cause.summary()
            if cause.kind == "unknown":  # no message, no blow seen: say what was near, no more
                threats = self.model.view.threats
                reason = f"killed near {threats[0].name}" if threats else "died"
            self.model.died(raw.get("position"))
            # the view the death is remembered with is the death's (hp 0): the last snapshot may
            # show the fall still under way or, on a busy machine, already the next life (JS
            # respawns as soon as the death event is out)
            self.last_view = self.model.view
            self.published_at = self.now()
            self.publish(WorldObserved(view=self.model.view))
            where = self.model.last_death
            logger.warning("died at %s: %s", where, cause.text or reason)
            self.publish(
                Died(reason=reason, position=where.as_dict() if where else None, cause=cause)
            )
        elif kind == "damage":
            source = damage_source(raw.get("source"))
            hp = raw.get("hp")
            if source is not None and isinstance(hp, int | float) and not isinstance(hp, bool):
                self.publish(DamageTaken(hp=float(hp), source=source))
        elif kind == "firstBlow":
            blow = first_blow(raw)
            if blow is not None:
                self.publish(blow)
        elif kind == "respawn":
            self.publish(Respawned())
        elif kind == "signIn":  # Microsoft's device code (the link logged it): to the dashboard
            text = (
                f"sign in to Microsoft: open {raw.get('uri')} and enter the code {raw.get('code')}"
            )
            self.publish(ErrorRaised(source="auth", text=text))
        elif kind == "kicked":
            logger.warning("kicked: %s", raw.get("reason"))
            self.publish(Kicked(reason=str(raw.get("reason"))))
        elif kind == "end":
            logger.warning("disconnected: %s", raw.get("reason"))
            self.model.disconnected()
            self.publish(Disconnected(reason=str(raw.get("reason"))))
        elif kind == "actionDone":
            if logger.isEnabledFor(logging.DEBUG):  # what it did: where, how many, why not
                extra = {k: v for k, v in raw.items() if k not in ("type", "id", "ok", "action")}
                logger.debug("action %s %s %s: %s", raw.get("id"), raw.get("action"),
                             "done" if raw.get("ok") else "failed", extra)  # fmt: skip
            self.publish(
                ActionFinished(
                    action_id=str(raw.get("id")),
                    ok=bool(raw.get("ok")),
                    action=str(raw.get("action", "")),
                    error=str(raw.get("error") or ""),
                    chests=chests_seen(raw),
                )
            )
        if kind in _IMMEDIATE or kind in ("death", "end", "connected"):
            changed = self._observe(force=kind in ("death", "end", "connected"))
            if changed and self.next_quiet:  # awake again: 5 snapshots a second from now
                self._schedule()


CHEST_ACTIONS = frozenset(("store", "fetch", "look_in"))
BUILD_ACTIONS = frozenset(("settle", "build"))


def chests_seen(raw: Mapping[str, Any]) -> tuple[ChestSeen, ...]:
    """The chests an action's end reports: the one a chest action opened (:func:`chest_seen`),
    the new, empty ones a build placed (its ``chests`` positions)."""
    if raw.get("action") in BUILD_ACTIONS and raw.get("ok"):
        placed = raw.get("chests")
        if not isinstance(placed, list) or len(placed) > 64:
            return ()
        out = [chest_seen({"action": "look_in", "ok": True, "chest": at, "contents": {}})
               for at in placed]  # fmt: skip
        return tuple(c for c in out if c is not None)
    seen = chest_seen(raw)
    return () if seen is None else (seen,)


_ITEM = re.compile(r"^[a-z0-9_]{1,64}$")


def chest_seen(raw: Mapping[str, Any]) -> ChestSeen | None:
    """The chest a ``store``, ``fetch`` or ``look_in`` left (its ``chest`` position and
    ``contents``), checked as data: None for another action or a malformed report (logged)."""
    if raw.get("action") not in CHEST_ACTIONS:
        return None
    at, contents = raw.get("chest"), raw.get("contents")
    try:
        if not isinstance(at, Mapping):
            raise TypeError("no chest position")
        x, y, z = (at[k] for k in "xyz")
        if not all(isinstance(v, int | float) and abs(v) < 3e7 for v in (x, y, z)):
            raise ValueError(f"a chest position out of the world: {at!r}")
        gone = not raw.get("ok") and "no chest" in str(raw.get("error") or "")
        items: dict[str, int] = {}
        if not gone and contents is None:  # it never opened (not reached, stopped)
            return None
        if not gone:
            if not isinstance(contents, Mapping) or len(contents) > 27:
                raise TypeError(f"contents are not a chest's: {str(contents)[:80]!r}")
            for name, n in contents.items():
                if not isinstance(name, str) or not _ITEM.match(name):
                    raise ValueError(f"not an item name: {str(name)[:40]!r}")
                if isinstance(n, bool) or not isinstance(n, int) or not 0 < n <= 27 * 64:
                    raise ValueError(f"not a count of {name}: {n!r}")
                items[name] = n
    except (KeyError, TypeError, ValueError) as exc:
        logger.warning("a %s reported no chest pepa can read: %s", raw.get("action"), exc)
        return None
    return ChestSeen(x=int(x // 1), y=int(y // 1), z=int(z // 1), items=items, gone=gone)
