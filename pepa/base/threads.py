"""Threads named for the bot they work for.

A fleet worker hosts several bots in one process (docs/fleet.md): every
thread that works for one bot carries its name after ``@``
(``knowledge@miner1``, ``pepa-world-link@miner1``), so a log record can be
told apart by the thread that wrote it (:class:`pepa.base.logs.BotFilter`), and a
traceback dump says whose thread hangs. A thread started from a bot's thread
takes the same mark through :func:`thread_name`. Minecraft names have no
``@``; a thread without the mark belongs to the process.
"""

from __future__ import annotations

import threading

__all__ = ["BOT_MARK", "bot_of", "thread_name"]

BOT_MARK = "@"


def thread_name(base: str, bot: str | None = None) -> str:
    """``base@bot``; without ``bot``, the bot of the calling thread (none: ``base``)."""
    bot = bot_of(threading.current_thread().name) if bot is None else bot
    return f"{base}{BOT_MARK}{bot}" if bot else base


def bot_of(name: str) -> str:
    """The bot a thread's name ends with, or "" (a thread of the process, not of one bot)."""
    _, mark, bot = name.rpartition(BOT_MARK)
    return bot if mark else ""
