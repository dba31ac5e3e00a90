"""PokerStars hand histories, the text trackers read: written from engine hands, read back to PHH.

Writing (the writer's names are importable from here): :mod:`~studpoker.history.pokerstars.write`,
with the vocabulary it shares with the reader in :mod:`~studpoker.history.pokerstars.format`.
Reading, in the order a file goes through it: :mod:`~studpoker.history.pokerstars.read` (decoding,
splitting into hands; the records in :mod:`~studpoker.history.pokerstars.parsed`), one hand's
lines by :mod:`~studpoker.history.pokerstars.header`, :mod:`~studpoker.history.pokerstars.lines`
and :mod:`~studpoker.history.pokerstars.summary`; the PHH record by
:mod:`~studpoker.history.pokerstars.phh_record` (actions: :mod:`~studpoker.history.pokerstars.convert`,
forced bets: :mod:`~studpoker.history.pokerstars.forced`); the replay and the line-by-line check
by :mod:`~studpoker.history.pokerstars.check` (``import_text``, ``import_file``).
"""

from studpoker.history.pokerstars.write import Tournament, eastern_time, join_histories, pokerstars_history

__all__ = ["Tournament", "eastern_time", "join_histories", "pokerstars_history"]
