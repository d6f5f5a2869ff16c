"""The fleet's own PostgreSQL (pepa/fleet/postgres.py), started for real from Debian's binaries."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg2
import pytest

from pepa.fleet.postgres import LocalPostgres, cluster_home, find_bin_dir

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]


@pytest.fixture
def bin_dir() -> Path:
    found = find_bin_dir()
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("PostgreSQL server binaries are missing: .ci/run must apt-get postgresql")
        pytest.skip("no PostgreSQL server binaries (apt-get install postgresql)")
    return found


@pytest.fixture
def state() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="pepa-pgstate-", dir="/tmp"))  # short: socket path
    yield root / "127.0.0.1_25565"
    shutil.rmtree(cluster_home(root / "127.0.0.1_25565" / "postgres"), ignore_errors=True)
    shutil.rmtree(root, ignore_errors=True)


def lessons(url: str, write: str | None = None) -> list[str]:
    with psycopg2.connect(url, connect_timeout=10) as connection, connection.cursor() as cursor:
        cursor.execute("CREATE TABLE IF NOT EXISTS lesson (text TEXT)")
        if write is not None:
            cursor.execute("INSERT INTO lesson VALUES (%s)", (write,))
        cursor.execute("SELECT text FROM lesson")
        rows = [str(row[0]) for row in cursor.fetchall()]
    connection.close()
    return rows


def test_the_colony_knowledge_survives_the_fleet_and_goes_with_its_state_folder(
    bin_dir: Path, state: Path
) -> None:
    first = LocalPostgres(state / "postgres", bin_dir)
    url = first.start()
    try:
        assert lessons(url, "creepers explode") == ["creepers explode"]
    finally:
        first.stop()

    again = LocalPostgres(state / "postgres", bin_dir)
    try:
        assert lessons(again.start()) == ["creepers explode"]  # the next fleet knows it
    finally:
        again.stop()

    # the user removes the state folder; as root the cluster itself lived in /var/tmp and
    # stayed: a fleet on that folder used to fail ("password authentication failed")
    shutil.rmtree(state)
    fresh = LocalPostgres(state / "postgres", bin_dir)
    try:
        assert lessons(fresh.start()) == []
    finally:
        fresh.stop()
