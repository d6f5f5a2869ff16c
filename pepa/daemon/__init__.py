"""The daemon: a process supervisor (``pepa start``) over one worker process."""

from __future__ import annotations

from pepa.daemon.lock import StateLock
from pepa.daemon.parent import EXIT_GAVE_UP, ProcessSupervisor

__all__ = ["EXIT_GAVE_UP", "ProcessSupervisor", "StateLock"]
