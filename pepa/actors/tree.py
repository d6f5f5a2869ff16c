"""The actor tree of one worker process.

::

    root            one_for_one, 5 restarts in 30 s, then the worker exits (code 3)
    ├── knowledge   the bot's memory of this server
    ├── ipc         the socket protocol
    └── brain       one_for_one, 5 restarts in 30 s, then escalates to root
        ├── perception
        ├── reflex
        ├── watchdog
        ├── curriculum  goal.md → plan.md → the chain's task slot; diary, places
        ├── coach
        └── persona

``ipc`` starts before the brain so that dashboards see every brain restart;
stopping runs in reverse, so the brain stops first and ``ipc`` reports it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pepa.actors.coach import Coach
from pepa.actors.curriculum import Curriculum
from pepa.actors.ipc import Ipc
from pepa.actors.knowledge import Knowledge
from pepa.actors.perception import Perception
from pepa.actors.persona import Persona
from pepa.actors.reflex import Reflex
from pepa.actors.watchdog import Watchdog
from pepa.base.logs import RingBuffer
from pepa.link.api import Link
from pepa.llm import LlmSettings
from pepa.runtime import ChildSpec, Supervisor
from pepa.state.retention import RetentionPolicy

__all__ = ["build_tree"]


def build_tree(
    *,
    server_dir: Path,
    ipc_server: Any,
    ring: RingBuffer,
    started_at: float,
    server_label: str,
    username: str,
    llm_backend: str,
    request_stop: Callable[[], None],
    link: Link | None = None,
    operators: tuple[str, ...] = (),
    reflex_poll: float | None = None,
    data_root: Path | None = None,
    heartbeat_interval: float = 1.0,
    heartbeat_timeout: float = 5.0,
    llm: LlmSettings | None = None,
    db_url: str | None = None,
    reflect_every: float = 1800.0,
    curriculum: bool = True,
    wiki_url: str = "",
    learning: bool = True,
    first_blow: bool = True,
    retention: RetentionPolicy | None = None,
    reload_token: str = "",
    fellows: tuple[str, ...] = (),
) -> ChildSpec:
    """The root child spec, ready for :func:`pepa.runtime.start_tree`."""
    timing = {"heartbeat_interval": heartbeat_interval, "heartbeat_timeout": heartbeat_timeout}
    brain = ChildSpec(
        id="brain",
        actor_class=Supervisor,
        kwargs={
            "children": [
                ChildSpec(
                    id="perception",
                    actor_class=Perception,
                    kwargs={"link": link, "server_label": server_label},
                ),
                ChildSpec(
                    id="reflex",
                    actor_class=Reflex,
                    kwargs={
                        "link": link,
                        "server_dir": server_dir,
                        "poll": reflex_poll,
                        "learning": learning,
                        "milestones": curriculum,
                        "first_blow": first_blow,
                    },
                ),
                ChildSpec(
                    id="watchdog",
                    actor_class=Watchdog,
                    kwargs={"link": link, "learning": learning},
                ),
                ChildSpec(
                    id="curriculum",
                    actor_class=Curriculum,
                    kwargs={
                        "server_dir": server_dir,
                        "data_root": data_root,
                        "enabled": curriculum,
                        "learning": learning,
                    },
                ),
                ChildSpec(
                    id="coach",
                    actor_class=Coach,
                    kwargs={
                        "backend": llm_backend,
                        "settings": llm,
                        "budget_path": server_dir / "llm-budget.json",
                    },
                ),
                ChildSpec(
                    id="persona",
                    actor_class=Persona,
                    kwargs={
                        "link": link,
                        "username": username,
                        "fellows": fellows,
                        "operators": operators,
                        "request_stop": request_stop,
                        "voice_path": server_dir / "persona.json",
                        "operators_path": server_dir / "operators.json",
                    },
                ),
            ],
            "strategy": "one_for_one",
            **timing,
        },
        shutdown=15.0,
    )
    return ChildSpec(
        id="root",
        actor_class=Supervisor,
        kwargs={
            "children": [
                ChildSpec(
                    id="knowledge",
                    actor_class=Knowledge,
                    kwargs={
                        "server_dir": server_dir,
                        "data_root": data_root,
                        "db_url": db_url,
                        "reflect_every": reflect_every,
                        "wiki_url": wiki_url,
                        "retention": retention,
                        "username": username,
                    },
                ),
                ChildSpec(
                    id="ipc",
                    actor_class=Ipc,
                    kwargs={
                        "server": ipc_server,
                        "ring": ring,
                        "started_at": started_at,
                        "server_label": server_label,
                        "username": username,
                        "request_stop": request_stop,
                        "reload_token": reload_token,
                    },
                ),
                brain,
            ],
            "strategy": "one_for_one",
            **timing,
        },
    )
