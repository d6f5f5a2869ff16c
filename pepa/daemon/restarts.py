"""Keeping a worker process alive: how it is started, why it left, and whether and when it
starts again. One place for ``pepa start`` (one worker, :mod:`pepa.daemon.parent`),
``pepa fleet`` (a worker per group, :mod:`pepa.fleet.supervisor`) and a fleet on Ray (a Ray
actor per group, :mod:`pepa.fleet.onray`).

A worker that exits 0 was stopped on request; 2, it refused its configuration (no restart:
the same configuration would be refused again); anything else is a death. A death within the
restart budget (:class:`~pepa.runtime.RestartIntensity`, R restarts in T seconds) is restarted
after a backoff (:class:`~pepa.runtime.Backoff`: at once the first time, then exponential with
jitter, reset after a stable run); past it the supervisor gives up with :data:`EXIT_GAVE_UP`.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pepa.base.childenv import scrubbed
from pepa.daemon import handover
from pepa.daemon.handover import ENV_PARENT
from pepa.ipc.paths import EXIT_FILE
from pepa.runtime import Backoff, RestartIntensity
from pepa.state.files import WORKER_EXIT, load

__all__ = [
    "EXIT_BRIDGE",
    "EXIT_CONFIG",
    "EXIT_GAVE_UP",
    "EXIT_STOP",
    "Restarts",
    "Verdict",
    "exit_reason",
    "overall",
    "spawn_worker",
]

logger = logging.getLogger(__name__)

EXIT_STOP = 0
"""A stop asked for (``cmd:stop``, an operator's ``stop``, a signal): no restart."""
EXIT_BRIDGE = 1
"""The JS bridge died, or anything unexpected: every bot of that worker must come back."""
EXIT_CONFIG = 2
"""A setting to change (bad configuration, the account refused, no Node, a state directory
that is not the user's): never restarted, the same configuration would be refused again."""
EXIT_GAVE_UP = 3
"""The actor tree gave up (a worker), or the worker kept dying (``pepa start``, a fleet)."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """What to do after a worker exited."""

    action: Literal["stopped", "refused", "give_up", "restart"]
    """Stopped on request; refused its configuration; out of its restart budget; restart."""
    delay: float = 0.0
    """Seconds to wait before the restart."""


@dataclass(slots=True, kw_only=True)
class Restarts:
    """One worker's restart budget and backoff, and the restarts it has had."""

    intensity: RestartIntensity
    backoff: Backoff = field(
        default_factory=lambda: Backoff(base=0.5, factor=2.0, cap=30.0, stable_after=60.0)
    )
    failures: int = 0
    """Deaths in a row, each after a run shorter than the backoff's stable period."""
    count: int = 0
    """Restarts so far."""

    @classmethod
    def within(cls, max_restarts: int, period: float, backoff: Backoff | None = None) -> Restarts:
        """At most ``max_restarts`` restarts in any ``period`` seconds."""
        intensity = RestartIntensity(max_restarts=max_restarts, period=period)
        return cls(intensity=intensity) if backoff is None else cls(intensity=intensity,
                                                                   backoff=backoff)  # fmt: skip

    def after_exit(self, code: int, *, ran_for: float, now: float) -> Verdict:
        """The verdict on a worker that exited with ``code`` after running ``ran_for`` s."""
        if code == EXIT_STOP:
            return Verdict("stopped")
        if code == EXIT_CONFIG:
            return Verdict("refused")
        if not self.intensity.allow(now):
            return Verdict("give_up")
        self.failures = 1 if ran_for >= self.backoff.stable_after else self.failures + 1
        self.count += 1
        return Verdict("restart", self.backoff.delay(self.failures))

    def lost(self, now: float) -> bool:
        """A worker lost some other way (its Ray actor died): a restart counted against the
        budget; False when the budget is spent and the supervisor must give up."""
        if not self.intensity.allow(now):
            return False
        self.count += 1
        return True


def overall(codes: Iterable[int | None]) -> int:
    """A supervisor's exit code once each of its workers has ended for good with ``codes``:
    it gave up if any gave up, else a configuration was refused if any was, else 0."""
    ended = set(codes)
    return EXIT_GAVE_UP if EXIT_GAVE_UP in ended else EXIT_CONFIG if EXIT_CONFIG in ended else 0


def exit_reason(code: int, folders: Iterable[Path], *, unknown: str = "") -> str:
    """Why a worker left, for a person: the signal that killed it, or its exit code and the
    reason it left in ``worker-exit.json`` (the first of ``folders`` that has one). The file is
    read through its schema: a bad one is moved aside with a warning ending in ``unknown``.

    A client (``pepa status``, the dashboard) reads the reason without moving anything aside
    (:mod:`pepa.ipc.fleet`): the file is the supervisor's."""
    if code < 0:
        return f"killed by {signal.Signals(-code).name}"
    reason = ""
    for folder in folders:
        said = load(folder / EXIT_FILE, WORKER_EXIT, {}, log=logger, then=unknown)
        if said.get("reason"):
            reason = str(said["reason"])
            break
    return f"exit code {code}" + (f": {reason}" if reason else "")


def spawn_worker(
    argv: Sequence[str], payload: bytes, extra_env: Mapping[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """Start a worker process with ``payload`` (its configuration) on a pipe.

    The configuration (password, keys, database URL) goes through the pipe; the environment,
    which every process under the worker inherits, holds no secret. The worker runs in its
    own session: a Ctrl-C in the terminal reaches only its supervisor, which then stops it in
    order (the JS bridge under it must not die first)."""
    config_fd = handover.send(payload)
    env = scrubbed(os.environ, **{ENV_PARENT: str(os.getpid())})
    env[handover.ENV_CONFIG_FD] = str(config_fd)
    env.update(extra_env or {})
    try:
        return subprocess.Popen(argv, env=env, pass_fds=(config_fd,), start_new_session=True)
    finally:
        os.close(config_fd)
