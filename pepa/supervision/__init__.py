"""Supervision for pykka actors: child specs, strategies, intensity, backoff, heartbeats.

See ``docs/supervision.md`` for the semantics.
"""

from __future__ import annotations

from pepa.supervision._actor import (
    InjectedFault,
    Poison,
    Runtime,
    SupervisedActor,
    SupervisionContext,
)
from pepa.supervision._messages import (
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
from pepa.supervision._policy import Backoff, RestartIntensity
from pepa.supervision._registry import DEFAULT_ASK_TIMEOUT, ActorHandle, Registry
from pepa.supervision._scheduler import Scheduler, TimerHandle
from pepa.supervision._supervisor import (
    ChildSpec,
    Restart,
    Strategy,
    Supervisor,
    start_tree,
    stop_tree,
)
from pepa.supervision._table import ActorRow, ActorTable

__all__ = [
    "DEFAULT_ASK_TIMEOUT",
    "ActorHandle",
    "ActorRow",
    "ActorStateChanged",
    "ActorTable",
    "Backoff",
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
