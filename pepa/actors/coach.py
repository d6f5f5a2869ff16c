"""Coach: the LLM side of the bot — operator questions now, post-mortems later.

``AskLlm`` runs the configured back end without blocking the actor: the
``pi`` back end streams ``pi -p PROMPT`` line by line as
:class:`LlmChunkReceived` events; ``offline`` answers at once that no model is
configured. One request runs at a time.
"""

from __future__ import annotations

import logging
import shutil
from dataclasses import dataclass
from typing import Any

from pepa.events import AskLlm, ErrorRaised, LlmChunkReceived, LlmFinished
from pepa.llm import StreamingCommand
from pepa.supervision import SupervisedActor, SupervisionContext

__all__ = ["Coach"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True, kw_only=True)
class _Finished:
    """The running request ended."""

    code: int
    duration_ms: int


class Coach(SupervisedActor):
    """Answers ``AskLlm`` through the configured back end."""

    def __init__(self, *, supervision: SupervisionContext, backend: str = "offline") -> None:
        super().__init__(supervision=supervision)
        self.backend = backend
        self.running: StreamingCommand | None = None

    def setup(self) -> None:
        self.runtime.bus.subscribe(AskLlm, self.handle)

    def cleanup(self) -> None:
        if self.running is not None:
            self.running.cancel()

    def on_message(self, message: Any) -> Any:
        match message:
            case AskLlm(prompt=prompt):
                self._ask(prompt)
            case _Finished(code=code, duration_ms=duration_ms):
                self.running = None
                self.publish(LlmFinished(code=code, duration_ms=duration_ms))
            case _:
                return super().on_message(message)
        return None

    def _ask(self, prompt: str) -> None:
        if self.running is not None:
            self.publish(ErrorRaised(source="coach", text="an LLM request is already running"))
            return
        if self.backend != "pi":
            self.publish(
                LlmChunkReceived(
                    stream="stderr",
                    text=f"the {self.backend} back end cannot answer free questions; "
                    "install `pi` or start with --llm pi\n",
                )
            )
            self.publish(LlmFinished(code=1, duration_ms=0))
            return
        pi = shutil.which("pi")
        if pi is None:
            self.publish(ErrorRaised(source="coach", text="`pi` is not on PATH"))
            self.publish(LlmFinished(code=127, duration_ms=0))
            return
        me = self.handle  # a restarted coach still hears how the request ended
        bus = self.runtime.bus
        command = StreamingCommand(
            [pi, "-p", prompt],
            on_chunk=lambda stream, text: bus.publish(LlmChunkReceived(stream=stream, text=text)),
            on_done=lambda code, ms: me.tell(_Finished(code=code, duration_ms=ms)),
        )
        try:
            command.start()
        except OSError as exc:
            self.publish(ErrorRaised(source="coach", text=f"cannot run pi: {exc}"))
            self.publish(LlmFinished(code=127, duration_ms=0))
            return
        logger.info("asked pi (%d chars)", len(prompt))
        self.running = command
