"""The persona actor's policy: who may command the bot and what each command does, the chat
rate limit, what may reach chat, and the bot's remarks."""
