"""The integration tier's worlds, bots, players and databases: one family of fixtures.

- ``world``: a flat world of the test's own; ``sandbox_world``: a seeded survival sandbox of
  the test's own;
- ``sandbox``: one seeded sandbox a module's tests share, as its ``SANDBOX`` says
  (``own_sandbox``'s arguments: the time of day the clock stops at, the animals removed), with
  natural spawning off; ``helper``: a helper bot there for the whole module (named by the
  module's ``HELPER``, else ``smelter_bot``);
- ``bot``: ``pepa start`` in ``world`` (a module's ``BOT_FLAGS`` and ``BOT_OPTIONS`` add to its
  command line); ``alice``: a player in ``world``;
- ``postgres``: one loopback PostgreSQL for the session; ``store``: a knowledge store on a
  fresh database of it.

Every test under ``tests/integration/`` is marked ``integration`` (``tests/conftest.py``).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from pepa.state.knowledge import KnowledgeStore
from pepa.worldserver.process import EmbeddedWorld, free_port
from tests.daemon_harness import Daemon
from tests.pg_server import PostgresServer, find_bin_dir
from tests.world_harness import HELPER, SANDBOX_SEED, HelperBot, Player, own_sandbox


@pytest.fixture
def world(short_tmp: Path) -> Iterator[EmbeddedWorld]:
    """A flat flying-squid world of the test's own, on a free loopback port, with the scenario
    plugin's control channel."""
    w = EmbeddedWorld(short_tmp / "world", port=free_port(), control=True).start()
    yield w
    w.stop()


@pytest.fixture
def bot(request: pytest.FixtureRequest, short_tmp: Path, world: EmbeddedWorld) -> Iterator[Daemon]:
    """``pepa start`` in ``world`` with alice as its operator, once the bot is in the world; a
    module's ``BOT_FLAGS`` (more command-line flags) and ``BOT_OPTIONS`` (``Daemon``'s keyword
    arguments, such as ``curriculum=True``) add to it."""
    flags = getattr(request.module, "BOT_FLAGS", ())
    options = getattr(request.module, "BOT_OPTIONS", {})
    daemon = Daemon(
        short_tmp, "--operators", "alice", *flags, host="127.0.0.1", port=world.port, **options
    )
    daemon.in_world()
    yield daemon
    daemon.close()


_databases = itertools.count()


@pytest.fixture
def store(postgres: PostgresServer) -> Iterator[KnowledgeStore]:
    """The knowledge store on a fresh database of the loopback PostgreSQL (the store's cases,
    ``tests/store_cases.py``; the fast tier runs them on a SQLite file)."""
    s = KnowledgeStore(url=postgres.create_database(f"s{next(_databases)}")).open()
    yield s
    s.close()


@pytest.fixture
def sandbox_world(short_tmp: Path) -> Iterator[EmbeddedWorld]:
    """A real flying-squid survival sandbox (terrain, day/night, hunger, crafting), seeded."""
    w = EmbeddedWorld(
        short_tmp / "world", port=free_port(), control=True, sandbox=True, seed=SANDBOX_SEED
    ).start()
    yield w
    w.stop()


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """A real PostgreSQL server on loopback, for the whole session (Debian's postgresql)."""
    bin_dir = find_bin_dir()
    if bin_dir is None:
        if os.environ.get("CI"):
            pytest.fail("PostgreSQL server binaries are missing: .ci/run must apt-get postgresql")
        pytest.skip("no PostgreSQL server binaries (apt-get install postgresql)")
    server = PostgresServer(bin_dir).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def sandbox(request: pytest.FixtureRequest) -> Iterator[EmbeddedWorld]:
    """One seeded sandbox for the module's tests, as the module's ``SANDBOX`` dict says."""
    with own_sandbox(**getattr(request.module, "SANDBOX", {})) as w:
        yield w


@pytest.fixture(scope="module")
def helper(request: pytest.FixtureRequest, sandbox: EmbeddedWorld) -> Iterator[HelperBot]:
    """A helper bot in the module's ``sandbox`` (named by the module's ``HELPER``)."""
    bot = HelperBot(sandbox, getattr(request.module, "HELPER", HELPER))
    yield bot
    bot.close()


@pytest.fixture
def alice(request: pytest.FixtureRequest, world: EmbeddedWorld) -> Iterator[Player]:
    """Alice, a player in ``world`` and an operator of ``bot``: when the test has a bot, she
    joins once it is in the world (so it sees her come)."""
    if "bot" in request.fixturenames:
        request.getfixturevalue("bot")
    player = Player(world, "alice")
    yield player
    player.close()
