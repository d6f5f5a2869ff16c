"""What ``pepa propose``'s tests apply proposals with: a proposal, stand-in LLM commands as small
scripts (each records what it saw), git in a repository of the test's own.

A stand-in runs in the apply command's sandbox: it records into pi's own directory
(``PI_CODING_AGENT_DIR``, :func:`agent_dir`), the one place a sandboxed command may write
that outlives it, and its own directory is read-only there."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

PROPOSAL_ID = "20261130-015700-nav-goto-alice.md"

PROPOSAL = (
    "# Proposal: `nav.goto alice` keeps failing\n\n"
    "## Failures\n\n1. no path\n2. no path\n3. no path\n"
)

BRANCH = "feat/proposal-nav-goto-alice"

STASH = f"pepa-proposal-{PROPOSAL_ID}"

STANDINS = {
    "edit": """
pathlib.Path("pepa").mkdir(exist_ok=True)
pathlib.Path("pepa/fix.txt").write_text("fixed\\n")
readme = pathlib.Path("README.md")
readme.write_text(readme.read_text() + "more\\n")
print("stand-in: edited two files", flush=True)
""",
    "commit": """
pathlib.Path("fix.txt").write_text("fixed\\n")
subprocess.run(["git", "add", "fix.txt"], check=True)
subprocess.run(["git", "commit", "-q", "-m", "stand-in: own commit"], check=True)
""",
    "nothing": """
print("stand-in: nothing to do", flush=True)
""",
    "fail": """
pathlib.Path("docs").mkdir(exist_ok=True)
pathlib.Path("docs/half.txt").write_text("half done\\n")
sys.exit(3)
""",
    "litter": """
for name in (".env", "state/x", "ignored/cache", "pepa/new.py", "notes.txt"):
    pathlib.Path(name).parent.mkdir(exist_ok=True)
    pathlib.Path(name).write_text(f"{name}: MC_PASSWORD=hunter2\\n")
readme = pathlib.Path("README.md")
readme.write_text(readme.read_text() + "more\\n")
subprocess.run(["git", "add", "-f", ".env", "state/x"], check=True)  # staged: still not committed
""",
    "commit-secret": """
pathlib.Path("tests").mkdir(exist_ok=True)
pathlib.Path("tests/id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\\n")
subprocess.run(["git", "add", "tests/id_rsa"], check=True)
subprocess.run(["git", "commit", "-q", "-m", "stand-in: adds a key"], check=True)
""",
    "hang": """
signal.pause()  # hangs until pepa ends it
""",
    "interrupt": """
signal.pause()  # until the test presses Ctrl-C (SIGINT to pepa)
""",
    "switch": """
subprocess.run(["git", "checkout", "-q", "main"], check=True)
pathlib.Path("stray.txt").write_text("on main\\n")
""",
}
"""Bodies of the stand-in LLM commands; each first records what it saw."""

PREAMBLE = """\
import json, os, pathlib, signal, subprocess, sys, time
branch = subprocess.run(
    ["git", "symbolic-ref", "--short", "HEAD"], capture_output=True, text=True
).stdout.strip()
seen = {"prompt": sys.argv[-1], "cwd": os.getcwd(), "branch": branch,
        "env": os.environ.get("PEPA_PROPOSAL_ID"), "environ": dict(os.environ)}
record = pathlib.Path(os.environ["PI_CODING_AGENT_DIR"], pathlib.Path(__file__).stem)
record.with_suffix(".seen.json").write_text(json.dumps(seen))
"""


def agent_dir(tmp_path: Path) -> Path:
    """pi's own directory in a test (``PI_CODING_AGENT_DIR``): where the stand-ins record."""
    return tmp_path / "pi-agent"


def seen(tmp_path: Path, kind: str) -> dict[str, object]:
    """What the stand-in ``kind`` recorded when it started; empty if it never ran."""
    path = agent_dir(tmp_path) / f"{kind}.seen.json"
    return dict(json.loads(path.read_text())) if path.exists() else {}


def running(script: Path) -> list[int]:
    """Processes whose command line names ``script`` (a stand-in still running)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if str(script).encode() in cmdline.read_bytes():
                found.append(int(cmdline.parent.name))
        except OSError:
            continue  # ended while we looked
    return found


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True)
    return done.stdout


def standin(tmp_path: Path, kind: str, body: str = "") -> list[str]:
    """The command line of a stand-in LLM command (outside the repository)."""
    folder = tmp_path / "standins"
    folder.mkdir(exist_ok=True)
    script = folder / f"{kind}.py"
    script.write_text(PREAMBLE + (body or STANDINS[kind]))
    return [sys.executable, str(script)]


def assert_back_on_main_and_clean(repo: Path) -> None:
    assert git(repo, "symbolic-ref", "--short", "HEAD").strip() == "main"
    assert git(repo, "status", "--porcelain") == ""
