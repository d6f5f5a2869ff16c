"""The fleet's own PostgreSQL: one knowledge base for all its bots, started and stopped with it.

``pepa fleet`` without ``PEPA_DB_URL`` runs a PostgreSQL cluster of its own
from the server binaries of Debian's ``postgresql`` package (docs/fleet.md):

- the cluster survives the fleet, so what the colony learned is there next
  time; it listens on 127.0.0.1 only, on a free port chosen at each start,
  and on a Unix socket in its own private folder;
- **roles**: the superuser (``pepa``) logs in only over that socket, by peer
  authentication, as the user who runs the fleet; the tables belong to
  ``pepa_owner`` (no superuser, peer only), which creates and upgrades them
  before any bot connects; each bot logs in over TCP as ``pepa_bot_<name>``
  with a password of its own, a member of ``pepa_bots``, which may read and
  write the rows of pepa's tables and nothing else: no table of its own, no
  ``COPY … TO PROGRAM``, no other database. Row-level security lets a bot
  write only its own deaths and their post-mortems;
- **files**: the bots' passwords live in ``<host>_<port>/postgres/roles.json``
  (0600, written through a fresh ``O_EXCL | O_NOFOLLOW`` file, read only when
  it is this user's and 0600) and reach the workers through their
  configuration, never an environment;
- PostgreSQL refuses to run as root: as root (containers, CI) the cluster
  belongs to the ``postgres`` user and lives in a folder of a random name
  made by ``mkdtemp`` in ``/var/tmp``, recorded in ``postgres/cluster``; a
  recorded folder that is a link, not a directory, not ``postgres``'s or not
  0700 is refused, never used. Every server command runs through
  ``runuser``.

A server a killed fleet left running is stopped before the new start. As root, a
state folder whose record is gone (removed by its user) gets a new cluster: the old
one is left where it is, said once.
"""

from __future__ import annotations

import glob
import hashlib
import logging
import os
import pwd
import re
import secrets
import shlex
import stat
import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import quote

import orjson
import psycopg2
from psycopg2 import sql

from pepa.base.childenv import scrubbed
from pepa.base.dirs import StateDirError, secure_dir
from pepa.base.errors import PepaError
from pepa.state.files import SchemaError, read_bounded, write_atomic
from pepa.state.knowledge.database import KnowledgeError
from pepa.state.knowledge.store import KnowledgeStore
from pepa.worldserver.process import free_port

__all__ = [
    "BOT_ROLE_PREFIX",
    "LocalPostgres",
    "PostgresError",
    "bot_role",
    "cluster_home",
    "find_bin_dir",
]

logger = logging.getLogger(__name__)

DATABASE = "pepa"
SUPERUSER = "pepa"
"""The cluster's bootstrap superuser: peer authentication on the private socket only."""
OWNER = "pepa_owner"
"""Owns the database and its tables; no superuser, peer authentication only."""
BOTS = "pepa_bots"
"""The group role of every bot's role: rows of pepa's tables, nothing else."""
BOT_ROLE_PREFIX = "pepa_bot_"
TIMEOUT = 60
ROLES_FILE = "roles.json"
CLUSTER_RECORD = "cluster"
BOT_NAME = re.compile(r"[A-Za-z0-9_]{1,32}")
OWN_ROWS: tuple[tuple[str, str], ...] = (
    ("deaths", f"bot = substr(current_user, {len(BOT_ROLE_PREFIX) + 1})"),
    (
        "postmortems",
        f"death IN (SELECT id FROM deaths WHERE bot = substr(current_user, "
        f"{len(BOT_ROLE_PREFIX) + 1}))",
    ),
)
"""Tables whose rows a bot may write only when they are its own, and the rule saying so."""


class PostgresError(PepaError):
    """The fleet's PostgreSQL cannot be set up or started."""


def find_bin_dir() -> Path | None:
    """The newest ``/usr/lib/postgresql/<n>/bin`` with ``initdb``, or None."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: int(Path(p).parent.parent.name),
    )
    return Path(found[-1]).parent if found else None


def bot_role(bot: str) -> str:
    """The database role a bot logs in as; PostgresError for a name no role may carry."""
    if not BOT_NAME.fullmatch(bot):
        raise PostgresError(f"bot name {bot!r} cannot name a database role ([A-Za-z0-9_]{{1,32}})")
    return BOT_ROLE_PREFIX + bot


def cluster_home(folder: Path) -> Path:
    """Where the cluster of the fleet whose folder is ``folder`` lives: that folder, or as root
    the private folder its record names (``folder`` itself when there is none yet)."""
    if os.geteuid() != 0:
        return folder
    try:
        recorded = read_bounded(folder / CLUSTER_RECORD, 4096, private=True).decode().strip()
    except (OSError, SchemaError, UnicodeDecodeError):
        return folder
    return Path(recorded) if recorded else folder


def _postgres_uid() -> int:
    """The ``postgres`` user's uid (Debian's ``postgresql`` package makes it)."""
    try:
        return pwd.getpwnam("postgres").pw_uid
    except KeyError:
        raise PostgresError(
            "as root the fleet's PostgreSQL runs as the postgres user, and there is none "
            "(apt install postgresql makes it)"
        ) from None


def _legacy_home(folder: Path) -> Path:
    """Where a root-mode cluster lived before clusters got random folders."""
    tag = hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:12]
    return Path("/var/tmp") / f"pepa-pg-{tag}"


def check_home(path: Path, uid: int) -> str:
    """Pure but for ``lstat``: why ``path`` cannot hold the cluster ("" when it can)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return "does not exist"
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    if stat.S_ISLNK(info.st_mode):
        return "is a symbolic link"
    if not stat.S_ISDIR(info.st_mode):
        return "is not a directory"
    if info.st_uid != uid:
        return f"is owned by uid {info.st_uid}, not by uid {uid}"
    if stat.S_IMODE(info.st_mode) != 0o700:
        return f"has mode {stat.S_IMODE(info.st_mode):04o}, not 0700"
    return ""


class LocalPostgres:
    """``start(bots)`` → each bot's URL of the fleet's database; ``stop()``."""

    def __init__(self, folder: Path, bin_dir: Path) -> None:
        self.folder = folder
        """``<host>_<port>/postgres/``: the bots' passwords (and the cluster, unless root)."""
        self.bin_dir = bin_dir
        self.as_root = os.geteuid() == 0
        self.server_uid = _postgres_uid() if self.as_root else os.geteuid()
        self.home = folder
        """Where the cluster lives (``data/``, its log, its socket); chosen by :meth:`start`."""
        self.port = 0
        self.started = False

    @property
    def data(self) -> Path:
        return self.home / "data"

    @property
    def log_path(self) -> Path:
        return self.home / "server.log"

    # -- processes ------------------------------------------------------------------

    def _run(self, *argv: str) -> subprocess.CompletedProcess[str]:
        command = [str(self.bin_dir / argv[0]), *argv[1:]]
        if self.as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        try:
            return subprocess.run(
                command, capture_output=True, text=True, timeout=TIMEOUT, check=False,
                env=scrubbed(),  # the server inherits no pepa secret, nor Ray's token
            )  # fmt: skip
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise PostgresError(f"{argv[0]} failed: {exc}") from exc

    def _must(self, *argv: str) -> None:
        result = self._run(*argv)
        if result.returncode != 0:
            detail = (result.stderr or result.stdout).strip().splitlines()[-3:]
            raise PostgresError(f"{argv[0]} failed ({result.returncode}): {' '.join(detail)}")

    # -- folders and files ----------------------------------------------------------------

    def _choose_home(self) -> Path:
        """The cluster's private folder: the state folder, or as root the recorded one (made
        and recorded on the first start); refused when it is not safely the server's."""
        try:
            self.folder.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            secure_dir(self.folder)
        except (OSError, StateDirError) as exc:
            raise PostgresError(str(exc)) from exc
        if not self.as_root:
            return self.folder
        record = self.folder / CLUSTER_RECORD
        try:
            recorded = read_bounded(record, 4096, private=True).decode().strip()
        except FileNotFoundError:
            recorded = ""
        except (OSError, SchemaError, UnicodeDecodeError) as exc:
            raise PostgresError(f"{record} cannot be used: {exc}") from exc
        if not recorded:
            recorded = str(self._adopt_legacy() or self._make_home())
            write_atomic(record, recorded.encode())
        home = Path(recorded)
        why = check_home(home, self.server_uid)
        if why:
            raise PostgresError(
                f"the fleet's PostgreSQL folder {home} (recorded in {record}) {why}: refused; "
                f"remove {record} to start a new cluster elsewhere"
            )
        return home

    def _adopt_legacy(self) -> Path | None:
        """A cluster of an older pepa at its predictable path: kept when its state folder still
        has the password that made it and the folder is safely the server's."""
        legacy = _legacy_home(self.folder)
        if not legacy.exists() and not legacy.is_symlink():
            return None
        if not (self.folder / "password").exists():
            logger.warning(
                "%s belonged to a state folder since removed: a new cluster is made elsewhere "
                "(remove the old folder when nothing needs it)", legacy,
            )  # fmt: skip
            return None
        why = check_home(legacy, self.server_uid)
        if why:
            raise PostgresError(f"the fleet's PostgreSQL folder {legacy} {why}: refused")
        return legacy

    def _make_home(self) -> Path:
        """A new folder of a random name, 0700, made by ``mkdtemp`` and given to postgres."""
        home = Path(tempfile.mkdtemp(prefix="pepa-pg-", dir="/var/tmp"))
        os.chown(home, self.server_uid, -1)
        logger.info("the fleet's PostgreSQL gets the private folder %s", home)
        return home

    def _passwords(self, bots: Iterable[str]) -> dict[str, str]:
        """Each bot's password, from ``roles.json`` (new ones made and saved)."""
        path = self.folder / ROLES_FILE
        try:
            known = orjson.loads(read_bounded(path, 1024 * 1024, private=True))
        except FileNotFoundError:
            known = {}
        except (OSError, SchemaError, orjson.JSONDecodeError) as exc:
            raise PostgresError(f"{path} cannot be used: {exc}") from exc
        if not isinstance(known, dict):
            raise PostgresError(f"{path} cannot be used: not a JSON object")
        wanted = {bot: str(known.get(bot) or secrets.token_urlsafe(24)) for bot in bots}
        if any(known.get(bot) != password for bot, password in wanted.items()):
            write_atomic(path, orjson.dumps({**known, **wanted}, option=orjson.OPT_INDENT_2))
        return wanted

    def _write_access_rules(self) -> None:
        """``pg_hba.conf`` and ``pg_ident.conf``, written at each start (an older cluster's too):
        the superuser and the owner by peer on the socket, bots by password on 127.0.0.1."""
        me = pwd.getpwuid(os.geteuid()).pw_name
        hba = (
            "# written by pepa at each start of the fleet's PostgreSQL\n"
            f"local all {SUPERUSER},{OWNER} peer map=pepa\n"
            f"host {DATABASE} +{BOTS} 127.0.0.1/32 scram-sha-256\n"
        )
        ident = "".join(f"pepa {me} {role}\n" for role in (SUPERUSER, OWNER))
        for name, text in (("pg_hba.conf", hba), ("pg_ident.conf", ident)):
            path = self.data / name
            write_atomic(path, text.encode())
            if self.as_root:
                os.chown(path, self.server_uid, -1)

    # -- start and stop -------------------------------------------------------------------

    def start(self, bots: Iterable[str]) -> dict[str, str]:
        """Create the cluster once, start it on a free loopback port, set up its roles and
        tables; each bot's URL of the database."""
        roles = {bot: bot_role(bot) for bot in bots}
        self.home = self._choose_home()
        passwords = self._passwords(roles)
        if self._run("pg_ctl", "-D", str(self.data), "status").returncode == 0:
            logger.warning("a PostgreSQL left running by an earlier fleet is stopped first")
            self._must("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")
        if not (self.data / "PG_VERSION").exists():
            self._must("initdb", "-D", str(self.data), "-U", SUPERUSER, "--auth=peer", "-E", "UTF8")
        self._write_access_rules()
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
        self._set_up(roles, passwords)
        (self.folder / "password").unlink(missing_ok=True)  # an older fleet's superuser password
        return {
            bot: f"postgresql://{quote(role, safe='')}:{quote(passwords[bot], safe='')}"
            f"@127.0.0.1:{self.port}/{DATABASE}"
            for bot, role in roles.items()
        }

    def _admin(self, database: str) -> psycopg2.extensions.connection:
        """The superuser on the private socket (peer authentication)."""
        try:
            connection = psycopg2.connect(
                host=str(self.home), port=self.port, user=SUPERUSER, dbname=database,
                connect_timeout=10,
            )  # fmt: skip
        except psycopg2.Error as exc:
            raise PostgresError(f"cannot connect to the fleet's PostgreSQL: {exc}") from exc
        connection.autocommit = True
        return connection

    def _set_up(self, roles: dict[str, str], passwords: dict[str, str]) -> None:
        """Roles, the database, its tables (created as the owner), grants and row rules."""
        connection = self._admin("postgres")
        try:
            with connection.cursor() as cursor:
                cursor.execute(
                    sql.SQL("ALTER ROLE {} PASSWORD NULL").format(sql.Identifier(SUPERUSER))
                )
                _ensure_role(cursor, OWNER, "LOGIN")
                _ensure_role(cursor, BOTS, "NOLOGIN")
                for bot, role in roles.items():
                    _ensure_role(cursor, role, "LOGIN")
                    cursor.execute(
                        sql.SQL("ALTER ROLE {} LOGIN PASSWORD {}").format(
                            sql.Identifier(role), sql.Literal(passwords[bot])
                        )
                    )
                    cursor.execute(sql.SQL("GRANT {} TO {}").format(
                        sql.Identifier(BOTS), sql.Identifier(role)))  # fmt: skip
                cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE,))
                if cursor.fetchone() is None:
                    cursor.execute(sql.SQL("CREATE DATABASE {} OWNER {}").format(
                        sql.Identifier(DATABASE), sql.Identifier(OWNER)))  # fmt: skip
                cursor.execute(sql.SQL("ALTER DATABASE {} OWNER TO {}").format(
                    sql.Identifier(DATABASE), sql.Identifier(OWNER)))  # fmt: skip
                cursor.execute(sql.SQL("REVOKE ALL ON DATABASE {} FROM PUBLIC").format(
                    sql.Identifier(DATABASE)))  # fmt: skip
                cursor.execute(sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(
                    sql.Identifier(DATABASE), sql.Identifier(BOTS)))  # fmt: skip
        finally:
            connection.close()
        connection = self._admin(DATABASE)
        try:
            with connection.cursor() as cursor:
                _give_tables_to_owner(cursor)
            self._create_tables()
            with connection.cursor() as cursor:
                _grant_rows(cursor)
        finally:
            connection.close()

    def _create_tables(self) -> None:
        """Open the knowledge base as its owner: its tables made or upgraded before any bot
        connects (the bots may not create tables)."""
        url = (
            f"postgresql://{OWNER}@/{DATABASE}?host={quote(str(self.home), safe='')}"
            f"&port={self.port}"
        )
        try:
            KnowledgeStore(url=url).open().close()
        except KnowledgeError as exc:
            raise PostgresError(f"cannot create the knowledge tables: {exc}") from exc

    def stop(self) -> None:
        """Stop the server (fast: the bots are gone); a failure is a warning."""
        if not self.started:
            return
        self.started = False
        try:
            self._must("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")
        except PostgresError as exc:
            logger.warning("the fleet's PostgreSQL did not stop: %s", exc)


def _ensure_role(cursor: psycopg2.extensions.cursor, role: str, login: str) -> None:
    """Create ``role`` without any power if it does not exist; take powers from one that does."""
    cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,))
    verb = "ALTER" if cursor.fetchone() else "CREATE"
    cursor.execute(
        sql.SQL(
            "{} ROLE {} " + login + " NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS"
        ).format(sql.SQL(verb), sql.Identifier(role))
    )


def _give_tables_to_owner(cursor: psycopg2.extensions.cursor) -> None:
    """Tables an older fleet made as the superuser go to the owner (their sequences follow)."""
    cursor.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tableowner <> %s",
        (OWNER,),
    )
    for (table,) in cursor.fetchall():
        cursor.execute(sql.SQL("ALTER TABLE {} OWNER TO {}").format(
            sql.Identifier(table), sql.Identifier(OWNER)))  # fmt: skip
    cursor.execute(sql.SQL("ALTER SCHEMA public OWNER TO {}").format(sql.Identifier(OWNER)))
    cursor.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC")


def _grant_rows(cursor: psycopg2.extensions.cursor) -> None:
    """The bots' rights: rows of every table; their own rows only where a row says whose."""
    bots = sql.Identifier(BOTS)
    for statement in (
        "GRANT USAGE ON SCHEMA public TO {}",
        "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {}",
        "GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {}",
    ):
        cursor.execute(sql.SQL(statement).format(bots))
    for table, own in OWN_ROWS:
        name = sql.Identifier(table)
        cursor.execute(sql.SQL("ALTER TABLE {} ENABLE ROW LEVEL SECURITY").format(name))
        for policy, rule in (
            ("pepa_read", "FOR SELECT TO {bots} USING (true)"),
            ("pepa_own", f"FOR ALL TO {{bots}} USING ({own}) WITH CHECK ({own})"),
        ):
            cursor.execute(sql.SQL("DROP POLICY IF EXISTS {} ON {}").format(
                sql.Identifier(policy), name))  # fmt: skip
            cursor.execute(
                sql.SQL("CREATE POLICY {} ON {} " + rule).format(
                    sql.Identifier(policy), name, bots=bots
                )
            )
