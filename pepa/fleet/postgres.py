"""The fleet's own PostgreSQL: one knowledge base for all its bots, started and stopped with it.

``pepa fleet`` without ``PEPA_DB_URL`` runs a PostgreSQL cluster of its own
from the server binaries of Debian's ``postgresql`` package (docs/fleet.md):

- the cluster lives in ``<host>_<port>/postgres/`` and survives the fleet,
  so what the colony learned is there next time;
- it listens on 127.0.0.1 only, on a free port chosen at each start, with a
  password of its own (``postgres/password``, 0600) that reaches the
  workers through the configuration pipe, never an environment;
- PostgreSQL refuses to run as root: as root (containers, CI) the cluster
  belongs to the ``postgres`` user and lives in ``/var/tmp/pepa-pg-<id>/``
  (the state folder is root's, 0700), every server command run through
  ``runuser``; the password stays in the state folder.

A server a killed fleet left running is stopped before the new start. As root, a
cluster whose state folder was removed (its password gone with it) is an orphan no
password opens: it is made anew, with a warning, as the folder's removal asked.
"""

from __future__ import annotations

import glob
import hashlib
import logging
import os
import secrets
import shlex
import shutil
import subprocess
from pathlib import Path
from urllib.parse import quote

import psycopg2

from pepa.base.errors import PepaError
from pepa.state.files import write_atomic
from pepa.worldserver.process import free_port

__all__ = ["LocalPostgres", "PostgresError", "cluster_home", "find_bin_dir"]

logger = logging.getLogger(__name__)

DATABASE = "pepa"
USER = "pepa"
TIMEOUT = 60


class PostgresError(PepaError):
    """The fleet's PostgreSQL cannot be set up or started."""


def find_bin_dir() -> Path | None:
    """The newest ``/usr/lib/postgresql/<n>/bin`` with ``initdb``, or None."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: int(Path(p).parent.parent.name),
    )
    return Path(found[-1]).parent if found else None


def cluster_home(folder: Path) -> Path:
    """Where the cluster of the fleet whose folder is ``folder`` lives: that folder, or as root
    ``/var/tmp/pepa-pg-<id>/`` (the ``postgres`` user cannot enter root's state folder)."""
    if os.geteuid() != 0:
        return folder
    tag = hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:12]
    return Path("/var/tmp") / f"pepa-pg-{tag}"


class LocalPostgres:
    """``start()`` → the URL of the fleet's database; ``stop()``."""

    def __init__(self, folder: Path, bin_dir: Path) -> None:
        self.folder = folder
        """``<host>_<port>/postgres/``: the password (and the cluster, unless root)."""
        self.bin_dir = bin_dir
        self.as_root = os.geteuid() == 0
        self.home = cluster_home(folder)
        """Where the cluster lives (``data/``, its log, its socket)."""
        self.data = self.home / "data"
        self.port = 0
        self.started = False

    @property
    def log_path(self) -> Path:
        return self.home / "server.log"

    def _run(self, *argv: str) -> subprocess.CompletedProcess[str]:
        command = [str(self.bin_dir / argv[0]), *argv[1:]]
        if self.as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        try:
            return subprocess.run(
                command, capture_output=True, text=True, timeout=TIMEOUT, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise PostgresError(f"{argv[0]} failed: {exc}") from exc

    def _must(self, *argv: str) -> None:
        result = self._run(*argv)
        if result.returncode != 0:
            detail = (result.stderr or result.stdout).strip().splitlines()[-3:]
            raise PostgresError(f"{argv[0]} failed ({result.returncode}): {' '.join(detail)}")

    def _password(self) -> str:
        path = self.folder / "password"
        try:
            return path.read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            password = secrets.token_urlsafe(24)
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            write_atomic(path, password.encode())
            return password

    def start(self) -> str:
        """Create the cluster once, start it on a free loopback port; the database's URL."""
        orphan = self.as_root and not (self.folder / "password").exists()
        password = self._password()
        self.home.mkdir(mode=0o700, parents=True, exist_ok=True)
        if self.as_root:
            shutil.chown(self.home, "postgres", "postgres")
        if self._run("pg_ctl", "-D", str(self.data), "status").returncode == 0:
            logger.warning("a PostgreSQL left running by an earlier fleet is stopped first")
            self._must("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")
        if orphan and (self.data / "PG_VERSION").exists():
            logger.warning(
                "the PostgreSQL cluster in %s belonged to a state folder since removed (no "
                "password opens it): it is made anew", self.home,
            )  # fmt: skip
            shutil.rmtree(self.data)
        if not (self.data / "PG_VERSION").exists():
            self._initdb(password)
        self.port = free_port()
        options = (
            f"-p {self.port} -k {shlex.quote(str(self.home))} "
            "-c listen_addresses=127.0.0.1 -c max_connections=300"
        )
        self._must(
            "pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.log_path), "-w",
            "-t", str(TIMEOUT), "start",
        )  # fmt: skip
        self.started = True
        self._create_database(password)
        return f"postgresql://{USER}:{quote(password, safe='')}@127.0.0.1:{self.port}/{DATABASE}"

    def _initdb(self, password: str) -> None:
        pwfile = self.home / "initdb-password"
        pwfile.write_text(password + "\n", encoding="utf-8")
        pwfile.chmod(0o600)
        if self.as_root:
            shutil.chown(pwfile, "postgres", "postgres")
        try:
            self._must(
                "initdb", "-D", str(self.data), "-U", USER, "--auth=scram-sha-256",
                f"--pwfile={pwfile}", "-E", "UTF8",
            )  # fmt: skip
        finally:
            pwfile.unlink(missing_ok=True)

    def _create_database(self, password: str) -> None:
        try:
            connection = psycopg2.connect(
                host="127.0.0.1", port=self.port, user=USER, password=password,
                dbname="postgres", connect_timeout=10,
            )  # fmt: skip
        except psycopg2.Error as exc:
            raise PostgresError(f"cannot connect to the fleet's PostgreSQL: {exc}") from exc
        try:
            connection.autocommit = True
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE,))
                if cursor.fetchone() is None:
                    cursor.execute(f'CREATE DATABASE "{DATABASE}"')
        finally:
            connection.close()

    def stop(self) -> None:
        """Stop the server (fast: the bots are gone); a failure is a warning."""
        if not self.started:
            return
        self.started = False
        try:
            self._must("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")
        except PostgresError as exc:
            logger.warning("the fleet's PostgreSQL did not stop: %s", exc)
