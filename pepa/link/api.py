"""The :class:`Link` protocol: what actors and skills may ask of one Minecraft connection.

:class:`pepa.link.minecraft.MinecraftLink` is the real one (mineflayer through the
JS bridge); :class:`pepa.testing.FakeLink` plays back snapshots and records
actions for tests. The actions are the rows of :mod:`pepa.link.actions`, started by name:
``link.act("gather", names=["oak_log"], count=3)`` returns an action id at once and the
action ends with an ``actionDone`` event carrying that id (``None``: the link refused: not
connected, the bridge is gone); ``link.call("attack", entity_id=7)`` is an instant call.
"""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["Link"]


class Link(Protocol):
    """One bot's connection to one server, as the actors see it."""

    @property
    def connected(self) -> bool:
        """True between a spawn and the end of that connection."""
        ...

    @property
    def version(self) -> str | None:
        """The game version of the current connection, once known."""
        ...

    def snapshot(self) -> dict[str, Any] | None:
        """The whole world as the bot sees it (raw JS fields); None when offline."""
        ...

    # -- the actions of the catalogue (pepa.link.actions) ---------------------------------

    def act(self, action: str, /, **args: Any) -> str | None:
        """Start ``action`` (a :attr:`~pepa.link.actions.Result.ACTION` row) with ``args``: its
        id at once, or None when the link refused (not connected, the bridge is gone). It ends
        with an ``actionDone`` event carrying that id. A call that does not fit the row raises
        :class:`~pepa.link.actions.ActionCallError` and reaches no JS."""
        ...

    def call(self, action: str, /, **args: Any) -> bool:
        """Make the instant call ``action`` (a :attr:`~pepa.link.actions.Result.CHECK` or
        :attr:`~pepa.link.actions.Result.NONE` row): the JS answer as a bool (for a ``NONE``
        row, whether the call was made); False when the link refused. A call that does not fit
        the row raises :class:`~pepa.link.actions.ActionCallError` and reaches no JS."""
        ...
