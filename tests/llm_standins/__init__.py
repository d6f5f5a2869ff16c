"""Stand-ins for real LLM back ends: a ``pi`` script on PATH and an OpenAI-compatible server.

See docs/llm.md, "Testing a back end". Both are real processes or sockets;
tests drive them into good, garbage, slow and failing replies.
"""

from __future__ import annotations

from tests.llm_standins.openai_server import OpenAIStandIn, Reply
from tests.llm_standins.pi_script import install_pi

__all__ = ["OpenAIStandIn", "Reply", "install_pi"]
