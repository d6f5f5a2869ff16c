"""pepa: an autonomous Minecraft survival bot runtime built on supervised pykka actors."""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.1.0"
