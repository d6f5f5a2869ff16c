"""URL helpers shared by the configuration, the knowledge base and the LLM back ends."""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

__all__ = ["redact_url"]

_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://)([^/?#]*)@")
"""``scheme://userinfo@``: for URLs ``urlsplit`` cannot take apart."""


def redact_url(url: str, *, keep_user: bool = True) -> str:
    """The URL with its credentials masked, for logs and error messages.

    The password always becomes ``***``; with ``keep_user=False`` the whole
    user part does too (``https://TOKEN@host`` carries a token as the user
    name: the HTTP URLs of the LLM and the wiki). A URL that cannot be parsed
    gets everything before its last ``@`` in the host part masked.
    """
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return _USERINFO.sub(r"\1***@", url)
    userinfo, at, hostport = parts.netloc.rpartition("@")
    if not at or (keep_user and password is None):
        return url
    user = userinfo.partition(":")[0] if keep_user else ""
    masked = f"{user}:***" if user else "***"
    return urlunsplit(parts._replace(netloc=f"{masked}@{hostport}"))
