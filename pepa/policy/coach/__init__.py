"""The coach actor's policy: when to ask an LLM (idle, a death, a new goal, a reflection),
within which budget, with which prompt, and how its reply is validated and judged."""
