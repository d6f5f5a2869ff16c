"""The IPC actor's policy: bus events into the socket protocol's messages, and the status
snapshot a dashboard sees."""
