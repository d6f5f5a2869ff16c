"""Perception: keeps the world model and publishes what the bot sees.

Raw events from the Minecraft link arrive as :class:`WorldEvent` tells (the
link thread only enqueues). Perception turns them into typed events
(``HostileSpotted``, ``HealthChanged``, ``Died``, ``ChatReceived`` …) and
into :class:`WorldObserved` snapshots: at once on health, food, entity and
chat changes, and every 0.2 s while anything changes — except a change that is
only animals walking about, published at most once a second (:data:`HERD_EVERY`).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, replace
from typing import Any

from pepa.events import (
    ActionFinished,
    ChatReceived,
    Connected,
    Died,
    Disconnected,
    ErrorRaised,
    Kicked,
    PlayersListed,
    Respawned,
    WorldObserved,
)
from pepa.supervision import SupervisedActor, SupervisionContext, TimerHandle
from pepa.world.death import death_cause
from pepa.world.linkapi import Link
from pepa.world.model import WorldModel
from pepa.world.view import WorldView

__all__ = ["Perception", "WorldEvent", "chat_event", "players_event"]

logger = logging.getLogger(__name__)

OBSERVE_INTERVAL = 0.2
"""Seconds between snapshots while connected (5 per second)."""
HERD_EVERY = 1.0
"""Seconds between views published when all that changed is where animals stand. Passive mobs
wander all the time: in the fleet benchmark's world 91 % of an idle bot's snapshots differed
from the last in that alone, and each was a WorldObserved to seven actors (the largest part of
an idle bot's Python time). Nothing reacts to an animal's step (hunting finds its prey in JS);
an animal that comes or goes, and every other change (hostiles, players, the bot itself, time),
is still published at once."""
QUIET_AFTER = 2.0
QUIET_EVERY = 1.0
"""Once nothing but animals' places and the clock has changed for :data:`QUIET_AFTER`
seconds (an idle bot), a snapshot every :data:`QUIET_EVERY` seconds instead of every
:data:`OBSERVE_INTERVAL`. A snapshot is a bridge round trip, the largest part of an idle bot's
CPU that is left. Reaction does not wait on it: health, hurt, entities and deaths take a
snapshot at once, and the first change beyond the animals and the clock (the bot moving, its
air, its inventory) brings the rate back to 5 per second. The timer follows the rate: a quiet
bot's perception wakes once a second, not five times to skip four."""
_IMMEDIATE = frozenset({"health", "hurt", "entities", "entityDead", "spawn", "respawn"})


@dataclass(frozen=True, slots=True)
class WorldEvent:
    """One raw event from ``bot_helper.js`` (a plain dict with ``type``)."""

    raw: dict[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class _Observe:
    """Timer: take a snapshot."""


def _herd_only(old: WorldView, new: WorldView) -> bool:
    """Whether the two views differ in nothing but where the same animals stand."""
    return _still(old) == _still(new)


def _calm(old: WorldView, new: WorldView) -> bool:
    """Whether the two views differ in nothing but animals' places and the clock."""
    return _herd_only(replace(old, time_of_day=None, is_day=None),
                      replace(new, time_of_day=None, is_day=None))  # fmt: skip


def _still(view: WorldView) -> WorldView:
    """The view with its animals' places left out (and so its entities in id order)."""
    entities = sorted(
        (replace(e, distance=0.0, position=None) if e.animal else e for e in view.entities),
        key=lambda e: e.id,
    )
    return replace(view, entities=tuple(entities))


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
        if self.next_observe is not None:
            self.next_observe.cancel()
        self.next_quiet = self.now() - self.changed_at >= QUIET_AFTER
        self.next_observe = self.later(
            QUIET_EVERY if self.next_quiet else OBSERVE_INTERVAL, _Observe()
        )

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
            last = self.last_view
            recent = now - self.published_at < HERD_EVERY
            if not force and last is not None and recent and _herd_only(last, view):
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
                )
            )
        if kind in _IMMEDIATE or kind in ("death", "end", "connected"):
            changed = self._observe(force=kind in ("death", "end", "connected"))
            if changed and self.next_quiet:  # awake again: 5 snapshots a second from now
                self._schedule()
