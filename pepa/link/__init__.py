"""The bot's link to a Minecraft server: mineflayer in the JS bridge's Node, driven from Python.

:mod:`.api` is the :class:`~pepa.link.api.Link` protocol actors and skills program against;
:mod:`.actions` the catalogue of the bot's actions, which the links dispatch by name (one row
each, held to the bot's JS by tests/fast/link/test_actions.py); :mod:`.minecraft` the real link (its
thread, reconnects, AuthMe, the bot's JS in ``js/``); :mod:`.bridge` and :mod:`.jspy` the one
JSPyBridge process and its hardening. Only this package imports ``javascript``. Its JS never
requires the world server's (:mod:`pepa.worldserver`).
"""
