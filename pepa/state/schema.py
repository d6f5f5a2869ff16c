"""The value schemas of pepa's state files: small declarative specs, checked as data. Pure.

A spec (:class:`Str`, :class:`Int`, :class:`Num`, :class:`Stamp`,
:class:`OneOf`, :class:`ListOf`, :class:`TupleOf`, :class:`MapOf`,
:class:`Obj`, :class:`Tagged`) checks one decoded value and returns it, or
raises :class:`SchemaError` naming the field and what is wrong with it. How a
file is read, and what happens when it fails, is :mod:`pepa.state.files`.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = [
    "DAY",
    "Int",
    "ListOf",
    "MapOf",
    "Num",
    "Obj",
    "OneOf",
    "SchemaError",
    "Spec",
    "Stamp",
    "Str",
    "Tagged",
    "TupleOf",
    "show",
]

DAY = 86400.0
"""Seconds a saved wall-clock time may lie ahead of the clock before the file counts as bad."""


class SchemaError(ValueError):
    """A value that does not fit its schema; ``where`` is the field path (empty: the top).

    ``line``: ``where`` is a line number of a text file, not a field.
    """

    def __init__(self, where: str, problem: str, *, line: bool = False) -> None:
        if line:
            text = f"line {where}: {problem}"
        else:
            text = f'field "{where}" {problem}' if where else problem
        super().__init__(text)
        self.where = where
        self.problem = problem


def show(value: Any, limit: int = 60) -> str:
    """A short, escaped rendering of a value for a warning (bounded depth and length)."""
    text = _show(value, 3)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _show(value: Any, depth: int) -> str:
    if isinstance(value, list):
        if depth == 0:
            return "[…]"
        inner = ", ".join(_show(v, depth - 1) for v in value[:5])
        return f"[{inner}{', …' if len(value) > 5 else ''}]"
    if isinstance(value, dict):
        if depth == 0:
            return "{…}"
        pairs = list(value.items())[:5]
        inner = ", ".join(f"{_show(k, 0)}: {_show(v, depth - 1)}" for k, v in pairs)
        return f"{{{inner}{', …' if len(value) > 5 else ''}}}"
    if isinstance(value, str):
        return repr(value[:80])
    if value is None or isinstance(value, bool | int | float):
        return repr(value) if not isinstance(value, int) or abs(value) < 10**30 else "a huge int"
    return type(value).__name__


def _join(where: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{where}[{key}]"
    return f"{where}.{key}" if where else key


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
"""Control characters (Unicode Cc) and the line and paragraph separators."""

# -- value specs --------------------------------------------------------------------------


class Spec(Protocol):
    """Checks one JSON value; returns it (normalised) or raises :class:`SchemaError`."""

    def check(self, value: Any, where: str) -> Any:
        """The value, checked."""
        ...

    def describe(self) -> str:
        """What the value must be, for a warning (``an integer between 0 and 10``)."""
        ...


def _fail(spec: Spec, value: Any, where: str) -> SchemaError:
    return SchemaError(where, f"must be {spec.describe()}, got {show(value)}")


@dataclass(frozen=True, slots=True, kw_only=True)
class Str:
    """A string: at most ``max_len`` characters, no control characters, ``pattern`` if given.

    ``clamp``: too long is cut and control characters become spaces, instead of failing
    (for free text such as an exit reason). ``known`` rejects strings it returns False for.
    """

    max_len: int
    pattern: str | None = None
    what: str = ""
    clamp: bool = False
    known: Callable[[str], bool] | None = None

    def describe(self) -> str:
        shape = f" matching {self.pattern}" if self.pattern else ""
        return self.what or f"a string of at most {self.max_len} characters{shape}"

    def check(self, value: Any, where: str) -> str:
        if not isinstance(value, str):
            raise _fail(self, value, where)
        if self.clamp:
            cleaned = _CONTROL.sub(" ", value[: self.max_len])
            return cleaned + ("…" if len(value) > self.max_len else "")
        if len(value) > self.max_len:
            raise SchemaError(where, f"must be at most {self.max_len} characters, got {len(value)}")
        if _CONTROL.search(value) is not None:
            raise SchemaError(where, f"must not hold control characters, got {show(value)}")
        if self.pattern is not None and re.fullmatch(self.pattern, value) is None:
            raise _fail(self, value, where)
        if self.known is not None and not self.known(value):
            raise SchemaError(where, f"names nothing known: {show(value)}")
        return value


@dataclass(frozen=True, slots=True, kw_only=True)
class Int:
    """An integer in ``[lo, hi]`` (a bool is not one; neither is 3.0)."""

    lo: int
    hi: int

    def describe(self) -> str:
        return f"an integer between {self.lo} and {self.hi}"

    def check(self, value: Any, where: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not self.lo <= value <= self.hi:
            raise _fail(self, value, where)
        return value


@dataclass(frozen=True, slots=True, kw_only=True)
class Num:
    """A finite number in ``[lo, hi]``, as a float."""

    lo: float
    hi: float

    def describe(self) -> str:
        return f"a number between {self.lo:g} and {self.hi:g}"

    def check(self, value: Any, where: str) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _fail(self, value, where)
        number = float(value)
        if not math.isfinite(number) or not self.lo <= number <= self.hi:
            raise _fail(self, value, where)
        return number


@dataclass(frozen=True, slots=True, kw_only=True)
class Stamp:
    """A wall-clock time (seconds since the epoch) not more than ``ahead`` in the future.

    A time a little ahead (the clock went back) is clamped to now, so a saved
    cooldown can never last longer than it would have from now; one further
    ahead is corruption and fails.
    """

    ahead: float = DAY

    def describe(self) -> str:
        return f"a time (seconds since 1970, at most {self.ahead:g}s ahead of the clock)"

    def check(self, value: Any, where: str) -> float:
        now = time.time()
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _fail(self, value, where)
        stamp = float(value)
        if not math.isfinite(stamp) or not 0.0 <= stamp <= now + self.ahead:
            raise _fail(self, value, where)
        return min(stamp, now)


@dataclass(frozen=True, slots=True, kw_only=True)
class OneOf:
    """One of a few strings."""

    values: tuple[str, ...]

    def describe(self) -> str:
        return "one of " + ", ".join(self.values)

    def check(self, value: Any, where: str) -> str:
        if not isinstance(value, str) or value not in self.values:
            raise _fail(self, value, where)
        return value


@dataclass(frozen=True, slots=True, kw_only=True)
class ListOf:
    """A list of at most ``max_len`` values of ``item``."""

    item: Spec
    max_len: int

    def describe(self) -> str:
        return f"a list of at most {self.max_len} values, each {self.item.describe()}"

    def check(self, value: Any, where: str) -> list[Any]:
        if not isinstance(value, list):
            raise _fail(self, value, where)
        if len(value) > self.max_len:
            raise SchemaError(where, f"must hold at most {self.max_len} values, got {len(value)}")
        return [self.item.check(v, _join(where, i)) for i, v in enumerate(value)]


@dataclass(frozen=True, slots=True, kw_only=True)
class TupleOf:
    """A list of exactly ``len(items)`` values, each of its own spec."""

    items: tuple[Spec, ...]

    def describe(self) -> str:
        return "a list [" + ", ".join(s.describe() for s in self.items) + "]"

    def check(self, value: Any, where: str) -> tuple[Any, ...]:
        if not isinstance(value, list) or len(value) != len(self.items):
            raise _fail(self, value, where)
        return tuple(
            s.check(v, _join(where, i))
            for i, (s, v) in enumerate(zip(self.items, value, strict=True))
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class MapOf:
    """An object of at most ``max_len`` entries, keys checked by ``key``, values by ``value``."""

    key: Str
    value: Spec
    max_len: int

    def describe(self) -> str:
        return f"an object of at most {self.max_len} entries"

    def check(self, value: Any, where: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise _fail(self, value, where)
        if len(value) > self.max_len:
            raise SchemaError(where, f"must hold at most {self.max_len} entries, got {len(value)}")
        out = {}
        for k, v in value.items():
            name = self.key.check(k, _join(where, f"<key {show(k, 30)}>"))
            out[name] = self.value.check(v, _join(where, name))
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class Obj:
    """An object with ``required`` and ``optional`` fields; other fields are dropped."""

    required: Mapping[str, Spec] = field(default_factory=dict)
    optional: Mapping[str, Spec] = field(default_factory=dict)

    def describe(self) -> str:
        return "an object"

    def check(self, value: Any, where: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise _fail(self, value, where)
        out = {}
        for name, spec in self.required.items():
            if name not in value:
                raise SchemaError(_join(where, name), "is missing")
            out[name] = spec.check(value[name], _join(where, name))
        for name, spec in self.optional.items():
            if name in value:
                out[name] = spec.check(value[name], _join(where, name))
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class Tagged:
    """An object whose ``tag`` field picks its shape: ``{"kind": "come", …}``."""

    tag: str
    variants: Mapping[str, Obj]

    def describe(self) -> str:
        return f"an object with {self.tag!r} one of " + ", ".join(self.variants)

    def check(self, value: Any, where: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise _fail(self, value, where)
        kind = OneOf(values=tuple(self.variants)).check(value.get(self.tag), _join(where, self.tag))
        return {self.tag: kind, **self.variants[kind].check(value, where)}
