"""A mixed (HORSE) cash table's hands are counted under the game each was dealt in, the variant
of its stored PHH, not under the game its table row names (the rotation's first game, LHE)."""

from __future__ import annotations

from studpoker.store import Account, Store
from studpoker.store.stats import PlayerStatsReader, stored_game
from tests.store.test_stats import (
    BRING_IN_DECK,
    BRING_IN_SCRIPT,
    OMAHA_DECK,
    OMAHA_SCRIPT,
    config,
    play,
    seat_all,
    stacks_of,
    store_hand,
)


async def test_a_horse_tables_hands_are_filed_under_their_own_games(
    store: Store, players: list[Account]
) -> None:
    # The row of a HORSE table names LHE; it deals a stud hand, then an Omaha one.
    horse = await store.create_table(config("LHE", "HORSE 1/2"))
    await seat_all(store, horse, players)
    stud = play(config("7S"), BRING_IN_DECK, BRING_IN_SCRIPT)
    await store_hand(store, horse, "m1", stud)
    omaha = play(config("O8"), OMAHA_DECK, OMAHA_SCRIPT, stacks=stacks_of(stud))
    await store_hand(store, horse, "m2", omaha)
    reader = PlayerStatsReader(store, max_hands=100, cache_hands=1000, concurrent=1)
    alice = players[0]
    stats = await reader.stats(alice.id)
    assert set(stats.games) == {"7S", "O8"}
    assert stats.games["7S"].net == stud.result.net[1] and stats.games["7S"].unreplayed == 0
    assert stats.games["O8"].net == omaha.result.net[1]
    # The game filter finds each hand by its own game, and none under the table's.
    only_stud = await reader.stats(alice.id, game="7S")
    assert (only_stud.totals.hands, set(only_stud.games)) == (1, {"7S"})
    assert (await reader.stats(alice.id, game="O8")).totals.hands == 1
    assert (await reader.stats(alice.id, game="LHE")).totals.hands == 0
    # Again from the cache (no replay): the same games.
    replayed = reader.replayed
    assert set((await reader.stats(alice.id)).games) == {"7S", "O8"}
    assert reader.replayed == replayed


def test_the_stored_game_is_the_variant_of_the_phh() -> None:
    assert stored_game('variant = "F7S/8"\nantes = [1]\n') == "7S8"
    assert stored_game('variant = "FT"\n') == "LHE"
    assert stored_game('variant = "NT"\n') is None  # no game of ours
    assert stored_game(None) is None
    # A name holding the words is quoted with its quotes escaped: it is no variant.
    assert stored_game('players = ["variant = \\"FR\\""]\n') is None
