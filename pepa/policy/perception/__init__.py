"""The perception actor's policy: each raw snapshot into a typed view, once, and into the events
that changed since the last one (:class:`~pepa.policy.perception.model.WorldModel`)."""
