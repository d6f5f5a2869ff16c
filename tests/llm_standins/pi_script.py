"""A stand-in ``pi``: a small shell script written into a directory put first on PATH.

Every run appends its prompt (``$2`` of ``pi -p PROMPT``) to ``calls.log`` in
the same directory, then runs the body the test chose: print a reply, print
garbage, wait for a gate file, fail with error text …
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["calls", "install_pi", "printing"]

SEPARATOR = "\n--- end of prompt ---\n"


def install_pi(directory: Path, body: str, *, name: str = "pi") -> Path:
    """Write an executable ``name`` script into ``directory``; returns its path."""
    directory.mkdir(parents=True, exist_ok=True)
    log = directory / "calls.log"
    script = directory / name
    script.write_text(
        "#!/bin/sh\n"
        f"printf '%s{SEPARATOR.encode('unicode_escape').decode()}' \"$2\" >> '{log}'\n"
        f"{body}\n"
    )
    script.chmod(0o755)
    return script


def printing(text: str) -> str:
    """A body that prints ``text`` verbatim on stdout and exits 0."""
    return f"cat <<'PEPA_STANDIN_EOF'\n{text}\nPEPA_STANDIN_EOF"


def calls(directory: Path) -> list[str]:
    """The prompts the stand-in received so far, oldest first."""
    log = directory / "calls.log"
    if not log.exists():
        return []
    return log.read_text().split(SEPARATOR)[:-1]
