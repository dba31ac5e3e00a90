"""Hand histories: the PHH interchange format (:mod:`studpoker.history.phh`) and the readable
text history in the style of online rooms (:mod:`studpoker.history.text`)."""
