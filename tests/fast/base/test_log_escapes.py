"""Text from outside reaches log messages; no handler lets it forge a line or send a terminal
escape sequence."""

from __future__ import annotations

import io
import logging
from pathlib import Path

from pepa.base.logs import configure, escape_controls, record_to_event

KICK = "Kicked\x1b[2J\x1b]0;owned\x07\n2026-12-07 00:00:00 INFO    pepa.cli: operator is admin"


def test_control_characters_are_escaped_and_the_tab_kept() -> None:
    assert escape_controls("a\tb\nc\r\x1b[0m\x7f\u2028") == "a\tb\\nc\\r\\x1b[0m\\x7f\\u2028"
    assert escape_controls("plain, Привет") == "plain, Привет"


def test_a_kick_reason_with_escapes_stays_one_line_on_the_console_in_the_file_and_on_the_socket(
    tmp_path: Path,
) -> None:
    stream = io.StringIO()
    root = logging.getLogger()
    before = (root.handlers[:], root.level)
    ring = configure(logs_dir=tmp_path / "logs", stream=stream)
    logger = logging.getLogger("pepa.test.kick")
    try:
        logger.warning("kicked: %s", KICK)
        try:
            raise ValueError("boom")
        except ValueError:
            logger.exception("with a traceback")
    finally:
        for handler in root.handlers[:]:
            root.removeHandler(handler)
            handler.close()
        for handler in before[0]:
            root.addHandler(handler)
        root.setLevel(before[1])
    console = stream.getvalue()
    (log,) = (tmp_path / "logs").glob("*.log")
    for text in (console, log.read_text()):
        kicked = [line for line in text.splitlines() if "kicked:" in line]
        assert len(kicked) == 1 and "\x1b" not in text and "\x07" not in text
        assert "\\x1b[2J" in kicked[0] and "\\n2026-12-07" in kicked[0]
        assert not any(line.startswith("2026-12-07 00:00:00") for line in text.splitlines())
        assert "Traceback (most recent call last):\n" in text  # tracebacks keep their lines
    (shown,) = [e for e in ring.recent() if "kicked:" in e.text]
    assert "\x1b" not in shown.text and "\n" not in shown.text
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "%s", (KICK,), None)
    assert "\n" not in record_to_event(record).text
