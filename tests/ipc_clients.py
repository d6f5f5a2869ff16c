"""Raw clients of the IPC socket for the limits tests: a connection, a chat line, a flood writer
that holds its last lines until told."""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path

import orjson

DEADLINE = 10.0

SNAPSHOT_LINE = b'{"type":"cmd:snapshot"}\n'


def chat_line(seq: int) -> bytes:
    return orjson.dumps({"type": "cmd:chat", "text": f"flood {seq}"}) + b"\n"


def raw_connect(path: Path) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(DEADLINE)
    sock.connect(os.fspath(path))
    return sock


def flood_writer(
    sock: socket.socket,
    total: int,
    sent: threading.Event,
    errors: list[BaseException],
    hold: threading.Event,
) -> threading.Thread:
    """A thread that writes ``total`` commands (snapshots and chat lines) as fast as it can,
    all but the last thousand, which wait for ``hold``: until then the flood is unfinished."""

    def write() -> None:
        try:
            lines = [SNAPSHOT_LINE if seq % 2 else chat_line(seq) for seq in range(total)]
            for start in range(0, total, 1000):
                if start + 1000 >= total and not hold.wait(300):
                    raise TimeoutError("the flood's last lines were held for 300 s")
                sock.sendall(b"".join(lines[start : start + 1000]))
            sent.set()
        except BaseException as exc:
            errors.append(exc)

    return threading.Thread(target=write, name="test-flood-writer")
