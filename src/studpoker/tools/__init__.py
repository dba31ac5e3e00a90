"""Player tools: the bot-match runner (:mod:`.match`) and terminal play (:mod:`.play`)."""
