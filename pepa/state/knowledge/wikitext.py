"""Pure parts of wiki lookups: titles, cache freshness, wikitext, robots.txt rules.

No clock, socket or database here: each function takes values and returns
values (``now`` is an argument). :mod:`pepa.state.knowledge.wiki` does the I/O.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal
from urllib.parse import quote, unquote, urlsplit, urlunsplit
from urllib.robotparser import RobotFileParser

__all__ = [
    "SUMMARY_CHARS",
    "TTL",
    "CachedPage",
    "freshness",
    "normalise_title",
    "page_path",
    "plain_text",
    "redirect_target",
    "robots_allowed",
    "summarise",
]

TTL = timedelta(days=7)
"""A cached page younger than this is used without asking the wiki."""
SUMMARY_CHARS = 600
"""Longest summary."""
_SAFE = "/:()!*,;@$~'"
"""Characters MediaWiki leaves unquoted in a title."""
_BAD_TITLE = re.compile(r"[#<>\[\]|{}\x00-\x1f\x7f]")


@dataclass(frozen=True, slots=True, kw_only=True)
class CachedPage:
    """A page as ``wiki_pages`` holds it."""

    title: str
    """The normalised title (``Iron_Ingot``)."""
    etag: str | None
    """The ETag the wiki sent with it, if any."""
    body: str
    """The raw wikitext."""
    fetched_at: datetime
    """When it was fetched or last confirmed unchanged (naive UTC)."""


def normalise_title(title: str) -> str:
    """``" iron  ingot"`` → ``"Iron_ingot"``: MediaWiki's form; ValueError if it cannot be one."""
    name = re.sub(r"[\s_]+", "_", title.strip()).strip("_")
    if not name or _BAD_TITLE.search(name) or len(name.encode()) > 255:
        raise ValueError(f"not a wiki page title: {title!r}")
    return name[0].upper() + name[1:]


def page_path(name: str, prefix: str = "") -> str:
    """The request path of a normalised title's raw wikitext."""
    return f"{prefix}/w/{quote(name, safe=_SAFE)}?action=raw"


def freshness(
    cached: CachedPage | None, now: datetime, ttl: timedelta = TTL
) -> Literal["fresh", "revalidate", "fetch"]:
    """Use the cache as it is, ask whether it changed (it has an ETag), or fetch it anew."""
    if cached is None:
        return "fetch"
    if now - cached.fetched_at < ttl:
        return "fresh"
    return "revalidate" if cached.etag else "fetch"


_REDIRECT = re.compile(r"\A\s*#REDIRECT\s*:?\s*\[\[([^\]|#]+)", re.IGNORECASE)


def redirect_target(wikitext: str) -> str | None:
    """The target title of a ``#REDIRECT [[Target]]`` page; None for an ordinary page."""
    found = _REDIRECT.match(wikitext)
    return found.group(1).strip() if found else None


_COMMENT = re.compile(r"<!--.*?(-->|\Z)", re.DOTALL)
_REF = re.compile(r"<ref[^>/]*/>|<ref[^>]*>.*?</ref\s*>", re.DOTALL | re.IGNORECASE)
_TEMPLATE = re.compile(r"\{\{[^{}]*\}\}")
_TABLE = re.compile(r"\{\|(?:(?!\{\||\|\}).)*\|\}", re.DOTALL)
_LINK = re.compile(r"\[\[([^\[\]]*)\]\]")
_EXTERNAL = re.compile(r"\[(?:https?:)?//[^\s\]]+\s*([^\]]*)\]")
_NON_TEXT_LINK = re.compile(r"^\s*:?\s*(file|image|media|category|[a-z]{2,3}(-[a-z]+)?)\s*:", re.I)
_TAG = re.compile(r"<[^>]+>")
_MAGIC = re.compile(r"__[A-Z]+__")
_NOT_PROSE = ("=", "*", "#", ":", ";", "|", "!", "{", "}")


def _link_text(found: re.Match[str]) -> str:
    inner = found.group(1)
    if _NON_TEXT_LINK.match(inner):
        return ""  # images, categories, other languages: no words of the text
    target, _, label = inner.partition("|")
    return (label or target.split("#", 1)[0]).strip()


def _until_stable(pattern: re.Pattern[str], replace: Any, text: str) -> str:
    """Apply ``pattern`` until nothing changes (innermost first, so nesting goes too)."""
    while True:
        text, count = pattern.subn(replace, text)
        if not count:
            return text


def plain_text(wikitext: str) -> str:
    """The wikitext without templates, tables, references, images, markup or tags."""
    text = _COMMENT.sub("", wikitext)
    text = _REF.sub("", text)
    text = _until_stable(_TEMPLATE, "", text)
    text = _until_stable(_TABLE, "", text)
    text = _until_stable(_LINK, _link_text, text)
    text = _EXTERNAL.sub(lambda m: m.group(1), text)
    text = re.sub(r"<br\s*/?>", " ", text, flags=re.IGNORECASE)
    text = _TAG.sub("", text)
    text = _MAGIC.sub("", text)
    text = re.sub(r"'{2,}", "", text)
    return html.unescape(text).replace("\xa0", " ")


def summarise(wikitext: str, limit: int = SUMMARY_CHARS) -> str:
    """The first paragraph of prose in plain text, at most ``limit`` characters ('' if none)."""
    paragraph: list[str] = []
    for raw in plain_text(wikitext).splitlines():
        line = raw.strip()
        if line and not line.startswith(_NOT_PROSE):
            paragraph.append(line)
        elif paragraph:
            break
    text = re.sub(r"\s+", " ", " ".join(paragraph)).strip()
    if len(text) <= limit:
        return text
    cut = text.rfind(". ", 0, limit)
    return text[: cut + 1] if cut > 0 else text[: limit - 1].rstrip() + "…"


def robots_allowed(parser: RobotFileParser, agent: str, url: str) -> bool:
    """Whether robots.txt lets ``agent`` fetch ``url`` (a path or a full URL).

    ``urllib.robotparser`` reads the file and picks the group; the rules are
    matched here as RFC 9309 says: ``*`` and a final ``$`` are wildcards, the
    longest matching rule wins and ``Allow`` wins a tie (the standard library
    takes the first prefix match and knows no wildcards).
    """
    if getattr(parser, "disallow_all", False):
        return False
    if getattr(parser, "allow_all", False):
        return True
    parts = urlsplit(unquote(url))
    path = quote(urlunsplit(("", "", parts.path, parts.query, ""))) or "/"
    entries = getattr(parser, "entries", [])
    entry = next((e for e in entries if e.applies_to(agent)), None)
    entry = entry or getattr(parser, "default_entry", None)
    if entry is None:
        return True
    best: tuple[int, bool] | None = None
    for rule in entry.rulelines:
        if _rule_matches(rule.path, path):
            key = (len(rule.path), bool(rule.allowance))
            best = key if best is None else max(best, key)
    return True if best is None else best[1]


def _rule_matches(rule: str, path: str) -> bool:
    """``rule`` and ``path`` as robotparser quotes them: ``*`` is ``%2A``, ``$`` is ``%24``."""
    anchored = rule.endswith("%24")
    core = rule[:-3] if anchored else rule
    if "%2A" not in core and not anchored:
        return path.startswith(rule)
    pattern = ".*".join(re.escape(piece) for piece in core.split("%2A"))
    return re.match(pattern + (r"\Z" if anchored else ""), path) is not None
