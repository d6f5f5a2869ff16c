"""``pepa fleet --ray`` joins only a Ray cluster that enforces token authentication.

Whoever can reach an open Ray cluster's ports can run any code on its nodes
and call its actors. So before ``ray.init``, the supervisor checks, each with
one clear :class:`~pepa.base.errors.ConfigError` line:

1. this process runs in Ray's token mode: ``RAY_AUTH_MODE=token`` (Ray 2.52 or
   later), with a token where Ray looks for one (``RAY_AUTH_TOKEN``, the file
   ``RAY_AUTH_TOKEN_PATH`` names, or ``~/.ray/auth_token``);
2. the cluster refuses a client without a token: a short Python process in
   Ray's ``disabled`` mode, with no token in its environment, opens a GCS
   client (its first call asks for the cluster id) and must get Ray's
   ``AuthenticationError``. A cluster that answers it is open to anyone, and
   is refused;
3. the cluster takes this machine's token: the same process in token mode
   must get its answer (a wrong token would cost ``ray.init`` 20 s of retries
   and end in a bare ``ConnectionError``).

The probe runs in a process of its own because Ray's authentication mode and
token are read once per process, and this process must keep its own for
``ray.init``. Its environment holds no pepa secret (:mod:`pepa.base.childenv`).
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from pepa.base.childenv import scrubbed
from pepa.base.errors import ConfigError

__all__ = ["AUTH_ENV", "PROBE_TIMEOUT", "check_token_auth", "check_token_mode", "probe"]

logger = logging.getLogger(__name__)

AUTH_ENV = ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH")
"""The variables that give a Ray process its authentication mode and token."""
PROBE_TIMEOUT = 30.0
"""Seconds one probe of the cluster may take."""
HOW = "docs/fleet.md, 'Token authentication'"

_REFUSED = 3
"""The probe's exit code when the cluster refuses it for its token."""
_PROBE = f"""
import sys
from ray._raylet import GcsClient
from ray.exceptions import AuthenticationError
try:
    GcsClient(address=sys.argv[1])
except AuthenticationError:
    sys.exit({_REFUSED})
"""


def check_token_mode(environ: Mapping[str, str] | None = None) -> None:
    """Refuse unless ``environ`` (default ``os.environ``) puts Ray in token mode with a token
    (``RAY_AUTH_TOKEN``, ``RAY_AUTH_TOKEN_PATH``, or ``~/.ray/auth_token``, as Ray looks)."""
    environ = os.environ if environ is None else environ
    mode = environ.get("RAY_AUTH_MODE", "")
    if mode.strip().lower() != "token":
        now = f" (it is {mode[:20]!r})" if mode else ""
        raise ConfigError(
            f"pepa fleet --ray joins only a Ray cluster with token authentication: set "
            f"RAY_AUTH_MODE=token{now} here and on every node, with the cluster's token ({HOW})"
        )
    try:
        from ray.exceptions import AuthenticationError  # noqa: F401 (Ray 2.52's)
    except ImportError as exc:
        raise ConfigError(
            f"pepa fleet --ray needs Ray 2.52 or later (token authentication): {exc}"
        ) from exc
    path = environ.get("RAY_AUTH_TOKEN_PATH") or str(Path(environ.get("HOME") or Path.home())
                                                     / ".ray" / "auth_token")  # fmt: skip
    if not environ.get("RAY_AUTH_TOKEN", "").strip() and not Path(path).is_file():
        raise ConfigError(
            f"RAY_AUTH_MODE=token, but no Ray token here: set RAY_AUTH_TOKEN, or put the "
            f"cluster's token in {path} (`ray get-auth-token` on the head prints it; {HOW})"
        )


def check_token_auth(address: str, environ: Mapping[str, str] | None = None) -> None:
    """Refuse the cluster at ``address`` unless it enforces token authentication and takes
    this process's token (:func:`check_token_mode` first)."""
    environ = os.environ if environ is None else environ
    check_token_mode(environ)
    if probe(address, with_token=False, environ=environ):
        raise ConfigError(
            f"the Ray cluster at {address} accepts clients without a token: anyone who "
            f"reaches its ports can run code on its nodes. Start every node with "
            f"RAY_AUTH_MODE=token and the cluster's token ({HOW})"
        )
    if not probe(address, with_token=True, environ=environ):
        raise ConfigError(
            f"the Ray cluster at {address} refuses this machine's Ray token: give "
            f"`pepa fleet` the cluster's own (`ray get-auth-token` on the head prints it)"
        )


def probe(address: str, *, with_token: bool, environ: Mapping[str, str] | None = None) -> bool:
    """Whether the cluster's GCS at ``address`` answers a client with this process's token, or
    (``with_token`` False) one in Ray's ``disabled`` mode with no token at all.

    Raises :class:`ConfigError` when the probe cannot tell (no answer in time, Ray
    missing or failing otherwise).
    """
    environ = os.environ if environ is None else environ
    ray_env = {name: environ[name] for name in AUTH_ENV if name in environ}
    env = scrubbed({k: v for k, v in environ.items() if k not in AUTH_ENV})
    env.update(ray_env if with_token else {"RAY_AUTH_MODE": "disabled"})
    what = "with this machine's token" if with_token else "without a token"
    try:
        done = subprocess.run(
            [sys.executable, "-c", _PROBE, address],
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT,
        )
    except subprocess.TimeoutExpired as exc:
        raise ConfigError(
            f"cannot tell whether the Ray cluster at {address} requires a token: a client "
            f"{what} had no answer in {PROBE_TIMEOUT:g}s"
        ) from exc
    except OSError as exc:
        raise ConfigError(f"cannot start the probe of the Ray cluster at {address}: {exc}") from exc
    if done.returncode in (0, _REFUSED):
        logger.info(
            "Ray cluster at %s, a client %s: %s",
            address, what, "answered" if done.returncode == 0 else "refused",
        )  # fmt: skip
        return done.returncode == 0
    last = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1][:200]
    raise ConfigError(
        f"cannot tell whether the Ray cluster at {address} requires a token: a client {what} "
        f"failed: {last}"
    )
