"""Configuration: command-line flags, then environment, then ``.env``, then defaults.

:func:`resolve` is pure (it takes the flags, the environment and the text of
``.env`` as values) and raises :class:`ConfigError` with one clear line for
anything it cannot use.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pepa.base.errors import ConfigError
from pepa.base.urls import redact_url
from pepa.daemon.values import (
    USERNAME,
    chat_pattern_of,
    db_url_of,
    flag_of,
    host_of,
    operators_of,
    password_of,
    port_of,
    profile_of,
    seconds_of,
    url_of,
    whole_of,
    wiki_url_of,
)
from pepa.game.versions import SANDBOX_VERSION, embedded_refusal

__all__ = [
    "AUTH_CHOICES",
    "EMBEDDED_HOST",
    "LLM_CHOICES",
    "Config",
    "chat_pattern_of",
    "config_from_json",
    "parse_dotenv",
    "read_dotenv",
    "resolve",
]

EMBEDDED_HOST = "127.0.0.1"
"""Where the embedded world listens."""
LLM_CHOICES = ("auto", "pi", "openai", "offline")
AUTH_CHOICES = ("offline", "microsoft")
"""How the bot signs in: an offline-mode name, or a Microsoft account (mineflayer's own)."""
_VERSION = re.compile(r"1\.[0-9]+(\.[0-9]+)?")

# setting -> environment variable
_ENV = {
    "host": "MC_HOST",
    "port": "MC_PORT",
    "username": "MC_USERNAME",
    "version": "MC_VERSION",
    "password": "MC_PASSWORD",
    "operators": "OPERATOR_USERNAMES",
    "chat_pattern": "PEPA_CHAT_PATTERN",
    "auth": "MC_AUTH",
    "state_dir": "PEPA_STATE_DIR",
    "llm": "PEPA_LLM",
    "pi_command": "PEPA_PI_COMMAND",
    "propose_command": "PEPA_PROPOSE_COMMAND",
    "propose_timeout": "PEPA_PROPOSE_TIMEOUT",
    "openai_url": "PEPA_OPENAI_URL",
    "openai_model": "PEPA_OPENAI_MODEL",
    "openai_key": "OPENAI_API_KEY",
    "llm_timeout": "PEPA_LLM_TIMEOUT",
    "db_url": "PEPA_DB_URL",
    "reflect_every": "PEPA_REFLECT_EVERY",
    "wiki_url": "PEPA_WIKI_URL",
    "fault_injection": "PEPA_FAULT_INJECTION",
    "curriculum": "PEPA_CURRICULUM",
    "learning": "PEPA_LEARNING",
    "first_blow": "PEPA_FIRST_BLOW",
    "sandbox": "PEPA_SANDBOX",
    "sandbox_profile": "PEPA_SANDBOX_PROFILE",
    "retention_days": "PEPA_RETENTION_DAYS",
    "log_max_mb": "PEPA_LOG_MAX_MB",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Config:
    """Every setting of one daemon, resolved and validated."""

    host: str | None = None
    """Minecraft server host; None plays in the embedded world."""
    port: int = 25565
    """Minecraft server port."""
    username: str = "pepa_bot"
    """The bot's name in the game."""
    version: str | None = None
    """Protocol version; None auto-detects."""
    password: str | None = field(default=None, repr=False)
    """AuthMe password (never logged)."""
    auth: str = "offline"
    """``offline``, or ``microsoft`` (an online-mode server: a device-code sign-in, its tokens in
    ``state/<host>_<port>/auth/``)."""
    chat_pattern: str = ""
    """A regular expression with the named groups ``name`` and ``text`` for a server whose chat
    plugin formats player lines its own way (in JavaScript's syntax; "": none)."""
    operators: tuple[str, ...] = ()
    """Players whose chat commands the bot obeys."""
    state_dir: Path = Path("state")
    """Root of every server's personal memory."""
    llm: str = "auto"
    """LLM back end: auto, pi, openai or offline."""
    pi_command: str = "pi"
    """The ``pi`` command (arguments allowed); ``-p PROMPT`` is appended."""
    propose_command: str = ""
    """``pepa propose apply``'s command, the prompt appended; empty: ``<pi_command> -p``."""
    propose_timeout: float = 1800.0
    """Seconds ``pepa propose apply`` gives its command."""
    openai_url: str | None = None
    """OpenAI-compatible base URL; None uses http://127.0.0.1:11434/v1 and ``auto`` skips openai."""
    openai_model: str = ""
    """Model name for the openai back end (empty: the server's default)."""
    openai_key: str | None = field(default=None, repr=False)
    """Bearer token for the openai back end (never logged)."""
    llm_timeout: float = 120.0
    """Seconds a post-mortem or next-action ask may take."""
    db_url: str | None = field(default=None, repr=False)
    """Knowledge base URL (``postgresql://…`` shared by a fleet); None: ``knowledge.db``."""
    reflect_every: float = 1800.0
    """Seconds between two reflections (0 turns reflection off)."""
    wiki_url: str = "https://minecraft.wiki"
    """Base URL of wiki lookups (``docs/wiki.md``); empty turns them off."""
    fault_injection: bool = False
    """Whether ``cmd:fault`` and injected faults are allowed."""
    curriculum: bool = True
    """Whether the bot works its plan by itself when nothing more urgent runs."""
    learning: bool = True
    """Whether lessons (and the places the bot died) change what it does (off: the gauntlet's
    control run)."""
    first_blow: bool = True
    """Whether the bridge strikes the first blow at a hostile the reflex chain armed it for
    (``docs/survival.md``); off, every swing goes through the reflex actor (benchmarks)."""
    sandbox: bool = True
    """The embedded world is the survival sandbox (terrain, crafting, drops); False: flat."""
    sandbox_profile: str = "vanilla"
    """The sandbox's profile (docs/sandbox.md "Profiles"): vanilla (the default), gentle or hard."""
    retention_days: int = 30
    """Days of chat, death bundles, danger points, reflections and logs kept
    (:mod:`pepa.state.retention`)."""
    log_max_mb: int = 200
    """MiB of daily log files kept; the oldest go first."""
    fleet: bool = False
    """One bot of a fleet (``pepa fleet``): its memory is ``<host>_<port>/<username>/``."""
    fellows: tuple[str, ...] = ()
    """The other bots of its fleet (its persona does not greet them)."""
    path_budget_ms: float = 0.0
    """Milliseconds of path search per 50 ms tick for all the bots of its process together
    (bot_helper.js); 0: the bridge's own (20). ``pepa fleet`` sets it (pepa.fleet.supervisor)."""

    @property
    def embedded(self) -> bool:
        """True when pepa must start its own world."""
        return self.host is None

    @property
    def server_root(self) -> Path:
        """The server's folder: ``<state root>/<host>_<port>/`` (its embedded world, a fleet)."""
        return self.state_dir / f"{self.host or EMBEDDED_HOST}_{self.port}"

    @property
    def server_dir(self) -> Path:
        """The bot's personal memory: the server's folder, or in a fleet its own under it."""
        return self.server_root / self.username if self.fleet else self.server_root

    @property
    def socket_path(self) -> Path:
        """The daemon's Unix socket."""
        return self.server_dir / "bot.sock"

    @property
    def llm_backend(self) -> str:
        """The back end ``auto`` stands for on this machine."""
        if self.llm != "auto":
            return self.llm
        if shutil.which((self.pi_command.split() or ["pi"])[0]):
            return "pi"
        return "openai" if self.openai_url else "offline"

    def redacted(self) -> dict[str, Any]:
        """The settings as plain values, the secrets masked (URLs' credentials too), for logs."""
        values = asdict(self)
        values["password"] = "***" if self.password else None
        values["openai_key"] = "***" if self.openai_key else None
        values["db_url"] = redact_url(self.db_url) if self.db_url else None
        http = self.openai_url, self.wiki_url
        values["openai_url"], values["wiki_url"] = (
            redact_url(url, keep_user=False) if url else url for url in http
        )
        values["state_dir"] = str(self.state_dir)
        values["operators"] = list(self.operators)
        return values

    def to_json(self) -> dict[str, Any]:
        """Plain values for handing the config to the worker process."""
        values = asdict(self)
        values["state_dir"] = str(self.state_dir)
        values["operators"] = list(self.operators)
        return values


def config_from_json(values: Mapping[str, Any]) -> Config:
    """Rebuild a :class:`Config` written by :meth:`Config.to_json`."""
    data = dict(values)
    data["state_dir"] = Path(data["state_dir"])
    data["operators"] = tuple(data.get("operators", ()))
    data["fellows"] = tuple(data.get("fellows", ()))
    return Config(**data)


def parse_dotenv(text: str, source: str = ".env") -> dict[str, str]:
    """Parse ``KEY=VALUE`` lines (``export``, quotes and ``#`` comments allowed)."""
    values: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[len("export ") :].lstrip()
        key, sep, value = line.partition("=")
        key = key.strip()
        if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
            raise ConfigError(f"{source} line {number}: expected KEY=VALUE, got {raw.strip()!r}")
        value = value.strip()
        if value[:1] in ("'", '"'):
            quote = value[0]
            end = value.find(quote, 1)
            if end < 0:
                raise ConfigError(f"{source} line {number}: unterminated {quote} quote")
            value = value[1:end]
        else:
            value = value.split(" #", 1)[0].strip()
        values[key] = value
    return values


def read_dotenv(path: Path) -> dict[str, str]:
    """Read ``.env`` at ``path``; a missing file is empty, an unreadable one an error."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from exc
    return parse_dotenv(text, str(path))


def resolve(
    flags: Mapping[str, Any],
    environ: Mapping[str, str] | None = None,
    dotenv: Mapping[str, str] | None = None,
) -> Config:
    """Merge flags > environment > .env > defaults into a validated :class:`Config`."""
    environ = os.environ if environ is None else environ
    dotenv = dotenv or {}

    def pick(name: str) -> Any:
        value = flags.get(name)
        if value is not None:
            return value
        var = _ENV[name]
        if var in environ:
            return environ[var]
        return dotenv.get(var)

    host = host_of(pick("host"))
    port = port_of(pick("port"))
    username = pick("username") or "pepa_bot"
    if not isinstance(username, str) or not USERNAME.fullmatch(username):
        raise ConfigError(
            f"username {username!r} is not a Minecraft name (3-16 letters, digits or _)"
        )
    version = pick("version") or None
    if version is not None and not _VERSION.fullmatch(version):
        raise ConfigError(f"version {version!r} is not a Minecraft version such as 1.16.5")
    sandbox = flag_of(pick("sandbox"), "PEPA_SANDBOX", default=True)
    if host is None:  # the embedded world runs the version: one it can run
        refusal = embedded_refusal(version or SANDBOX_VERSION, sandbox)
        if refusal is not None:
            raise ConfigError(refusal)
    operators = operators_of(pick("operators"))
    chat_pattern = chat_pattern_of(pick("chat_pattern"))
    auth = (pick("auth") or "offline").lower()
    if auth not in AUTH_CHOICES:
        raise ConfigError(f"MC_AUTH {str(auth)[:40]!r} is not one of {', '.join(AUTH_CHOICES)}")
    llm = (pick("llm") or "auto").lower()
    if llm not in LLM_CHOICES:
        raise ConfigError(f"LLM back end {llm!r} is not one of {', '.join(LLM_CHOICES)}")
    return Config(
        host=host,
        port=port,
        username=username,
        version=version,
        password=password_of(pick("password")),
        chat_pattern=chat_pattern,
        auth=auth,
        operators=operators,
        state_dir=Path(pick("state_dir") or "state"),
        llm=llm,
        pi_command=pick("pi_command") or "pi",
        propose_command=pick("propose_command") or "",
        propose_timeout=seconds_of(
            pick("propose_timeout"), "PEPA_PROPOSE_TIMEOUT", default=1800.0, low=1.0, high=86400.0
        ),
        openai_url=url_of(pick("openai_url")),
        openai_model=pick("openai_model") or "",
        openai_key=pick("openai_key") or None,
        llm_timeout=seconds_of(
            pick("llm_timeout"), "PEPA_LLM_TIMEOUT", default=120.0, low=1.0, high=3600.0
        ),
        db_url=db_url_of(pick("db_url")),
        reflect_every=seconds_of(
            pick("reflect_every"),
            "PEPA_REFLECT_EVERY",
            default=1800.0,
            low=10.0,
            high=86400.0,
            off=True,
        ),
        wiki_url=wiki_url_of(pick("wiki_url")),
        fault_injection=flag_of(pick("fault_injection")),
        curriculum=flag_of(pick("curriculum"), "PEPA_CURRICULUM", default=True),
        learning=flag_of(pick("learning"), "PEPA_LEARNING", default=True),
        first_blow=flag_of(pick("first_blow"), "PEPA_FIRST_BLOW", default=True),
        sandbox=sandbox,
        sandbox_profile=profile_of(pick("sandbox_profile")),
        retention_days=whole_of(
            pick("retention_days"), "PEPA_RETENTION_DAYS", default=30, low=1, high=3650, unit="days"
        ),
        log_max_mb=whole_of(
            pick("log_max_mb"), "PEPA_LOG_MAX_MB", default=200, low=1, high=1024 * 1024, unit="MiB"
        ),
    )
