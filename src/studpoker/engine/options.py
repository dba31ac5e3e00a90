"""The legal options of a decision, interned: one shared view per seat and key of amounts.

Legal options are immutable and depend only on a few amounts (the player's bet, the bet to
call, his all-in total when it limits anything, and the bet or raise open to him), so the
betting round works out that key and looks the seat's options up here instead of building them.
"""

from __future__ import annotations

from studpoker.engine.actions import (
    BET,
    BRING_IN,
    CALL,
    CHECK,
    COMPLETE,
    FOLD,
    RAISE,
    LegalActions,
    LegalOption,
)

# Legal options are immutable and depend only on a few amounts: the whole option tuple is
# interned under that key (see ``Betting.legal_actions``), built once and shared by every hand,
# and so is the ``LegalActions`` view of it for each seat number (one look-up per decision).
NO_RAISE, RAISE_COMPLETE, RAISE_BET, RAISE_RAISE = 0, 1, 2, 3
_RAISE_KINDS = (None, COMPLETE, BET, RAISE)
Offer = tuple[int, int, int]  # (raise kind, first target, second target): see rounds.set_offer
NO_OFFER: Offer = (NO_RAISE, 0, 0)
OptionKey = tuple[int, int, int, int, int, int]
SeatKey = tuple[int, int, int, int, int, int, int]  # (seat number, *OptionKey)

OPTIONS: dict[OptionKey, tuple[LegalOption, ...]] = {}
LEGAL: dict[SeatKey, LegalActions] = {}
_MOST_KEYS = 50_000  # odd stacks make new keys: keep the tables bounded


def intern(key: SeatKey) -> LegalActions:
    """The view for ``key`` (not yet in :data:`LEGAL`), its options shared with the other seats."""
    if len(LEGAL) > _MOST_KEYS:
        LEGAL.clear()
        OPTIONS.clear()
    seat, *amounts = key
    option_key: OptionKey = tuple(amounts)  # type: ignore[assignment]
    options = OPTIONS.get(option_key)
    if options is None:
        options = OPTIONS[option_key] = _build_options(option_key)
    legal = LEGAL[key] = LegalActions(seat=seat, options=options)
    return legal


NOBODY_TO_ACT = LegalActions(seat=None)  # legal_actions() once the hand is over


def _build_options(key: OptionKey) -> tuple[LegalOption, ...]:
    """The options from their key ``(bet, cur, most, raise_kind, first, second)``: the player's
    bet, the bet to call, his all-in total (``most`` -1: it covers every amount below) and the
    bet or raise targets (``second`` 0: only one).

    The bring-in decision uses ``cur = -1`` with ``first`` the bring-in, ``second`` the small bet.
    """
    bet, cur, most, raise_kind, first, second = key
    covers = most < 0
    options: list[LegalOption] = []
    if cur < 0:  # the bring-in is due: post it (all-in when short) or complete
        if not covers and most <= first:
            return (LegalOption(kind=BRING_IN, amount=most, all_in=True),)
        options.append(LegalOption(kind=BRING_IN, amount=first))
        short = not covers and most <= second
        options.append(LegalOption(kind=COMPLETE, amount=most if short else second, all_in=short))
        return tuple(options)
    if cur > bet:
        options.append(LegalOption(kind=FOLD, amount=bet))
        if not covers and most <= cur:
            options.append(LegalOption(kind=CALL, amount=most, all_in=True))
        else:
            options.append(LegalOption(kind=CALL, amount=cur))
    else:
        options.append(LegalOption(kind=CHECK, amount=bet))
    kind = _RAISE_KINDS[raise_kind]
    if kind is not None:
        for target in (first, second) if second else (first,):
            if not covers and most <= target:
                options.append(LegalOption(kind=kind, amount=most, all_in=True))
                break
            options.append(LegalOption(kind=kind, amount=target))
    return tuple(options)
