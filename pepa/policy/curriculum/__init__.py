"""The curriculum actor's policy: a goal into milestones (:mod:`.plan`), and which milestone to
work next, when to rest and what to do with a lost task (:mod:`.assigner`)."""
