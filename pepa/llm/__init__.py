"""LLM back ends behind one interface: ``pi``, ``openai`` (OpenAI-compatible), ``offline``.

See docs/llm.md. Structured asks never run an agent with its tools, and every
LLM command runs in a private directory with an allow-listed environment
(:func:`child_env`). The public modules :mod:`pepa.policy.coach.validate`,
:mod:`pepa.llm.budget` and :mod:`pepa.policy.coach.prompts` are pure; the back ends
run processes and sockets.
"""

from __future__ import annotations

from pepa.llm._base import (
    Backend,
    CancelToken,
    LlmCancelled,
    LlmError,
    LlmTimeout,
    LlmUnavailable,
    Running,
)
from pepa.llm._isolation import child_env
from pepa.llm._openai import OpenAIBackend
from pepa.llm._pi import PiBackend
from pepa.llm._settings import (
    DEFAULT_OPENAI_URL,
    LlmSettings,
    OfflineBackend,
    make_backend,
    settings_from_config,
)
from pepa.llm._stream import StreamingCommand

__all__ = [
    "DEFAULT_OPENAI_URL",
    "Backend",
    "CancelToken",
    "LlmCancelled",
    "LlmError",
    "LlmSettings",
    "LlmTimeout",
    "LlmUnavailable",
    "OfflineBackend",
    "OpenAIBackend",
    "PiBackend",
    "Running",
    "StreamingCommand",
    "child_env",
    "make_backend",
    "settings_from_config",
]
