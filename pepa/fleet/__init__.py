"""``pepa fleet``: many bots from one command, several to a worker process, one knowledge base
for all of them, optionally spread over a Ray cluster (``docs/fleet.md``)."""
