"""A stand-in ``pi``: a small script written into a directory put first on PATH.

``<pi> … --help`` prints a help text (by default pi's own options, ``--no-tools``
included; :data:`OLD_HELP` lacks it) and counts the probe in ``help.log``. Any
other run appends its prompt (the last argument) to ``calls.log``, then runs the
body the test chose: print a reply, print garbage, wait for a gate file, fail with
error text … The body sees the original arguments in ``$ARGS`` and, as before,
``$1`` = ``-p`` and ``$2`` = the prompt.

:func:`install_recorder` writes a Python stand-in instead that records each
run's argv, working directory (and what it holds) and environment as a JSON
line in ``runs.jsonl``.

pi runs in a sandbox (:mod:`pepa.llm.sandbox`) where its program's directory is
read-only and pi's own directory (``PI_CODING_AGENT_DIR``) the one writable place
that outlives the run: the logs, and a test's gate files, go there
(:func:`records`; the stand-in's own directory when the variable is unset).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

__all__ = [
    "HELP", "OLD_HELP", "calls", "install_pi", "install_recorder", "printing", "probes",
    "records", "runs",
]  # fmt: skip

SEPARATOR = "\n--- end of prompt ---\n"

HELP = """pi - AI coding assistant with read, bash, edit, write tools

Usage:
  pi [options] [@files...] [messages...]

Options:
  --print, -p                    Non-interactive mode: process prompt and exit
  --no-session                   Don't save session (ephemeral)
  --no-tools, -nt                Disable all tools by default (built-in and extension)
  --tools, -t <tools>            Comma-separated allowlist of tool names to enable
  --no-extensions, -ne           Disable extension discovery (explicit -e paths still work)
  --no-skills, -ns               Disable skills discovery and loading
  --no-prompt-templates, -np     Disable prompt template discovery and loading
  --no-context-files, -nc        Disable AGENTS.md and CLAUDE.md discovery and loading
"""
"""A current pi's help (0.73): every option pepa looks for, and no ``--``."""
OLD_HELP = """agent - does things with tools

Options:
  --print, -p                    Non-interactive mode
  --tools <tools>                Comma-separated list of tools to enable (default: read,bash)
  --no-extensions                Disable extension discovery
"""
"""A command that cannot turn its tools off."""


def records(directory: Path) -> Path:
    """Where the stand-in in ``directory`` records: pi's own directory
    (``PI_CODING_AGENT_DIR``, writable in the sandbox), else ``directory``."""
    return Path(os.environ.get("PI_CODING_AGENT_DIR") or directory)


def install_pi(directory: Path, body: str, *, name: str = "pi", help_text: str = HELP) -> Path:
    """Write an executable ``name`` script into ``directory``; returns its path."""
    directory.mkdir(parents=True, exist_ok=True)
    log = records(directory) / "calls.log"
    script = directory / name
    script.write_text(
        "#!/bin/sh\n"
        "for PROMPT; do :; done\n"  # the last argument
        'if [ "$PROMPT" = "--help" ]; then\n'
        f"  echo probe >> '{records(directory) / 'help.log'}'\n"
        f"  cat <<'PEPA_STANDIN_HELP'\n{help_text}\nPEPA_STANDIN_HELP\n"
        "  exit 0\n"
        "fi\n"
        'for ARG; do [ "$ARG" = "--" ] && { echo "Error: Unknown option: --" >&2; exit 1; }; done\n'
        'ARGS="$*"\n'
        f"printf '%s{SEPARATOR.encode('unicode_escape').decode()}' \"$PROMPT\" >> '{log}'\n"
        'set -- -p "$PROMPT"\n'
        f"{body}\n"
    )
    script.chmod(0o755)
    return script


RECORDER = """#!{python}
import json, os, pathlib, sys
here = pathlib.Path(os.getcwd())
run = {{"argv": sys.argv, "cwd": str(here), "listing": sorted(os.listdir(here)),
       "mode": here.stat().st_mode & 0o777, "env": dict(os.environ)}}
with open({log!r}, "a") as log:
    log.write(json.dumps(run) + "\\n")
if "--" in sys.argv[1:]:  # as pi 0.73 does
    sys.exit("Error: Unknown option: --")
sys.stdout.write({help!r} if sys.argv[-1] == "--help" else {reply!r})
"""


def install_recorder(
    directory: Path, reply: str, *, name: str = "pi", help_text: str = HELP
) -> Path:
    """A stand-in that records every run (``--help`` probes too) and answers ``reply``."""
    directory.mkdir(parents=True, exist_ok=True)
    script = directory / name
    log = str(records(directory) / "runs.jsonl")
    script.write_text(
        RECORDER.format(python=sys.executable, log=log, help=help_text, reply=reply + "\n")
    )
    script.chmod(0o755)
    return script


def runs(directory: Path) -> list[dict[str, Any]]:
    """What the recorder saw, oldest first."""
    log = records(directory) / "runs.jsonl"
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


def probes(directory: Path) -> int:
    """How often the shell stand-in was asked for its ``--help``."""
    log = records(directory) / "help.log"
    return len(log.read_text().splitlines()) if log.exists() else 0


def printing(text: str) -> str:
    """A body that prints ``text`` verbatim on stdout and exits 0."""
    return f"cat <<'PEPA_STANDIN_EOF'\n{text}\nPEPA_STANDIN_EOF"


def calls(directory: Path) -> list[str]:
    """The prompts the stand-in received so far, oldest first."""
    log = records(directory) / "calls.log"
    if not log.exists():
        return []
    return log.read_text().split(SEPARATOR)[:-1]
