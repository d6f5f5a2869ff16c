"""A real PostgreSQL server on loopback for the tests: its own cluster in a temporary folder.

Uses the server binaries of Debian's ``postgresql`` package (``.ci/run``
installs it). PostgreSQL refuses to run as root, so when the tests run as
root the cluster belongs to the ``postgres`` user and every server command
runs through ``runuser``. Trust authentication on 127.0.0.1 only.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

from pepa.fleet.postgres import find_bin_dir

__all__ = ["PostgresServer", "find_bin_dir"]


class PostgresServer:
    """``start()`` a cluster, ``create_database(name)`` → URL, ``stop()`` removes everything."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin_dir = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="pepa-pg-", dir="/tmp"))
        self.data = self.root / "data"
        self.port = _free_port()
        self.as_root = os.geteuid() == 0

    def _run(self, *argv: str) -> None:
        command = [str(self.bin_dir / argv[0]), *argv[1:]]
        if self.as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        result = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
        if result.returncode != 0:
            raise RuntimeError(f"{argv[0]} failed ({result.returncode}): {result.stderr.strip()}")

    def start(self) -> PostgresServer:
        """Create the cluster and start the server; waits until it accepts connections."""
        if self.as_root:
            shutil.chown(self.root, "postgres", "postgres")
        self._run("initdb", "-D", str(self.data), "-U", "pepa", "--auth=trust", "-E", "UTF8")
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"
            " -c max_connections=300"  # as the fleet's own: two a bot, a fleet of 64 and more
        )
        self._run(
            "pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.root / "log"), "-w",
            "-t", "60", "start",
        )  # fmt: skip
        return self

    def url(self, database: str) -> str:
        """The URL of a database on this server."""
        return f"postgresql://pepa@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """A new empty database; its URL."""
        import psycopg2

        connection = psycopg2.connect(
            host="127.0.0.1", port=self.port, user="pepa", dbname="postgres"
        )
        try:
            connection.autocommit = True
            with connection.cursor() as cursor:
                cursor.execute(f'CREATE DATABASE "{name}"')
        finally:
            connection.close()
        return self.url(name)

    def stop(self) -> None:
        """Stop the server and remove its files."""
        try:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
