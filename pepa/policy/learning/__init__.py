"""The knowledge actor's policy: a death into its analysis and an offline post-mortem, lessons
graded by their outcomes, and reflection over days of deaths and lessons."""
