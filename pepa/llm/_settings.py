"""Which back end to build, with what settings; and the ``offline`` back end (no model)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pepa.llm._base import Backend, CancelToken, Chunk, Done, LlmUnavailable, Running
from pepa.llm._openai import OpenAIBackend
from pepa.llm._pi import PiBackend

__all__ = [
    "DEFAULT_OPENAI_URL",
    "LlmSettings",
    "OfflineBackend",
    "make_backend",
    "settings_from_config",
]

DEFAULT_OPENAI_URL = "http://127.0.0.1:11434/v1"
"""Ollama's OpenAI-compatible endpoint on this machine."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LlmSettings:
    """How to reach each back end (the coach gets these from the config)."""

    pi_command: str = "pi"
    """The ``pi`` command, arguments allowed; ``[--no-tools …] -p PROMPT`` is appended."""
    openai_url: str = DEFAULT_OPENAI_URL
    """Base URL of an OpenAI-compatible API (``…/v1``)."""
    openai_model: str = ""
    """Model name sent with each request; empty sends none (llama.cpp serves its one model)."""
    openai_key: str | None = field(default=None, repr=False)
    """Bearer token, if the server wants one (never logged)."""
    timeout: float = 120.0
    """Seconds a structured ask (post-mortem, next action) may take."""


def settings_from_config(config: Any) -> LlmSettings:
    """The LLM part of a :class:`pepa.daemon.config.Config`."""
    return LlmSettings(
        pi_command=config.pi_command,
        openai_url=config.openai_url or DEFAULT_OPENAI_URL,
        openai_model=config.openai_model,
        openai_key=config.openai_key,
        timeout=config.llm_timeout,
    )


def make_backend(name: str, settings: LlmSettings) -> Backend:
    """The back end called ``name`` (``pi``, ``openai``, anything else is ``offline``)."""
    if name == "pi":
        return PiBackend(settings.pi_command)
    if name == "openai":
        try:
            return OpenAIBackend(
                settings.openai_url, model=settings.openai_model, api_key=settings.openai_key
            )
        except LlmUnavailable as exc:
            return OfflineBackend(why=str(exc))
    return OfflineBackend()


class OfflineBackend:
    """No model: free questions are answered with a hint, structured asks refused.

    The offline post-mortem itself (``pepa.policy.learning.postmortem``) runs in
    the knowledge actor for every death, whatever the back end.
    """

    name = "offline"

    def __init__(self, why: str = "no LLM is configured") -> None:
        self.why = why

    def stream(
        self, prompt: str, *, on_chunk: Chunk, on_done: Done, timeout: float, tools: bool = False
    ) -> Running:
        raise LlmUnavailable(
            f"{self.why}; install `pi`, or set PEPA_OPENAI_URL and start with --llm openai"
        )

    def complete(self, prompt: str, *, timeout: float, cancel: CancelToken | None = None) -> str:
        raise LlmUnavailable(self.why)
