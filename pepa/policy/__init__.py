"""Pure policy: one package per decision-maker. Each takes a world view (or a snapshot of its
inputs) and ``now``, and answers with decisions as values. No thread, no clock, no file, socket
or database: the actors (:mod:`pepa.actors`) do the I/O and the timing.

- :mod:`.perception`: raw snapshots into the world view and the events that changed;
- :mod:`.reflex`: the reflex chain (fight, flee, cover, eat, sleep, shelter, tasks);
- :mod:`.watchdog`: progress and stuck detection;
- :mod:`.curriculum`: goals into plans, plans into the next task;
- :mod:`.learning`: deaths into post-mortems, lessons and their grades; reflection;
- :mod:`.coach`: when to ask an LLM, what to ask, how to judge its reply;
- :mod:`.persona`: operators' commands, what the bot says and how often;
- :mod:`.relay`: bus events into the socket's messages, the status snapshot.
"""
