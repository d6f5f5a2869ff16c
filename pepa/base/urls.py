"""URL helpers shared by the configuration, the knowledge base and the LLM back ends."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

__all__ = ["SECRET_QUERY", "redact_url"]

SECRET_QUERY = frozenset({"password", "sslpassword", "token", "key", "api_key", "apikey"})
"""Query options that carry a credential (``postgresql://h/db?password=…``): masked too."""
_QUERY_SECRET = re.compile(r"(?i)([?&](?:" + "|".join(sorted(SECRET_QUERY)) + r")=)[^&#]*")
"""For a query ``parse_qsl`` cannot read."""
_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://)([^/?#]*)@")
"""``scheme://userinfo@``: for URLs ``urlsplit`` cannot take apart."""


def redact_url(url: str, *, keep_user: bool = True) -> str:
    """The URL with its credentials masked, for logs and error messages.

    The password always becomes ``***``, and so does a credential in the query
    (:data:`SECRET_QUERY`); with ``keep_user=False`` the whole
    user part does too (``https://TOKEN@host`` carries a token as the user
    name: the HTTP URLs of the LLM and the wiki). A URL that cannot be parsed
    gets everything before its last ``@`` in the host part masked.
    """
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return _QUERY_SECRET.sub(r"\1***", _USERINFO.sub(r"\1***@", url))
    if parts.query:
        parts = parts._replace(query=_masked_query(parts.query))
    userinfo, at, hostport = parts.netloc.rpartition("@")
    if not at or (keep_user and password is None):
        return urlunsplit(parts) if parts.query else url
    user = userinfo.partition(":")[0] if keep_user else ""
    masked = f"{user}:***" if user else "***"
    return urlunsplit(parts._replace(netloc=f"{masked}@{hostport}"))


def _masked_query(query: str) -> str:
    """``a=1&password=x`` → ``a=1&password=***``."""
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        return _QUERY_SECRET.sub(r"\1***", "?" + query)[1:]
    if not any(name.lower() in SECRET_QUERY for name, _ in pairs):
        return query
    masked = [(n, "***" if n.lower() in SECRET_QUERY else v) for n, v in pairs]
    return urlencode(masked, safe="*/")
