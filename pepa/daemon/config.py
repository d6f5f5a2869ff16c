"""Configuration: command-line flags, then environment, then ``.env``, then defaults.

:func:`resolve` is pure (it takes the flags, the environment and the text of
``.env`` as values) and raises :class:`ConfigError` with one clear line for
anything it cannot use.
"""

from __future__ import annotations

import ipaddress
import os
import re
import shutil
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pepa.base.errors import ConfigError
from pepa.base.urls import redact_url
from pepa.game.versions import SANDBOX_VERSION, embedded_refusal
from pepa.worldserver import PROFILES

__all__ = [
    "AUTH_CHOICES",
    "EMBEDDED_HOST",
    "LLM_CHOICES",
    "SANDBOX_PROFILES",
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
SANDBOX_PROFILES = PROFILES
"""The sandbox's profiles (:data:`pepa.worldserver.PROFILES`)."""
_USERNAME = re.compile(r"[A-Za-z0-9_]{3,16}")
"""A Minecraft name, matched whole (``fullmatch``: a trailing newline is not a name)."""
_VERSION = re.compile(r"1\.[0-9]+(\.[0-9]+)?")
_LABEL = re.compile(r"(?!-)[A-Za-z0-9_-]{1,63}(?<!-)")
"""One host name label: RFC 1123, plus ``_`` (Docker service names such as ``mc_server``)."""
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}

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
    sandbox_profile: str = "default"
    """The sandbox's profile (docs/sandbox.md "Profiles"): default, or hard."""
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

    host = _host(pick("host"))
    port = _port(pick("port"))
    username = pick("username") or "pepa_bot"
    if not isinstance(username, str) or not _USERNAME.fullmatch(username):
        raise ConfigError(
            f"username {username!r} is not a Minecraft name (3-16 letters, digits or _)"
        )
    version = pick("version") or None
    if version is not None and not _VERSION.fullmatch(version):
        raise ConfigError(f"version {version!r} is not a Minecraft version such as 1.16.5")
    sandbox = _flag(pick("sandbox"), "PEPA_SANDBOX", default=True)
    if host is None:  # the embedded world runs the version: one it can run
        refusal = embedded_refusal(version or SANDBOX_VERSION, sandbox)
        if refusal is not None:
            raise ConfigError(refusal)
    operators = _operators(pick("operators"))
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
        password=_password(pick("password")),
        chat_pattern=chat_pattern,
        auth=auth,
        operators=operators,
        state_dir=Path(pick("state_dir") or "state"),
        llm=llm,
        pi_command=pick("pi_command") or "pi",
        propose_command=pick("propose_command") or "",
        propose_timeout=_seconds(
            pick("propose_timeout"), "PEPA_PROPOSE_TIMEOUT", default=1800.0, low=1.0, high=86400.0
        ),
        openai_url=_url(pick("openai_url")),
        openai_model=pick("openai_model") or "",
        openai_key=pick("openai_key") or None,
        llm_timeout=_seconds(
            pick("llm_timeout"), "PEPA_LLM_TIMEOUT", default=120.0, low=1.0, high=3600.0
        ),
        db_url=_db_url(pick("db_url")),
        reflect_every=_seconds(
            pick("reflect_every"),
            "PEPA_REFLECT_EVERY",
            default=1800.0,
            low=10.0,
            high=86400.0,
            off=True,
        ),
        wiki_url=_wiki_url(pick("wiki_url")),
        fault_injection=_flag(pick("fault_injection")),
        curriculum=_flag(pick("curriculum"), "PEPA_CURRICULUM", default=True),
        learning=_flag(pick("learning"), "PEPA_LEARNING", default=True),
        first_blow=_flag(pick("first_blow"), "PEPA_FIRST_BLOW", default=True),
        sandbox=sandbox,
        sandbox_profile=_profile(pick("sandbox_profile")),
        retention_days=_whole(
            pick("retention_days"), "PEPA_RETENTION_DAYS", default=30, low=1, high=3650, unit="days"
        ),
        log_max_mb=_whole(
            pick("log_max_mb"), "PEPA_LOG_MAX_MB", default=200, low=1, high=1024 * 1024, unit="MiB"
        ),
    )


def _profile(value: Any) -> str:
    """A name of :data:`SANDBOX_PROFILES` (any case); empty: ``default``."""
    if value is None or value == "":
        return "default"
    name = str(value).lower()
    if name not in SANDBOX_PROFILES:
        raise ConfigError(f"sandbox profile {value!r} is not one of {', '.join(SANDBOX_PROFILES)}")
    return name


def _port(value: Any) -> int:
    if value is None or value == "":
        return 25565
    if isinstance(value, str) and not re.fullmatch(r"[0-9]{1,5}", value):
        raise ConfigError(f"port {value!r} is not a number")
    try:
        port = int(value)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"port {value!r} is not a number") from exc
    if not 1 <= port <= 65535:
        raise ConfigError(f"port {port} is out of range (1-65535)")
    return port


def _operators(value: Any) -> tuple[str, ...]:
    """Comma-separated names; spaces around the commas are allowed, nothing else stray."""
    if not value:
        return ()
    names = [str(n) for n in value] if isinstance(value, list | tuple) else str(value).split(",")
    cleaned = tuple(dict.fromkeys(n.strip(" ") for n in names if n.strip(" ")))
    for name in cleaned:
        if not _USERNAME.fullmatch(name):
            raise ConfigError(
                f"operator {name!r} is not a Minecraft name (3-16 letters, digits or _)"
            )
    return cleaned


def _password(value: Any) -> str | None:
    """The AuthMe password: it goes into ``/login <password>``, so one word of printable text."""
    if not value:
        return None
    text = str(value)
    if any(char.isspace() or not char.isprintable() or char == "§" for char in text):
        raise ConfigError("MC_PASSWORD has a space, a line break, a § or a control character")
    return text


def _host(value: Any) -> str | None:
    """A host name (RFC 1123 labels) or an IPv4/IPv6 address: it becomes a folder name."""
    if value is None or value == "":
        return None
    text = str(value)
    if len(text) > 253:
        raise ConfigError(f"host {text[:40]!r}… is longer than 253 characters")
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        pass
    else:
        if isinstance(address, ipaddress.IPv6Address) and address.scope_id is not None:
            raise ConfigError(f"host {text!r}: an IPv6 zone (%…) cannot be part of a folder name")
        return text
    labels = text.split(".")
    if ":" in text or not all(_LABEL.fullmatch(label) for label in labels):
        raise ConfigError(f"host {text!r} is not a host name or an IP address")
    if labels[-1].isdigit():
        raise ConfigError(f"host {text!r} is not a host name or an IP address (numeric last label)")
    return text


def _url(value: Any) -> str | None:
    if not value:
        return None
    text = str(value).strip().rstrip("/")
    if not re.match(r"^https?://[^/\s]+", text):
        raise ConfigError(
            f"PEPA_OPENAI_URL {redact_url(str(value), keep_user=False)!r} is not an http(s) URL"
        )
    return text


def _wiki_url(value: Any) -> str:
    if value is None:
        return "https://minecraft.wiki"
    text = str(value).strip().rstrip("/")
    if text and not re.match(r"^https?://[^/\s?#]+(/[^\s?#]*)?$", text):
        shown = redact_url(str(value), keep_user=False)
        raise ConfigError(f"PEPA_WIKI_URL {shown!r} is not an http(s) URL (empty: no lookups)")
    return text


def _db_url(value: Any) -> str | None:
    if not value:
        return None
    text = str(value).strip()
    if not re.match(r"^(sqlite:///|postgres(ql)?://)\S+$", text):
        raise ConfigError(
            f"PEPA_DB_URL {redact_url(text)!r} is not sqlite:///path or postgresql://user@host/db"
        )
    return text


def _seconds(
    value: Any, var: str, *, default: float, low: float, high: float, off: bool = False
) -> float:
    """A number of seconds in [low, high]; ``off``: 0 is allowed too (it turns a timer off)."""
    if value is None or value == "":
        return default
    try:
        seconds = float(value)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{var} {value!r} is not a number of seconds") from exc
    if not (low <= seconds <= high or (off and seconds == 0)):
        span = f"0 = off, {low:g}-{high:g} s" if off else f"{low:g}-{high:g} s"
        raise ConfigError(f"{var} {seconds:g} is out of range ({span})")
    return seconds


def _whole(value: Any, var: str, *, default: int, low: int, high: int, unit: str) -> int:
    """A whole number in [low, high]."""
    if value is None or value == "":
        return default
    text = str(value)
    if not re.fullmatch(r"[0-9]{1,12}", text):  # no sign, space, newline or other digits
        raise ConfigError(f"{var} {value!r} is not a whole number of {unit}")
    number = int(text)
    if not low <= number <= high:
        raise ConfigError(f"{var} {number} is out of range ({low}-{high} {unit})")
    return number


def _flag(value: Any, var: str = "PEPA_FAULT_INJECTION", *, default: bool = False) -> bool:
    if isinstance(value, bool):
        return value
    text = "" if value is None else str(value).strip().lower()
    if not text:
        return default
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ConfigError(f"{var}={value!r} is not a yes/no value")


MAX_CHAT_PATTERN = 200
"""Characters of a --chat-pattern."""
_NAMED_GROUP = re.compile(r"\(\?P?<(?![=!])")


def chat_pattern_of(value: Any) -> str:
    """A --chat-pattern (PEPA_CHAT_PATTERN) checked, in JavaScript's syntax; "" for none.

    It must compile, name the groups ``name`` (the sender) and ``text`` (what they said),
    and stay under :data:`MAX_CHAT_PATTERN` characters. Python's ``(?P<name>`` is accepted and
    written as JavaScript's ``(?<name>``. The line is matched from its start (the JS side
    anchors it): a pattern cannot pick a name out of the middle of someone else's line.
    """
    if value is None or value == "":
        return ""
    shown = str(value)[:60]
    if not isinstance(value, str) or len(value) > MAX_CHAT_PATTERN or not value.isprintable():
        raise ConfigError(
            f"PEPA_CHAT_PATTERN {shown!r} is not a line of at most {MAX_CHAT_PATTERN} characters"
        )
    js = _NAMED_GROUP.sub("(?<", value)
    try:
        compiled = re.compile(_NAMED_GROUP.sub("(?P<", js))
    except re.error as exc:
        raise ConfigError(
            f"PEPA_CHAT_PATTERN {shown!r} is not a regular expression: {exc}"
        ) from None
    problem = _js_regex_problem(js)
    if problem:
        raise ConfigError(f"PEPA_CHAT_PATTERN {shown!r} is not a JavaScript regular expression: "
                          f"{problem}")  # fmt: skip
    if not {"name", "text"} <= set(compiled.groupindex):
        raise ConfigError(
            f"PEPA_CHAT_PATTERN {shown!r} must name the groups 'name' and 'text', "
            r"as in '\[\w+\] (?<name>\w+) » (?<text>.*)'"
        )
    return js


def _js_regex_problem(source: str) -> str:
    """Why Node's RegExp refuses ``source`` (the bridge compiles it: the two dialects differ,
    ``(?i)`` or ``[]`` mean other things or nothing there); "" when it compiles, or when no
    Node is at hand to ask (the bridge then refuses it with the same message)."""
    import subprocess

    from pepa.base.node import WorldError, node_binary

    try:
        node = node_binary()
        check = "try { new RegExp(process.argv[1], 'sy') } catch (e) { console.log(e.message) }"
        result = subprocess.run(
            [str(node), "-e", check, source], capture_output=True, text=True, timeout=20,
            env={"PATH": "/usr/bin:/bin"},
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError, WorldError):
        return ""
    return result.stdout.strip()[:120]
