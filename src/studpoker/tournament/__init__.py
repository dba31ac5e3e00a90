"""Tournaments and mixed games, the pure core: no server, no database, no clock of its own.

* :mod:`.structure` and :mod:`.standard`: level structures (every game's stakes from one big
  bet a level), level times and breaks; the shipped sit-and-go turbo and regular MTT;
* :mod:`.rotation`: one game or a rotation (HORSE, HOSE, any list of games);
* :mod:`.clock`: the tournament clock as a stored state;
* :mod:`.seating`, :mod:`.positions`, :mod:`.balancing`: tables, the board games' button,
  balancing, breaking, the final table, hand for hand;
* :mod:`.standings` and :mod:`.payouts`: the finishing order with its ties, the payout table;
* :mod:`.simulate`: a whole tournament of bots in the engine (``studpoker tournament simulate``).

The rules are in docs/rules.md (Tournaments) and docs/tournaments.md.
"""
