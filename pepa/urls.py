"""URL helpers shared by the configuration and the knowledge base."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

__all__ = ["redact_url"]


def redact_url(url: str) -> str:
    """The URL with its password masked, for logs and error messages."""
    parts = urlsplit(url)
    if not parts.password:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))
