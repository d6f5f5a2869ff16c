"""What a fleet is: its bots, their goals and operators, how many share a process.

Read from a fleet file (TOML) or made from ``pepa fleet --bots N``. Pure:
no file is touched here but the one read, and every mistake is a
:class:`~pepa.base.errors.ConfigError` with one line that names the key::

    group = 8                     # bots per worker process (1-64, default 8)
    nice = 10                     # the workers' CPU priority below normal (0-19; default 10
                                  # beside the embedded world, else 0)
    operators = ["alice"]         # every bot's operators, beside --operators

    [server]                      # as --host/--port/--version; none: the embedded world
    host = "mc.example.org"
    port = 25565

    [bots]                        # bots named by number: pepa_1 … pepa_4
    count = 4
    prefix = "pepa_"

    [[bot]]                       # a bot of its own: a name, a goal, more operators
    name = "miner"
    goal = "an iron pickaxe"
    operators = ["bob"]
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pepa.base.errors import ConfigError
from pepa.state.plans import clean_goal

__all__ = [
    "EMBEDDED_NICE",
    "MAX_BOTS",
    "MAX_GROUP",
    "BotSpec",
    "FleetSpec",
    "fleet_of_count",
    "read_fleet_file",
]

MAX_BOTS = 256
"""Bots one ``pepa fleet`` runs at most."""
MAX_GROUP = 64
"""Bots one worker process hosts at most."""
DEFAULT_GROUP = 8
"""Bots per worker process: one JS bridge and one Python process for eight bots (docs/fleet.md)."""
MAX_NICE = 19
"""The lowest CPU priority a worker can be given (``nice``, as the ``nice`` command's)."""
EMBEDDED_NICE = 10
"""The workers' nice when the fleet runs the embedded world and none is set: the world the
bots share gets the CPU first. 32 working bots starved it (docs/fleet.md)."""
MAX_FILE_BYTES = 1024 * 1024

_NAME = re.compile(r"[A-Za-z0-9_]{3,16}")
_PREFIX = re.compile(r"[A-Za-z0-9_]{1,14}")
_TOP = {"group", "nice", "operators", "server", "bots", "bot"}
_SERVER = {"host", "port", "version"}
_BOTS = {"count", "prefix"}
_BOT = {"name", "goal", "operators"}


@dataclass(frozen=True, slots=True, kw_only=True)
class BotSpec:
    """One bot of the fleet."""

    name: str
    """Its Minecraft name, and the name of its memory folder."""
    goal: str = ""
    """Written to its ``goal.md`` when different (""; the bot keeps its own goal)."""
    operators: tuple[str, ...] = ()
    """Operators of this bot beside the fleet's."""


@dataclass(frozen=True, slots=True, kw_only=True)
class FleetSpec:
    """Every bot, how many share a worker process, and the server settings the file names."""

    bots: tuple[BotSpec, ...]
    group: int = DEFAULT_GROUP
    operators: tuple[str, ...] = ()
    """Every bot's operators (beside ``--operators``)."""
    server: dict[str, Any] | None = None
    """``host``, ``port``, ``version`` from the file's ``[server]`` (flags win over them)."""
    nice: int | None = None
    """How far below normal the workers' CPU priority is (0-19): a fleet beside its server on
    a busy machine leaves the server the CPU first (docs/fleet.md). None: not set
    (:meth:`worker_nice`)."""

    def worker_nice(self, *, embedded: bool) -> int:
        """The nice set, else :data:`EMBEDDED_NICE` beside the embedded world, else 0 (another
        server's machine is not the fleet's to judge)."""
        if self.nice is not None:
            return self.nice
        return EMBEDDED_NICE if embedded else 0

    def groups(self) -> list[tuple[BotSpec, ...]]:
        """The bots split into worker processes of at most :attr:`group`, in order."""
        return [self.bots[i : i + self.group] for i in range(0, len(self.bots), self.group)]


def fleet_of_count(
    count: int, prefix: str, *, group: int = DEFAULT_GROUP, nice: int | None = None
) -> FleetSpec:
    """``--bots N``: N bots named ``<prefix>1`` … ``<prefix>N``."""
    bots = _numbered(count, prefix, "--bots")
    return _spec(bots, group=group, nice=nice, operators=(), server=None)


def read_fleet_file(path: Path, *, group: int | None = None, nice: int | None = None) -> FleetSpec:
    """Parse a fleet file; ``group`` (``--group``) and ``nice`` (``--nice``) win over its own."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read the fleet file {path}: {exc.strerror or exc}") from exc
    if len(raw) > MAX_FILE_BYTES:
        raise ConfigError(f"the fleet file {path} is larger than {MAX_FILE_BYTES} bytes")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"the fleet file {path} is not valid TOML: {exc}") from exc
    where = f"the fleet file {path}"
    _only(data, _TOP, where)
    server = _table(data, "server", where)
    _only(server, _SERVER, f"{where} [server]")
    numbered = _table(data, "bots", where)
    _only(numbered, _BOTS, f"{where} [bots]")
    entries = data.get("bot", [])
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise ConfigError(f"{where}: `bot` must be [[bot]] tables")
    bots: list[BotSpec] = []
    for i, entry in enumerate(entries, 1):
        at = f"{where} [[bot]] #{i}"
        _only(entry, _BOT, at)
        name = entry.get("name")
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise ConfigError(f"{at}: name {name!r} is not a Minecraft name (3-16 letters, …)")
        goal = entry.get("goal", "")
        if not isinstance(goal, str):
            raise ConfigError(f"{at}: goal must be a string")
        bots.append(
            BotSpec(
                name=name,
                goal=clean_goal(goal),
                operators=_names(entry.get("operators", []), f"{at} operators"),
            )
        )
    if numbered:
        prefix = numbered.get("prefix", "pepa_")
        if not isinstance(prefix, str) or not _PREFIX.fullmatch(prefix):
            raise ConfigError(f"{where} [bots]: prefix {prefix!r} must be 1-14 letters, … or _")
        count = numbered.get("count")
        if not isinstance(count, int) or isinstance(count, bool):
            raise ConfigError(f"{where} [bots]: count must be a whole number")
        bots += _numbered(count, prefix, f"{where} [bots] count")
    size = data.get("group", DEFAULT_GROUP) if group is None else group
    if not isinstance(size, int) or isinstance(size, bool):
        raise ConfigError(f"{where}: group must be a whole number")
    lower = data.get("nice") if nice is None else nice
    if lower is not None and (not isinstance(lower, int) or isinstance(lower, bool)):
        raise ConfigError(f"{where}: nice must be a whole number")
    return _spec(
        bots,
        group=size,
        nice=lower,
        operators=_names(data.get("operators", []), f"{where} operators"),
        server=server or None,
    )


def _spec(
    bots: list[BotSpec],
    *,
    group: int,
    nice: int | None,
    operators: tuple[str, ...],
    server: dict[str, Any] | None,
) -> FleetSpec:
    if not bots:
        raise ConfigError("a fleet needs at least one bot ([[bot]] entries, [bots] count, --bots)")
    if len(bots) > MAX_BOTS:
        raise ConfigError(f"a fleet runs at most {MAX_BOTS} bots, not {len(bots)}")
    seen: set[str] = set()
    for bot in bots:
        key = bot.name.lower()  # the server treats names without case
        if key in seen:
            raise ConfigError(f"the bot name {bot.name!r} appears twice in the fleet")
        seen.add(key)
    if not 1 <= group <= MAX_GROUP:
        raise ConfigError(f"group must be between 1 and {MAX_GROUP} bots per process, not {group}")
    if nice is not None and not 0 <= nice <= MAX_NICE:
        raise ConfigError(f"nice must be between 0 and {MAX_NICE}, not {nice}")
    return FleetSpec(bots=tuple(bots), group=group, nice=nice, operators=operators, server=server)


def _numbered(count: int, prefix: str, what: str) -> list[BotSpec]:
    if not 1 <= count <= MAX_BOTS:
        raise ConfigError(f"{what} must be between 1 and {MAX_BOTS}, not {count}")
    names = [f"{prefix}{i}" for i in range(1, count + 1)]
    for name in names:
        if not _NAME.fullmatch(name):
            raise ConfigError(f"{what}: {name!r} is not a Minecraft name (3-16 letters, …)")
    return [BotSpec(name=name) for name in names]


def _only(table: dict[str, Any], allowed: set[str], where: str) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise ConfigError(
            f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(allowed))})"
        )


def _table(data: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: `{key}` must be a table ([{key}])")
    return value


def _names(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
        raise ConfigError(f"{where} must be a list of names")
    for name in value:
        if not _NAME.fullmatch(name):
            raise ConfigError(f"{where}: {name!r} is not a Minecraft name (3-16 letters, …)")
    return tuple(dict.fromkeys(value))
