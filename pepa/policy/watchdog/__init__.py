"""The watchdog actor's policy: progress, the stuck ladder and the places the pathfinder walks
around (:class:`~pepa.policy.watchdog.progress.ProgressWatch`)."""
