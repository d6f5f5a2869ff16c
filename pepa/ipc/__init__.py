"""The IPC layer: the wire protocol, the daemon's socket server and a blocking client."""

from __future__ import annotations

from pepa.ipc.client import CLIENT_MAX_LINE_BYTES, IpcClient, IpcClientError, find_sockets
from pepa.ipc.protocol import (
    COMMAND_TYPES,
    DECISIONS,
    FAULT_KINDS,
    MAX_LINE_BYTES,
    AskPi,
    Chat,
    Command,
    Fault,
    LineSplitter,
    Pause,
    ProposalDecision,
    Resume,
    Snapshot,
    Stop,
    decode_command,
    encode,
    encode_command,
)
from pepa.ipc.server import AF_UNIX_PATH_MAX, IpcServer, IpcServerError, IpcStats

__all__ = [
    "AF_UNIX_PATH_MAX",
    "CLIENT_MAX_LINE_BYTES",
    "COMMAND_TYPES",
    "DECISIONS",
    "FAULT_KINDS",
    "MAX_LINE_BYTES",
    "AskPi",
    "Chat",
    "Command",
    "Fault",
    "IpcClient",
    "IpcClientError",
    "IpcServer",
    "IpcServerError",
    "IpcStats",
    "LineSplitter",
    "Pause",
    "ProposalDecision",
    "Resume",
    "Snapshot",
    "Stop",
    "decode_command",
    "encode",
    "encode_command",
    "find_sockets",
]
