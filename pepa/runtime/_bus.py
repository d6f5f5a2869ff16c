"""Publish/subscribe between actors, by ``tell`` only.

Subscribers are stable :class:`ActorHandle` s, so a subscription survives the
subscriber's restarts, and subscribing again (as a restarted actor does in its
``setup``) is harmless. ``publish`` runs in the publisher's thread and never
blocks: each delivery is a ``tell``. An event type's subscribers also receive
subclasses of it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from pepa.base.errors import ActorUnavailable
from pepa.runtime._registry import ActorHandle

__all__ = ["Bus"]

logger = logging.getLogger(__name__)


class Bus:
    """Fan-out of events to subscribed actors."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscribers: dict[type, dict[str, ActorHandle]] = {}
        self._routes: dict[type, tuple[ActorHandle, ...]] = {}
        self._listeners: tuple[Callable[[Any], None], ...] = ()

    def subscribe(self, event_type: type, subscriber: ActorHandle) -> None:
        """Deliver every ``event_type`` (and subclass) event to ``subscriber``."""
        with self._lock:
            self._subscribers.setdefault(event_type, {})[subscriber.name] = subscriber
            self._routes.clear()

    def unsubscribe(self, event_type: type, subscriber: ActorHandle) -> None:
        """Stop delivering ``event_type`` to ``subscriber``."""
        with self._lock:
            self._subscribers.get(event_type, {}).pop(subscriber.name, None)
            self._routes.clear()

    def listen(self, callback: Callable[[Any], None]) -> None:
        """Call ``callback(event)`` for every event, in the publisher's thread.

        For observers outside the actor tree (tests, the worker's bookkeeping):
        the callback must only enqueue, and its exceptions are logged.
        """
        with self._lock:
            self._listeners = (*self._listeners, callback)

    def unlisten(self, callback: Callable[[Any], None]) -> None:
        """Remove a callback added with :meth:`listen`."""
        with self._lock:
            self._listeners = tuple(c for c in self._listeners if c is not callback)

    def publish(self, event: Any) -> None:
        """Tell ``event`` to every subscriber of its type; never blocks, never raises."""
        for callback in self._listeners:
            try:
                callback(event)
            except Exception:
                logger.exception("bus listener %r failed on %s", callback, type(event).__name__)
        for handle in self._route(type(event)):
            try:
                handle.tell(event)
            except ActorUnavailable:
                logger.debug(
                    "%s is not running; %s not delivered", handle.name, type(event).__name__
                )

    def _route(self, event_type: type) -> tuple[ActorHandle, ...]:
        routes = self._routes.get(event_type)
        if routes is not None:
            return routes
        with self._lock:
            seen: dict[str, ActorHandle] = {}
            for klass in event_type.__mro__:
                seen.update(self._subscribers.get(klass, {}))
            routes = tuple(seen.values())
            self._routes[event_type] = routes
            return routes
