"""LLM back ends behind one interface (``pi`` today; ``openai`` and ``offline`` analysis later)."""

from __future__ import annotations

from pepa.llm._stream import StreamingCommand

__all__ = ["StreamingCommand"]
