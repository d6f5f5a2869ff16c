"""Stand-ins for real LLM back ends: a ``pi`` script on PATH and an OpenAI-compatible server.

See docs/llm.md, "Testing a back end". Both are real processes or sockets;
tests drive them into good, garbage, slow and failing replies.
"""

from __future__ import annotations

from tests.llm_standins.openai_server import OpenAIStandIn, Reply
from tests.llm_standins.pi_script import install_pi

__all__ = ["SECRETS", "OpenAIStandIn", "Reply", "install_pi"]

SECRETS = {
    "MC_PASSWORD": "hunter2-authme",
    "PEPA_DB_URL": "postgresql://pepa:db-secret@127.0.0.1/pepa",
    "OPENAI_API_KEY": "sk-openai-secret",
    "PEPA_WORKER_CONFIG": '{"password": "hunter2-authme"}',
    "OPERATOR_USERNAMES": "alice",
    "PEPA_OPENAI_URL": "http://user:pw@127.0.0.1:1/v1",
}
"""Secrets (and look-alikes) in an environment: none may reach an LLM command's."""
