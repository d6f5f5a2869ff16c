"""The bot's world as data: the typed :class:`~pepa.world.view.WorldView` built from one
snapshot, and :class:`~pepa.world.death.DeathCause`, why the bot died. Pure values, checked on
the way in; no thread, clock or I/O."""
