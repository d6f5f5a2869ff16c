"""The worker's connection to a Minecraft server: mineflayer through JSPyBridge.

The link is a resource of the worker process, not an actor: an actor restart never
touches the Minecraft connection; it calls into the process's one JS bridge
(:mod:`pepa.link.bridge`). It owns one thread, ``pepa-world-link``, that connects,
reconnects with exponential backoff and jitter (tenacity) after a kick, a
disconnect or a server that is down, logs in with AuthMe, and hands every JS
event to ``on_event`` (which only ``tell``s an actor).

JS → Python: ``bot_helper.js`` calls one Python callback with plain dicts; it
only enqueues. Python → JS: ``snapshot()`` is one call returning one JSON
string; actions return at once and report ``actionDone`` with their id.
"""

from __future__ import annotations

import itertools
import logging
import queue
import random
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import tenacity

from pepa.base.threads import thread_name
from pepa.link.actions import CATALOGUE, Result, checked
from pepa.link.authme import AuthMe, server_line
from pepa.link.bridge import bridge, bridge_alive
from pepa.link.login import REFUSALS, LinkSettings, auth_dir, bot_options, keep_private, refused

__all__ = ["BOT_JS", "LinkSettings", "MinecraftLink"]

logger = logging.getLogger(__name__)

BOT_JS = Path(__file__).resolve().parent / "js"
"""The bot's own JS: ``bot_helper.js`` and the action modules it requires. It never requires
the world server's JS (:mod:`pepa.worldserver`)."""
METHODS = ("snapshot", "quit", "end", "ping", *(action.js for action in CATALOGUE))
"""bot_helper functions looked up once per connection (a property read is a round trip): the
connection's own and every action of the catalogue (:mod:`pepa.link.actions`)."""
CALL_TIMEOUT = 5.0
"""Seconds any single call into JS may take."""
SPAWN_TIMEOUT = 30.0
"""Seconds from creating the bot to its first spawn."""
STABLE_CONNECTION = 30.0
"""A connection that lasted this long resets the reconnect backoff."""
STRAY_WAIT = 5.0
"""Seconds a link waits after a ``createBot`` call that timed out, before it tries again."""
JOINS_AT_ONCE = 1
"""Bots of one process (one bridge) joining at a time, from creating the bot to its spawn. A
join floods the bridge with chunks to decode, and the bridge's one event loop answers the
keepalives of all its bots: with 64 bots on 2 cores, eight joining at once held keepalives past
the server's 30 s, and the kicked bots' own rejoins kept it so."""

_joining = threading.BoundedSemaphore(JOINS_AT_ONCE)


class ConnectFailed(Exception):
    """One connection attempt did not reach a spawn."""


class GaveUp(Exception):
    """The server refused the account :data:`REFUSALS` times in a row: retrying is no use."""


def _seconds(value: Any) -> float:
    """A count of seconds from JS, 0 when it is none (at most a day)."""
    return min(float(value), 86400.0) if isinstance(value, int | float) and value > 0 else 0.0


class MinecraftLink:
    """One bot on one server, kept connected until :meth:`close`."""

    def __init__(
        self,
        settings: LinkSettings,
        *,
        on_event: Callable[[dict[str, Any]], None],
        on_bridge_dead: Callable[[str], None],
        max_backoff: float = 30.0,
        on_refused: Callable[[str], None] | None = None,
        label: str = "",
    ) -> None:
        self.settings = settings
        self.label = label
        """The bot this link is for, in a fleet worker (its threads' names: pepa.base.threads)."""
        self._on_refused = on_refused or on_bridge_dead
        """Called once when the server refused the account :data:`REFUSALS` times in a row: a
        setting to change, not a fault (the worker exits with the configuration's code)."""
        self._on_event = on_event
        self._on_bridge_dead = on_bridge_dead
        self._max_backoff = max_backoff
        self._events: queue.Queue[dict[str, Any]] = queue.Queue()
        self._closing = threading.Event()
        self._connected = threading.Event()
        self._fns: dict[str, Any] = {}
        self._api: Any = None
        self._thread: threading.Thread | None = None
        self._ids = itertools.count(1)
        self.connects = 0
        self._refusals = 0
        """Logins in a row the server refused the account at (see :data:`REFUSALS`)."""
        self.version: str | None = None
        self._auth = AuthMe(settings.password, settings.server_dir / "joined-before.flag")
        self._players: tuple[str, ...] = ()
        self._helper: Any = None
        self._reload_helper = False
        """The handle on bot_helper.js was not one: the next join loads it again."""

    # -- lifecycle --------------------------------------------------------------

    def start(self) -> None:
        """Load the bridge and start connecting in the background."""
        self._helper = self._load_helper()
        self._thread = threading.Thread(
            target=self._run, name=thread_name("pepa-world-link", self.label), daemon=True
        )
        self._thread.start()

    @staticmethod
    def _load_helper() -> Any:
        """bot_helper.js in the bridge (loaded once per process; a probe may wrap it)."""
        return bridge().require(str(BOT_JS / "bot_helper.js"))

    def close(self, timeout: float = 5.0) -> None:
        """Leave the server and stop reconnecting."""
        self._closing.set()
        self._events.put({"type": "_close"})
        self._connected.clear()
        quit_bot = self._fns.get("quit")
        self._fns = {}
        if quit_bot is not None and bridge_alive():
            # a property read into JS has no timeout: never wait on one unboundedly
            leaver = threading.Thread(
                target=self._quietly, args=(quit_bot, "pepa stopping"), daemon=True,
                name=thread_name("pepa-world-quit", self.label),
            )  # fmt: skip
            leaver.start()
            leaver.join(timeout)
        if self._thread is not None:
            self._thread.join(timeout)

    @staticmethod
    def _quietly(fn: Any, *args: Any) -> None:
        try:
            fn(*args, timeout=CALL_TIMEOUT)
        except Exception as exc:  # the bridge may already be gone at shutdown
            logger.debug("JS call failed at shutdown: %r", exc)

    @property
    def connected(self) -> bool:
        """True between a spawn and the end of that connection."""
        return self._connected.is_set()

    def wait_connected(self, timeout: float) -> bool:
        """Block until connected (for tools and tests)."""
        return self._connected.wait(timeout)

    # -- reads and actions (any thread) -------------------------------------------

    def snapshot(self) -> dict[str, Any] | None:
        """The whole world as the bot sees it, in one bridge call; None when offline."""
        fn = self._fns.get("snapshot")
        if fn is None or not self._connected.is_set():
            return None
        try:
            text = fn(timeout=CALL_TIMEOUT)
        except Exception as exc:
            self._check_bridge(exc)
            return None
        snapshot: dict[str, Any] = orjson.loads(text)
        return snapshot

    def ping(self) -> bool:
        """The cheapest round trip into JS (a function returning 1)."""
        fn = self._fns.get("ping")
        if fn is None:
            return False
        try:
            return bool(fn(timeout=CALL_TIMEOUT))
        except Exception as exc:
            self._check_bridge(exc)
            return False

    def raw_bot(self) -> Any:
        """The mineflayer bot as a JSPyBridge proxy: for benchmarks and debugging only.

        Every attribute read on it is a round trip; never use it on a hot path.
        """
        api = self._api
        return None if api is None else api.bot

    def act(self, action: str, /, **args: Any) -> str | None:
        """Start a catalogue action (:mod:`pepa.link.actions`); its id, None when refused."""
        row, values = checked(action, args, instant=False)
        fn = self._fns.get(row.js)
        if fn is None:
            return None
        action_id = f"a{next(self._ids)}"
        try:
            fn(action_id, *row.to_js(values), timeout=CALL_TIMEOUT)
        except Exception as exc:
            self._check_bridge(exc)
            return None
        return action_id

    def call(self, action: str, /, **args: Any) -> bool:
        """Make an instant catalogue call (:mod:`pepa.link.actions`); False when refused."""
        row, values = checked(action, args, instant=True)
        fn = self._fns.get(row.js)
        if fn is None:
            return False
        try:
            answer = fn(*row.to_js(values), timeout=CALL_TIMEOUT)
        except Exception as exc:
            self._check_bridge(exc)
            return False
        return True if row.result is Result.NONE else bool(answer)

    def _check_bridge(self, exc: Exception) -> None:
        if not bridge_alive():
            self._on_bridge_dead(f"the JS bridge died: {exc}")
        else:
            logger.warning("call into JS failed: %r", exc)

    # -- the link thread --------------------------------------------------------------

    def _js_event(self, event: Any) -> None:
        """Runs on JSPyBridge's callback thread: enqueue and return at once."""
        self._events.put(dict(event) if not isinstance(event, dict) else event)

    def _run(self) -> None:
        retrying = tenacity.Retrying(
            wait=tenacity.wait_exponential_jitter(
                multiplier=0.5, max=self._max_backoff, jitter=1.0
            ),
            retry=tenacity.retry_if_exception_type(ConnectFailed),
            stop=tenacity.stop_when_event_set(self._closing),
            sleep=self._pause,
            before_sleep=self._log_retry,
            reraise=True,
        )
        short_lived = 0
        while not self._closing.is_set():
            try:
                retrying(self._connect_once)
            except GaveUp as exc:
                logger.error("%s", exc)
                self._on_refused(str(exc))
                return
            except ConnectFailed:
                return  # closing
            except Exception as exc:
                self._on_bridge_dead(f"cannot drive mineflayer: {exc!r}")
                return
            joined = time.monotonic()
            self._pump_until_end()
            lasted = time.monotonic() - joined
            if self._closing.is_set():
                return
            # kicked soon after joining (a wrong AuthMe password, a duplicate login, an
            # anti-cheat): back off too, or the bot hammers the server forever
            short_lived = short_lived + 1 if lasted < STABLE_CONNECTION else 0
            if short_lived:
                delay = min(self._max_backoff, 0.5 * 2 ** (short_lived - 1))
                delay *= random.uniform(0.5, 1.5)
                logger.warning("the connection lasted %.1fs; reconnecting in %.1fs", lasted, delay)
                self._pause(delay)

    def _refused(self, reason: str) -> None:
        """One more login the server refused the account at; at :data:`REFUSALS` in a row, give
        up with one line that says what to do."""
        self._refusals += 1
        if self._refusals < REFUSALS:
            return
        s = self.settings
        if s.auth == "microsoft":
            why = (
                f"the server refused the Microsoft account of {s.username} {self._refusals} "
                f"times ({reason}): sign in again (remove {auth_dir(s.server_dir)}) or check "
                "that the account owns Minecraft"
            )
        else:
            why = (
                f"the server refused {s.username} {self._refusals} times ({reason}): it is in "
                "online mode and this is an offline account; start with --auth microsoft "
                "(MC_AUTH=microsoft), docs/world.md"
            )
        raise GaveUp(why)

    def _signing_in(self, event: dict[str, Any]) -> None:
        """Microsoft's device-code prompt: one line for the person who runs the bot."""
        minutes = _seconds(event.get("expiresIn")) / 60
        logger.warning(
            "Microsoft sign-in for %s: open %s and enter the code %s (within %.0f minutes)",
            self.settings.username, event.get("uri"), event.get("code"), minutes,
        )  # fmt: skip

    def _pause(self, seconds: float) -> None:
        """tenacity's sleep, cut short by :meth:`close`."""
        self._closing.wait(seconds)

    def _log_retry(self, state: tenacity.RetryCallState) -> None:
        delay = state.next_action.sleep if state.next_action else 0.0
        error = state.outcome.exception() if state.outcome else None
        logger.warning(
            "cannot reach %s:%d (%s); attempt %d, retrying in %.1fs",
            self.settings.host, self.settings.port, error, state.attempt_number, delay,
        )  # fmt: skip

    def _connect_once(self) -> None:
        """One join, when no other bot of this process is joining (:data:`JOINS_AT_ONCE`)."""
        while not _joining.acquire(timeout=1.0):
            if self._closing.is_set():
                raise ConnectFailed("closing")
        try:
            self._join()
        finally:
            _joining.release()

    def _join(self) -> None:
        if self._closing.is_set():
            raise ConnectFailed("closing")
        if not bridge_alive():
            raise RuntimeError("the JS bridge is not running")
        options = bot_options(self.settings)
        self._drain_stale()
        try:
            if self._reload_helper:  # in the try: a bridge too busy to answer is tried again
                self._helper, self._reload_helper = self._load_helper(), False
            api = self._helper.createBot(options, self._js_event, timeout=CALL_TIMEOUT)
            self._fns = {name: getattr(api, name) for name in METHODS}
        except Exception as exc:  # a busy bridge is not a dead one: try again, backing off
            if not bridge_alive():
                raise RuntimeError(f"the JS bridge process exited: {exc}") from exc
            # the bot that call made anyway may be logging in: give it time to be in and quit
            # (bot_helper.js replaces it), or the server refuses the next one as a duplicate
            self._pause(STRAY_WAIT)
            if isinstance(exc, (AttributeError, TypeError)):
                # not the bridge's handle on bot_helper.js, or not its answer (another call's:
                # docs/world.md); with that handle every attempt would fail the same way
                self._reload_helper = True
                raise ConnectFailed(f"the JS bridge answered out of turn ({exc}); "
                                    "loading bot_helper.js again") from exc  # fmt: skip
            raise ConnectFailed(f"the JS bridge did not answer in time ({exc})") from exc
        self._api = api
        if self._closing.is_set():
            # closed while the bot was being made: its ``_close`` may have gone with the stale
            # events drained above, and :meth:`close` found no bot to quit
            self._drop_api()
            raise ConnectFailed("closing")
        deadline = time.monotonic() + SPAWN_TIMEOUT
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self._drop_api()
                raise ConnectFailed(f"no spawn within {SPAWN_TIMEOUT:g}s")
            try:  # a bridge that dies while the bot joins is seen within a second
                event = self._events.get(timeout=min(remaining, 1.0))
            except queue.Empty:
                if not bridge_alive():
                    raise RuntimeError("the JS bridge process exited") from None
                continue
            kind = event.get("type")
            if kind == "_close":
                self._drop_api()
                raise ConnectFailed("closing")
            if kind in ("end", "kicked", "error") and not self._connected.is_set():
                self._forward(event)
                self._drop_api()
                reason = str(event.get("reason") or event.get("message") or kind)
                if kind == "kicked" and refused(reason):
                    self._refused(reason)
                raise ConnectFailed(reason)
            if kind == "signIn":  # the user has until the code expires, not SPAWN_TIMEOUT
                self._signing_in(event)
                deadline = max(deadline, time.monotonic() + _seconds(event.get("expiresIn")))
            if kind == "login":  # signed in, if it had to: the spawn is due as ever
                self.version = event.get("version")
                deadline = min(deadline, time.monotonic() + SPAWN_TIMEOUT)
            self._note_players(event)
            if kind == "spawn" and not self._connected.is_set():
                self.connects += 1
                self._refusals = 0
                if self.settings.auth == "microsoft":
                    keep_private(auth_dir(self.settings.server_dir))
                self._connected.set()
                self._forward({**event, "type": "connected", "version": self.version})
                self._authme()
            self._forward(event)
            if self._connected.is_set():
                return

    def _pump_until_end(self) -> None:
        while not self._closing.is_set():
            try:
                event = self._events.get(timeout=1.0)
            except queue.Empty:
                if not bridge_alive():
                    self._on_bridge_dead("the JS bridge process exited")
                    return
                self._say(self._auth.on_tick(time.monotonic()))
                continue
            kind = event.get("type")
            if kind == "_close":
                return
            self._note_players(event)
            line = server_line(event, self._players, self.settings.username)
            if line is not None:  # never what a player typed: only the server's own lines
                self._say(self._auth.on_chat(line, time.monotonic()))
            self._forward(event)
            if kind == "end":
                self._connected.clear()
                self._drop_api()
                return

    def _note_players(self, event: dict[str, Any]) -> None:
        """Remember the names on the player list (AuthMe ignores lines naming them)."""
        if event.get("type") == "players" and isinstance(event.get("players"), list):
            self._players = tuple(
                str(p.get("name")) for p in event["players"] if isinstance(p, dict)
            )

    def _say(self, command: str | None) -> None:
        if command is not None:
            self.call("chat", text=command)

    def _drop_api(self) -> None:
        end, self._fns, self._api = self._fns.get("end"), {}, None
        if end is not None and bridge_alive():
            self._quietly(end)

    def _drain_stale(self) -> None:
        while True:
            try:
                self._events.get_nowait()
            except queue.Empty:
                return

    def _forward(self, event: dict[str, Any]) -> None:
        try:
            self._on_event(event)
        except Exception:
            logger.exception("world event handler failed on %s", event.get("type"))

    def _authme(self) -> None:
        """AuthMe: ``/register`` the first time on this server, ``/login`` after."""
        self._say(self._auth.start(time.monotonic()))
