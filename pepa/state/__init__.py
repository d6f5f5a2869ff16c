"""What a bot keeps on disk: the state files and their schemas, the memory files (goal, plan,
task, diary, places), operators bound to accounts, proposals, retention, and the knowledge base
(:mod:`pepa.state.knowledge`). Every file is read through a schema; a bad one is moved aside."""
