"""Operator identity: the account, not the display text.

A chat command is obeyed only when its sender is an operator *account*:

* the sender's name, as the server attributed the line (never a name quoted
  in the text), is a Minecraft name — ``[A-Za-z0-9_]{1,16}`` on the raw text,
  so a fullwidth ``\\uff4f\\uff50`` or ``op\\u200b`` is nobody — and equals a configured
  operator name after NFKC normalisation and case folding of both sides;
* the sender is on the server's player list right now;
* on a server whose player list carries UUIDs (online mode, and offline mode
  too: flying-squid and vanilla derive ``OfflinePlayer:<name>`` UUIDs), the
  sender's UUID is the one bound to that operator name. The first UUID seen
  under the operator name *spelled exactly as configured* (after NFKC) — on
  the player list or in a chat line — is bound and kept in
  ``<server dir>/operators.json`` for good; another UUID under the name (a
  new account after an online-mode name change) is refused, with one
  warning per account. To move an operator to a new account, stop the
  daemon and delete its entry.
* a case variant of the configured spelling (``ALICE`` for ``alice``) is
  never bound: on an offline-mode server it is another account, and binding
  whoever joins first under it would lock the real operator out. It is
  refused, with one warning per account saying to configure the exact
  spelling if it is the operator's own account — unless its UUID is the one
  already bound (an online-mode account that changed its name's case).
* on a server that gives no UUIDs (the nil UUID), the exact spelling is all
  there is; a name that was bound on this server earlier is then refused.

Pure apart from ``operators.json``; :class:`OperatorAccounts` is owned by the
persona actor (one thread).
"""

from __future__ import annotations

import logging
import re
import unicodedata
import uuid as uuidlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from pepa.state.files import SchemaError, load, write_atomic

__all__ = [
    "NAME",
    "OperatorAccounts",
    "Verdict",
    "account_uuid",
    "fold",
    "same_name",
    "valid_name",
]

logger = logging.getLogger(__name__)

NAME = re.compile(r"[A-Za-z0-9_]{1,16}", re.ASCII)
"""A player name as a sender: checked on the raw text, before any normalisation."""
FILE_VERSION = 1
MAX_ACCOUNTS = 256
"""Bindings kept in ``operators.json`` (a file with more is not ours)."""
MAX_WARNED = 1024
"""Impostor warnings remembered (each given once); past that, no more are given."""


def valid_name(name: object) -> bool:
    """Whether ``name`` (raw, as the server sent it) is a Minecraft name."""
    return isinstance(name, str) and NAME.fullmatch(name) is not None


def fold(name: str) -> str:
    """The comparison key of a name: NFKC, then case folding."""
    return unicodedata.normalize("NFKC", name).casefold()


def same_name(a: object, b: object) -> bool:
    """Whether two raw names are the same player name (both valid, equal when folded)."""
    return valid_name(a) and valid_name(b) and fold(str(a)) == fold(str(b))


def account_uuid(value: object) -> str | None:
    """A UUID as the canonical lower-case dashed text; None for nil, absent or malformed."""
    if not isinstance(value, str) or not 32 <= len(value) <= 36:
        return None
    try:
        parsed = uuidlib.UUID(value)
    except ValueError:
        return None
    return None if parsed.int == 0 else str(parsed)


@dataclass(frozen=True, slots=True, kw_only=True)
class Verdict:
    """Whether one chat line's sender is an operator account, and why (for the log)."""

    allowed: bool
    reason: str


class OperatorAccounts:
    """Configured operator names and the accounts bound to them."""

    def __init__(self, operators: Iterable[str], path: Path | None = None) -> None:
        self.names = {fold(name): name for name in operators if valid_name(name)}
        self.path = path
        self.unreadable = False
        """``operators.json`` exists but cannot be read: no one is obeyed, nothing bound."""
        self.bound: dict[str, str] = self._load() if path is not None else {}
        self._warned: set[tuple[str, ...]] = set()

    # -- decisions --------------------------------------------------------------------

    def is_operator_name(self, name: object) -> bool:
        """Whether ``name`` is a configured operator's name (nothing about the account)."""
        return valid_name(name) and fold(str(name)) in self.names

    def is_configured_spelling(self, name: object) -> bool:
        """Whether ``name`` is an operator's name spelled exactly as configured (after NFKC)."""
        if not self.is_operator_name(name):
            return False
        configured = self.names[fold(str(name))]
        return unicodedata.normalize("NFKC", str(name)) == unicodedata.normalize("NFKC", configured)

    def seen(self, name: object, account: object) -> None:
        """A player on the server's list: the first account under the exact spelling is bound."""
        uid = account_uuid(account)
        if uid is None or not self.is_operator_name(name):
            return
        key = fold(str(name))
        bound = self.bound.get(key)
        if not self.is_configured_spelling(name):
            if bound != uid:  # the bound account under a new case of its name is no news
                self._warn_variant(str(name), uid)
        elif bound is None:
            self._bind(key, str(name), uid)
        elif bound != uid:
            self._warn_mismatch(str(name), uid, bound)

    def judge(self, sender: object, account: object, on_list: bool) -> Verdict:
        """Whether a line from ``sender`` (with that account, on the list or not) is obeyed."""
        if not valid_name(sender):
            return Verdict(allowed=False, reason=f"{sender!r} is not a Minecraft name")
        name = str(sender)
        key = fold(name)
        if key not in self.names:
            return Verdict(allowed=False, reason=f"{name} is not an operator")
        if self.unreadable and self.path is not None:
            self.bound = self._load()  # fail closed until the bindings can be read again
            if self.unreadable:
                return Verdict(allowed=False, reason=f"{self.path.name} cannot be read")
        if not on_list:
            return Verdict(allowed=False, reason=f"{name} is not on the player list")
        uid = account_uuid(account)
        bound = self.bound.get(key)
        if not self.is_configured_spelling(name):
            if uid is not None and uid == bound:
                reason = f"{name} (account {uid}, bound as {self.names[key]})"
                return Verdict(allowed=True, reason=reason)
            self._warn_variant(name, uid)
            return Verdict(
                allowed=False,
                reason=f"{name} is not the configured spelling {self.names[key]}",
            )
        if uid is None:
            if bound is not None:
                return Verdict(
                    allowed=False, reason=f"{name} has no account to match its binding {bound}"
                )
            return Verdict(allowed=True, reason=f"{name} (by name: the server gives no UUIDs)")
        if bound is None:
            self._bind(key, name, uid)
            return Verdict(allowed=True, reason=f"{name} (account {uid}, bound now)")
        if bound != uid:
            self._warn_mismatch(name, uid, bound)
            return Verdict(allowed=False, reason=f"{name}'s account {uid} is not the bound {bound}")
        return Verdict(allowed=True, reason=f"{name} (account {uid})")

    # -- bindings -----------------------------------------------------------------------

    def _bind(self, key: str, name: str, uid: str) -> None:
        if self.unreadable:
            return  # saving now would replace the bindings that cannot be read
        self.bound[key] = uid
        logger.info("operator %s is bound to account %s", name, uid)
        self._save()

    def _warn_mismatch(self, name: str, uid: str, bound: str) -> None:
        if not self._first_warning("account", fold(name), uid):
            return
        logger.warning(
            "player %s (account %s) is not operator %s's bound account %s: never obeyed",
            name, uid, self.names.get(fold(name), name), bound,
        )  # fmt: skip

    def _warn_variant(self, name: str, uid: str | None) -> None:
        if not self._first_warning("spelling", name, uid or ""):
            return
        configured = self.names.get(fold(name), name)
        logger.warning(
            "player %s (account %s) is not operator %s: only the configured spelling %s is "
            "bound and obeyed; if %s is the operator's own account, configure that exact spelling",
            name, uid or "none", configured, configured, name,
        )  # fmt: skip

    def _first_warning(self, *key: str) -> bool:
        """Whether this warning was not given yet (at most :data:`MAX_WARNED` are remembered)."""
        if key in self._warned or len(self._warned) >= MAX_WARNED:
            return False
        self._warned.add(key)
        return True

    def _load(self) -> dict[str, str]:
        """The bindings on disk; a bad file is moved aside (no bindings).

        A file that cannot be read (EACCES, EMFILE, EIO …) fails closed: it is
        left in place, :attr:`unreadable` is set, one warning says so, and
        :meth:`judge` obeys no one and binds nothing until a later read succeeds.
        """
        assert self.path is not None
        try:
            bound = load(
                self.path, OPERATORS_FILE, {}, log=logger, then="starting with no bindings",
                unreadable="raise",
            )  # fmt: skip
        except OSError as exc:
            if not self.unreadable:
                logger.warning(
                    "%s cannot be read (%s): no operator is obeyed until it can be",
                    self.path.name, exc.strerror or exc,
                )  # fmt: skip
            self.unreadable = True
            return {}
        if self.unreadable:
            logger.info("%s can be read again: operators are obeyed", self.path.name)
        self.unreadable = False
        return bound

    def _save(self) -> None:
        if self.path is None:
            return
        data = {"version": FILE_VERSION, "accounts": dict(sorted(self.bound.items()))}
        try:
            write_atomic(self.path, orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n")
        except OSError as exc:
            logger.warning("cannot write %s: %s (the binding holds until restart)", self.path, exc)


@dataclass(frozen=True, slots=True)
class _OperatorsFile:
    """``operators.json``: ``{"version": 1, "accounts": {folded name: uuid}}``."""

    max_bytes: int = 64 * 1024
    empty_ok: bool = False

    def parse(self, raw: bytes) -> dict[str, str]:
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise SchemaError("", f"is not JSON ({exc})") from None
        problem = _problem(data)
        if problem is not None:
            raise SchemaError("", problem)
        return dict(data["accounts"])


OPERATORS_FILE = _OperatorsFile()
"""How :mod:`pepa.state.files` reads ``operators.json`` (a bad one is moved aside)."""


def _problem(data: Any) -> str | None:
    """What is wrong with the contents of ``operators.json``; None when it is sound."""
    if not isinstance(data, dict) or set(data) != {"version", "accounts"}:
        return "not an object with exactly version and accounts"
    if data["version"] != FILE_VERSION:
        return f"field version is {data['version']!r}, not {FILE_VERSION}"
    accounts = data["accounts"]
    if not isinstance(accounts, dict) or len(accounts) > MAX_ACCOUNTS:
        return f"field accounts is not an object of at most {MAX_ACCOUNTS} entries"
    for key, value in accounts.items():
        if not valid_name(key) or fold(key) != key:
            return f"field accounts has a key {key!r} that is not a folded Minecraft name"
        if not isinstance(value, str) or account_uuid(value) != value:
            return f"field accounts.{key} is not a lower-case UUID"
    return None
