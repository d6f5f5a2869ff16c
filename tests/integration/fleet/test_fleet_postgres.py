"""The fleet's own PostgreSQL (pepa/fleet/postgres.py), started for real from Debian's binaries:
what the colony learns survives, each bot logs in as a role with no power but its rows, and
the cluster's folder and files are refused when someone else could have planted them."""

from __future__ import annotations

import logging
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg2
import pytest

from pepa.fleet.postgres import (
    CLUSTER_RECORD,
    ROLES_FILE,
    LocalPostgres,
    PostgresError,
    _legacy_home,
    cluster_home,
    find_bin_dir,
)
from pepa.state.knowledge.store import KnowledgeStore
from pepa.worldserver.process import free_port
from tests.pg_server import PostgresServer

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

BOTS = ["Miner", "Farmer"]


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
    folder = root / "127.0.0.1_25565" / "postgres"
    yield root / "127.0.0.1_25565"
    home = cluster_home(folder)
    if home != folder:
        shutil.rmtree(home, ignore_errors=True)
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def fleet_pg(bin_dir: Path, state: Path) -> Iterator[tuple[LocalPostgres, dict[str, str]]]:
    postgres = LocalPostgres(state / "postgres", bin_dir)
    urls = postgres.start(BOTS)
    try:
        yield postgres, urls
    finally:
        postgres.stop()


def lessons_told(url: str, bot: str, text: str | None = None) -> list[str]:
    """The lessons in the base, after ``bot`` wrote ``text`` (through the real store)."""
    store = KnowledgeStore(url=url, bot=bot).open()
    try:
        if text is not None:
            store.log_chat(speaker=bot, direction="in", text=text)
        with psycopg2.connect(url, connect_timeout=10) as connection, connection.cursor() as cur:
            cur.execute("SELECT text FROM chat_log ORDER BY id")
            rows = [str(row[0]) for row in cur.fetchall()]
        connection.close()
        return rows
    finally:
        store.close()


def refusal(url: str, statement: str) -> str:
    """The error PostgreSQL gives a bot for ``statement`` ("" if it ran)."""
    connection = psycopg2.connect(url, connect_timeout=10)
    try:
        with connection.cursor() as cursor:
            cursor.execute(statement)
        connection.commit()
        return ""
    except psycopg2.Error as exc:
        return str(exc).strip().splitlines()[0]
    finally:
        connection.close()


def test_the_colony_knowledge_survives_the_fleet_and_goes_with_its_state_folder(
    bin_dir: Path, state: Path
) -> None:
    first = LocalPostgres(state / "postgres", bin_dir)
    urls = first.start(BOTS)
    try:
        assert lessons_told(urls["Miner"], "Miner", "creepers explode") == ["creepers explode"]
    finally:
        first.stop()

    again = LocalPostgres(state / "postgres", bin_dir)
    try:  # the next fleet knows it, and a bot seen for the first time reads it too
        assert lessons_told(again.start([*BOTS, "Scout"])["Scout"], "Scout") == ["creepers explode"]
    finally:
        again.stop()

    # the user removes the state folder: the next fleet starts a colony of its own
    shutil.rmtree(state)
    fresh = LocalPostgres(state / "postgres", bin_dir)
    try:
        assert lessons_told(fresh.start(BOTS)["Farmer"], "Farmer") == []
    finally:
        fresh.stop()


def test_a_bot_is_no_superuser_and_cannot_run_programs_or_make_tables(
    fleet_pg: tuple[LocalPostgres, dict[str, str]],
) -> None:
    _, urls = fleet_pg
    url = urls["Miner"]
    assert lessons_told(url, "Miner", "it can write rows") == ["it can write rows"]
    assert "must be superuser" in refusal(url, "COPY chat_log TO PROGRAM 'id'")
    assert "permission denied" in refusal(url, "CREATE TABLE planted (x int)")
    assert "must be owner" in refusal(url, "DROP TABLE lessons")
    assert "permission denied" in refusal(url, "ALTER ROLE \"pepa_bot_Farmer\" PASSWORD 'mine'")
    connection = psycopg2.connect(url, connect_timeout=10)
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT rolsuper, rolcreaterole FROM pg_roles WHERE rolname = current_user"
            )
            assert cursor.fetchone() == (False, False)
    finally:
        connection.close()


def test_a_bot_writes_only_its_own_deaths_but_reads_everyone_s(
    fleet_pg: tuple[LocalPostgres, dict[str, str]],
) -> None:
    _, urls = fleet_pg
    miner = KnowledgeStore(url=urls["Miner"], bot="Miner").open()
    farmer = KnowledgeStore(url=urls["Farmer"], bot="Farmer").open()
    try:
        death = miner.record_death(
            reason="Miner fell", position={"x": 1, "y": 2, "z": 3}, bundle={}
        )
        farmer.record_death(reason="Farmer drowned", position=None, bundle={})
        assert {d.reason for d in farmer.deaths()} == {"Miner fell", "Farmer drowned"}
        # another bot's death can be neither rewritten, forged nor given a post-mortem
        assert (
            refusal(urls["Farmer"], f"UPDATE deaths SET reason = 'x' WHERE id = {death.id}") == ""
        )
        assert {d.reason for d in miner.deaths()} == {"Miner fell", "Farmer drowned"}
        forged = refusal(
            urls["Farmer"],
            "INSERT INTO deaths (at, reason, bot, bundle, cause_kind) "
            "VALUES (now(), 'forged', 'Miner', '{}', 'x')",
        )
        assert "row-level security" in forged
        other = refusal(
            urls["Farmer"],
            "INSERT INTO postmortems (death, backend, cause, analysis, created) "
            f"VALUES ({death.id}, 'b', 'c', 'a', now())",
        )
        assert "row-level security" in other
        miner.add_postmortem(death.id, backend="offline", cause="fall", analysis="look down")
        assert miner.postmortems(death.id)
    finally:
        miner.close()
        farmer.close()


def test_the_superuser_has_no_password_and_the_bots_passwords_are_private(
    fleet_pg: tuple[LocalPostgres, dict[str, str]],
) -> None:
    postgres, urls = fleet_pg
    with pytest.raises(psycopg2.Error):  # over TCP the superuser has no way in
        psycopg2.connect(
            host="127.0.0.1", port=postgres.port, user="pepa", dbname="postgres",
            password="", connect_timeout=10,
        )  # fmt: skip
    roles = postgres.folder / ROLES_FILE
    assert stat.S_IMODE(roles.stat().st_mode) == 0o600
    assert set(urls) == set(BOTS)
    assert len({url.split("@")[0] for url in urls.values()}) == len(BOTS)  # one login each


@pytest.mark.skipif(os.geteuid() != 0, reason="the /var/tmp cluster folder is root's mode")
def test_as_root_a_planted_cluster_folder_is_refused(bin_dir: Path, state: Path) -> None:
    folder = state / "postgres"
    folder.mkdir(parents=True, mode=0o700)
    # an older pepa's predictable folder, made by someone else while the password exists
    legacy = _legacy_home(folder)
    (folder / "password").write_text("old")
    legacy.mkdir(mode=0o700)
    os.chown(legacy, 65534, -1)  # nobody's, not the postgres user's
    try:
        with pytest.raises(PostgresError, match="owned by uid 65534"):
            LocalPostgres(folder, bin_dir).start(BOTS)
        assert not (folder / CLUSTER_RECORD).exists()
    finally:
        legacy.rmdir()
    # a recorded folder swapped for a symbolic link
    target = Path(tempfile.mkdtemp(prefix="pepa-pg-target-", dir="/var/tmp"))
    link = Path(tempfile.mktemp(prefix="pepa-pg-link-", dir="/var/tmp"))
    link.symlink_to(target)
    (folder / CLUSTER_RECORD).write_text(str(link))
    (folder / CLUSTER_RECORD).chmod(0o600)
    try:
        with pytest.raises(PostgresError, match="symbolic link"):
            LocalPostgres(folder, bin_dir).start(BOTS)
        assert list(target.iterdir()) == []  # nothing written through it
    finally:
        link.unlink()
        target.rmdir()


def test_a_planted_roles_file_is_refused(bin_dir: Path, state: Path) -> None:
    folder = state / "postgres"
    folder.mkdir(parents=True, mode=0o700)
    elsewhere = Path(tempfile.mkdtemp(prefix="pepa-elsewhere-", dir="/tmp"))
    try:
        (elsewhere / "roles").write_text("{}")
        (folder / ROLES_FILE).symlink_to(elsewhere / "roles")
        with pytest.raises(PostgresError, match="symbolic link"):
            LocalPostgres(folder, bin_dir).start(BOTS)
        (folder / ROLES_FILE).unlink()
        os.mkfifo(folder / ROLES_FILE)  # a FIFO would block a reader for ever
        with pytest.raises(PostgresError, match="not a regular file"):
            LocalPostgres(folder, bin_dir).start(BOTS)
        (folder / ROLES_FILE).unlink()
        (folder / ROLES_FILE).write_text("{}")
        (folder / ROLES_FILE).chmod(0o644)
        with pytest.raises(PostgresError, match="0600"):
            LocalPostgres(folder, bin_dir).start(BOTS)
    finally:
        shutil.rmtree(elsewhere)


def test_a_bot_that_logs_in_as_a_superuser_is_warned_and_the_fleet_s_own_bots_are_not(
    fleet_pg: tuple[LocalPostgres, dict[str, str]],
    postgres: PostgresServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="pepa.state.knowledge.store")
    KnowledgeStore(url=fleet_pg[1]["Miner"], bot="Miner").open().close()
    assert "superuser" not in caplog.text
    KnowledgeStore(url=postgres.create_database("as_superuser"), bot="Miner").open().close()
    assert "logs in as a superuser" in caplog.text


def test_a_cluster_an_older_pepa_made_keeps_its_knowledge_and_loses_its_superuser_login(
    bin_dir: Path, state: Path
) -> None:
    """Before roles: the cluster's superuser ``pepa`` had a password every bot used."""
    folder = state / "postgres"
    folder.mkdir(parents=True, mode=0o700)
    old = LocalPostgres(folder, bin_dir)
    old.home = _legacy_home(folder) if old.as_root else folder
    old.home.mkdir(mode=0o700, exist_ok=True)
    if old.as_root:
        os.chown(old.home, old.server_uid, -1)
    (folder / "password").write_text("old-secret")
    pwfile = old.home / "pw"
    pwfile.write_text("old-secret\n")
    if old.as_root:
        os.chown(pwfile, old.server_uid, -1)
    old._must("initdb", "-D", str(old.data), "-U", "pepa", "--auth=scram-sha-256",
              f"--pwfile={pwfile}", "-E", "UTF8")  # fmt: skip
    pwfile.unlink()
    old.port = free_port()
    old._must("pg_ctl", "-D", str(old.data), "-o", f"-p {old.port} -k {old.home} "
              "-c listen_addresses=127.0.0.1", "-l", str(old.log_path), "-w", "start")  # fmt: skip
    old.started = True
    superuser_url = f"postgresql://pepa:old-secret@127.0.0.1:{old.port}/postgres"
    connection = psycopg2.connect(superuser_url)
    connection.autocommit = True
    connection.cursor().execute("CREATE DATABASE pepa")
    connection.close()
    older_url = f"postgresql://pepa:old-secret@127.0.0.1:{old.port}/pepa"
    assert lessons_told(older_url, "Miner", "learned long ago") == ["learned long ago"]
    old.stop()

    now = LocalPostgres(folder, bin_dir)
    urls = now.start(BOTS)
    try:
        assert now.home == old.home
        assert lessons_told(urls["Farmer"], "Farmer", "and now") == ["learned long ago", "and now"]
        with pytest.raises(psycopg2.OperationalError):  # the old login opens nothing now
            psycopg2.connect(older_url.replace(str(old.port), str(now.port)), connect_timeout=10)
        assert not (folder / "password").exists()
    finally:
        now.stop()
