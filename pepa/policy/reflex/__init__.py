"""The reflex actor's policy: the reflex chain (:func:`~pepa.policy.reflex.chain.decide`), the
situations lessons are recalled for, advice and the knobs it turns, combat, food and night
plans, dispatch rules, the task slot, failure streaks and the first blow the bridge strikes."""
