"""The actors' runtime: supervision over pykka actors, the bus, and (in :mod:`.events`) the
messages they exchange.

Supervision: child specs, strategies, intensity, backoff, heartbeats (``docs/supervision.md``).
The bus fans events out by ``tell`` only.
"""

from __future__ import annotations

from pepa.runtime._actor import (
    InjectedFault,
    Poison,
    Runtime,
    SupervisedActor,
    SupervisionContext,
)
from pepa.runtime._bus import Bus
from pepa.runtime._messages import (
    ActorStateChanged,
    Call,
    ChildExited,
    ChildStarted,
    Direct,
    FaultKind,
    InjectFault,
    Ping,
    Query,
)
from pepa.runtime._policy import Backoff, RestartIntensity
from pepa.runtime._registry import DEFAULT_ASK_TIMEOUT, ActorHandle, Registry
from pepa.runtime._scheduler import Scheduler, TimerHandle
from pepa.runtime._supervisor import (
    ChildSpec,
    Restart,
    Strategy,
    Supervisor,
    start_tree,
    stop_tree,
)
from pepa.runtime._table import ActorRow, ActorTable

__all__ = [
    "DEFAULT_ASK_TIMEOUT",
    "ActorHandle",
    "ActorRow",
    "ActorStateChanged",
    "ActorTable",
    "Backoff",
    "Bus",
    "Call",
    "ChildExited",
    "ChildSpec",
    "ChildStarted",
    "Direct",
    "FaultKind",
    "InjectFault",
    "InjectedFault",
    "Ping",
    "Poison",
    "Query",
    "Registry",
    "Restart",
    "RestartIntensity",
    "Runtime",
    "Scheduler",
    "Strategy",
    "SupervisedActor",
    "SupervisionContext",
    "Supervisor",
    "TimerHandle",
    "start_tree",
    "stop_tree",
]
