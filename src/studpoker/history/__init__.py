"""Hand histories: the PHH interchange format (:mod:`studpoker.history.phh`), the readable
text history in the style of online rooms (:mod:`studpoker.history.text`) and PokerStars hand
histories for trackers, written and read back (:mod:`studpoker.history.pokerstars`)."""
