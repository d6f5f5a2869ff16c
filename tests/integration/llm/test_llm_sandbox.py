"""pi runs in a bubblewrap sandbox (docs/llm.md, "Isolation"): a stand-in ``pi`` with its tools
tries to read what pepa keeps secret — ``.env``, the Microsoft token cache, the fleet's
database password, a file in HOME — and prints what it got; through a real bwrap it gets
none of it, without bwrap a run with tools is refused."""

from __future__ import annotations

import logging
import shutil
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from pepa.llm import LlmUnavailable, PiBackend
from pepa.llm import sandbox as sandbox_module
from tests.llm_standins.pi_script import calls, install_pi, records

pytestmark = [
    pytest.mark.integration,
    pytest.mark.timeout(60),
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed"),
]

MARKERS = {
    "env": "ENV-MARKER-4c1d",
    "token": "TOKEN-MARKER-9e2a",
    "password": "PG-PASSWORD-MARKER-77b0",
    "home": "HOME-MARKER-31f5",
    "cluster": "CLUSTER-MARKER-5a6c",
    "unlisted": "UNLISTED-MARKER-e812",
}
"""What the stand-in must never print: one per secret it tries."""
LOGIN = "PI-LOGIN-0d3e"
"""In pi's own directory: the stand-in must read it (it is not hidden)."""

READER = """\
for FILE in {files}; do
  printf '%s: ' "$FILE"; cat "$FILE" 2>/dev/null || echo unreadable
done
ls -aR "$HOME" 2>&1
grep -rs MARKER "$HOME" "$PWD" 2>/dev/null
grep -s CapEff /proc/self/status
echo "wrote: $(echo ok > "$HOME/.pi/written" && cat "$HOME/.pi/written")"
echo done
"""
"""A body that tries each file and searches HOME and its working directory."""


@pytest.fixture
def planted(tmp_path: Path, bin_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Path]]:
    """A checkout as the working directory, its ``.env`` and state folder (token cache, the
    fleet's password) planted with markers; HOME with a marker and pi's own directory;
    a fleet cluster and a secret pepa does not know of under ``/var/tmp``. Yields the files
    a stand-in should try."""
    repo = tmp_path / "repo"
    server = repo / "state" / "127.0.0.1_25565"
    files = {
        repo / ".env": f"MC_PASSWORD={MARKERS['env']}\n",
        server / "auth" / "msal-cache.json": f'{{"token": "{MARKERS["token"]}"}}\n',
        server / "postgres" / "roles.json": MARKERS["password"] + "\n",
        tmp_path / "home" / "notes.txt": MARKERS["home"] + "\n",
        tmp_path / "home" / ".pi" / "agent" / "auth.json": LOGIN + "\n",
    }
    tag = uuid.uuid4().hex[:8]
    cluster = Path("/var/tmp") / f"pepa-pg-test-{tag}"
    files[cluster / "password"] = MARKERS["cluster"] + "\n"
    unlisted = Path("/var/tmp") / f"pepa-test-unlisted-{tag}"  # a secret pepa knows nothing of
    files[unlisted / "secret"] = MARKERS["unlisted"] + "\n"
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("PI_CODING_AGENT_DIR")  # pi's directory is ~/.pi
    monkeypatch.chdir(repo)
    try:
        yield list(files)
    finally:
        shutil.rmtree(cluster, ignore_errors=True)
        shutil.rmtree(unlisted, ignore_errors=True)


def ask(command: str = "pi", *, tools: bool = True) -> str:
    """What pi printed for one question (stdout and stderr)."""
    backend = PiBackend(command)
    if not tools:
        return backend.complete("what do you see?", timeout=30)
    done = threading.Event()
    chunks: list[str] = []
    running = backend.stream(
        "what do you see?", on_chunk=lambda s, t: chunks.append(t),
        on_done=lambda c, m: done.set(), timeout=30, tools=True,
    )  # fmt: skip
    assert done.wait(30)
    running.join()
    return "".join(chunks)


def assert_nothing_secret(said: str) -> None:
    assert "done" in said  # it ran to its end
    for name, marker in MARKERS.items():
        assert marker not in said, f"pi read the {name} marker"
    assert LOGIN in said  # pi's own directory is there: its login, its sessions
    assert "wrote: ok" in said  # … and writable


def test_pi_with_its_tools_reads_no_secret(bin_dir: Path, planted: list[Path]) -> None:
    install_pi(bin_dir, READER.format(files=" ".join(f"'{p}'" for p in planted)))
    said = ask()
    assert_nothing_secret(said)
    assert "CapEff:\t0000000000000000" in said  # root's capabilities dropped: no unmounting


def test_a_structured_ask_reads_no_secret_either(bin_dir: Path, planted: list[Path]) -> None:
    install_pi(bin_dir, READER.format(files=" ".join(f"'{p}'" for p in planted)))
    assert_nothing_secret(ask(tools=False))


def test_a_pi_installed_inside_the_checkout_still_reads_no_secret(
    bin_dir: Path, planted: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # its program's directory, the checkout, is shown read-only: .env and state/ are covered
    repo = Path.cwd()
    monkeypatch.setenv("PATH", f"{repo}:{bin_dir}:/usr/bin:/bin")
    install_pi(repo, READER.format(files=" ".join(f"'{p}'" for p in planted)))
    assert_nothing_secret(ask())


def test_without_the_sandbox_the_same_stand_in_reads_every_secret(
    bin_dir: Path, planted: list[Path], monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    # the check above is not vacuous: unconfined, the stand-in prints each marker
    monkeypatch.setenv("PEPA_PI_SANDBOX", "off")
    caplog.set_level(logging.WARNING, logger="pepa.llm")
    install_pi(bin_dir, READER.format(files=" ".join(f"'{p}'" for p in planted)))
    said = ask() + ask()
    for marker in MARKERS.values():
        assert marker in said
    warnings = [r.getMessage() for r in caplog.records if "PEPA_PI_SANDBOX=off" in r.getMessage()]
    assert len(warnings) == 2  # one at every run


def test_without_bwrap_a_run_with_tools_is_refused_in_one_line(
    bin_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_pi(bin_dir, "echo ran")
    for setting, name in (("", "bwrap"), ("/nowhere/bwrap", "/nowhere/bwrap")):
        if setting:
            monkeypatch.setenv("PEPA_PI_SANDBOX", setting)
        else:
            monkeypatch.setenv("PATH", str(bin_dir))  # the stand-in, and no bwrap
        with pytest.raises(LlmUnavailable) as info:
            ask()
        message = str(info.value)
        assert "\n" not in message
        assert f"`{name}` is not installed (Debian: apt-get install bubblewrap)" in message
        assert "PEPA_PI_SANDBOX=off" in message
    assert calls(bin_dir) == []  # it never ran


def test_without_bwrap_structured_asks_run_unconfined_after_one_warning(
    bin_dir: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(sandbox_module, "_warned", set())
    monkeypatch.setenv("PEPA_PI_SANDBOX", str(records(bin_dir) / "no-bwrap"))
    caplog.set_level(logging.WARNING, logger="pepa.llm")
    install_pi(bin_dir, "echo '{}'")
    for _ in range(3):
        assert PiBackend().complete("plan this", timeout=20).strip() == "{}"
    assert len(calls(bin_dir)) == 3
    (warning,) = [r.getMessage() for r in caplog.records if "bubblewrap" in r.getMessage()]
    assert "structured asks (tools off) run without the sandbox" in warning
