"""The daemon: ``pepa start``'s process supervisor (:mod:`.parent`) over one worker process
(:mod:`.worker`), which runs one bot's parts (:mod:`.bothost`); the configuration
(:mod:`.config`), handed to the worker through a pipe (:mod:`.handover`); the state lock
(:mod:`.lock`); restarts and exit codes (:mod:`.restarts`); ``--reload`` (:mod:`.reload`)."""
