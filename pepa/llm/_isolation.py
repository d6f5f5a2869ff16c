"""Where an LLM command runs: a private empty directory and an allow-listed environment.

The worker's environment may hold pepa's secrets (the AuthMe password, the
database URL, the OpenAI key, its own configuration); no LLM command, and
nothing it starts, may see them. :func:`child_env` builds a child's
environment from an allow-list (pure, tested on its own); :func:`private_dir`
and :func:`make_private_dir` give each run a fresh empty 0700 working
directory, removed afterwards, so a command finds no project files, no
``AGENTS.md`` and no state to read. See docs/llm.md, "Isolation".
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

__all__ = [
    "BASE_NAMES",
    "NEVER_NAMES",
    "NEVER_PREFIXES",
    "PROVIDER_KEYS",
    "child_env",
    "make_private_dir",
    "private_dir",
    "remove_private_dir",
]

logger = logging.getLogger(__name__)

BASE_NAMES = frozenset(
    {
        "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE",
        "LC_MESSAGES", "TERM", "TMPDIR", "TZ",
        # reaching the provider: proxies and extra certificate authorities
        "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
        "no_proxy", "all_proxy", "SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS",
    }
)  # fmt: skip
"""What any command needs to run at all, and to reach the network."""
BACKEND_PREFIXES = ("PI_",)
"""pi's own settings (``PI_CODING_AGENT_DIR``, ``PI_OFFLINE`` …)."""
PROVIDER_KEYS = frozenset(
    {
        "ANTHROPIC_API_KEY", "ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN",
        "AZURE_OPENAI_API_KEY", "AZURE_OPENAI_BASE_URL", "AZURE_OPENAI_RESOURCE_NAME",
        "AZURE_OPENAI_API_VERSION", "AZURE_OPENAI_DEPLOYMENT_NAME_MAP", "GEMINI_API_KEY",
        "GOOGLE_CLOUD_API_KEY", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION",
        "GOOGLE_APPLICATION_CREDENTIALS", "GROQ_API_KEY", "CEREBRAS_API_KEY", "XAI_API_KEY",
        "OPENROUTER_API_KEY", "AI_GATEWAY_API_KEY", "ZAI_API_KEY", "MISTRAL_API_KEY",
        "MINIMAX_API_KEY", "MINIMAX_CN_API_KEY", "DEEPSEEK_API_KEY", "FIREWORKS_API_KEY",
        "TOGETHER_API_KEY", "KIMI_API_KEY", "OPENCODE_API_KEY", "HF_TOKEN",
        "COPILOT_GITHUB_TOKEN", "AWS_PROFILE", "AWS_REGION", "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK",
    }
)  # fmt: skip
"""The provider keys pi reads from its environment (its ``--help``), minus ``OPENAI_API_KEY``."""
NEVER_PREFIXES = ("PEPA_", "MC_")
"""pepa's own settings: never passed on, whatever else allows them."""
NEVER_NAMES = frozenset({"OPERATOR_USERNAMES", "OPENAI_API_KEY"})
"""pepa's own settings without a prefix; ``OPENAI_API_KEY`` is the openai back end's key."""


def child_env(
    environ: Mapping[str, str], *, extra_prefixes: tuple[str, ...] = ()
) -> dict[str, str]:
    """The environment of an LLM command: the allowed part of ``environ``, nothing else.

    Allowed: :data:`BASE_NAMES`, pi's ``PI_*`` settings, :data:`PROVIDER_KEYS`
    and names starting with one of ``extra_prefixes`` (``GIT_`` for
    ``pepa propose apply``). Never: a name starting with ``PEPA_`` or ``MC_``,
    ``OPERATOR_USERNAMES``, ``OPENAI_API_KEY`` — even when a prefix allows it.
    """
    allowed = (*BACKEND_PREFIXES, *extra_prefixes)
    env = {}
    for name, value in environ.items():
        if name in NEVER_NAMES or name.startswith(NEVER_PREFIXES):
            continue
        if name in BASE_NAMES or name in PROVIDER_KEYS or name.startswith(allowed):
            env[name] = value
    return env


def make_private_dir() -> Path:
    """A fresh empty directory only this user can enter (``mkdtemp`` makes it 0700)."""
    path = Path(tempfile.mkdtemp(prefix="pepa-llm-"))
    path.chmod(0o700)
    return path


def remove_private_dir(path: Path) -> None:
    """Remove ``path`` and whatever a command left in it; a failure is logged, not raised."""
    shutil.rmtree(path, ignore_errors=True)
    if path.exists():
        logger.warning("cannot remove the LLM's private directory %s", path)


@contextmanager
def private_dir() -> Iterator[Path]:
    """``with private_dir() as cwd:`` a fresh 0700 directory, removed afterwards."""
    path = make_private_dir()
    try:
        yield path
    finally:
        remove_private_dir(path)
