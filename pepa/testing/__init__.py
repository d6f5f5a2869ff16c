"""Test seams for the mind without a server: a fake link, a fake clock, an actor harness.

Like httpx's ``MockTransport``, these are public so that every part of the
bot's mind can be tested without flying-squid, mineflayer or threads:

- :class:`FakeClock` is monotonic seconds that move only when told;
- :class:`FakeLink` implements :class:`pepa.link.api.Link`: it plays back
  snapshots (raw JS fields, as ``bot_helper.js`` sends them), records every
  action as the catalogue (:mod:`pepa.link.actions`) names it, and completes
  an action when the test says so, as the ``actionDone`` event the real link
  would emit;
- :class:`ActorHarness` runs one supervised actor in the test's own thread:
  ``setup``, then each message the test sends; timers fire when the test
  advances the clock; everything the actor publishes lands in
  :attr:`ActorHarness.published`. An exception in the actor reaches the
  test (a crash is a failure, not a restart).

The harness runs the actor's real code (its ``on_message``, its policy, its
files); only the runtime around it is synchronous. What needs a real server
— the pathfinder, mob AI, the JS bridge — stays in the integration tests.

Modules: :mod:`.clock`, :mod:`.snapshots` (raw snapshots and entities), :mod:`.fakelink`,
:mod:`.harness` (the synchronous runtime); everything is re-exported here.
"""

from __future__ import annotations

from pepa.testing.clock import FakeClock
from pepa.testing.fakelink import Action, FakeLink
from pepa.testing.harness import ActorHarness, ManualScheduler
from pepa.testing.snapshots import entity, raw_snapshot, view

__all__ = [
    "Action",
    "ActorHarness",
    "FakeClock",
    "FakeLink",
    "ManualScheduler",
    "entity",
    "raw_snapshot",
    "view",
]
