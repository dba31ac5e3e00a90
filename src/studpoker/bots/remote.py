"""Engine bots behind the server protocol: a seat's view rebuilt from its JSON form, and a bot's
answer to ``your_turn`` (:func:`choose_from_protocol`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from studpoker.cards import Card
from studpoker.engine import ActionKind, HandView, LegalOption, Pot, SeatView

from .players import Bot
from .policy import offers


def _card_or_none(text: object) -> Card | None:
    return None if text is None else Card.parse(str(text))


def view_from_dict(data: Mapping[str, object]) -> HandView:
    """Rebuild a seat's :class:`HandView` from its JSON form (``HandView.to_dict()``, which is
    what the server sends as a table state's ``hand``)."""

    def items(key: str) -> list[Any]:
        value = data.get(key) or []
        return list(value) if isinstance(value, list | tuple) else []

    seats = tuple(
        SeatView(
            seat=int(s["seat"]),
            stack=int(s.get("stack", 0)),
            bet=int(s.get("bet", 0)),
            contributed=int(s.get("contributed", 0)),
            folded=bool(s.get("folded", False)),
            all_in=bool(s.get("all_in", False)),
            protected=bool(s.get("protected", False)),
            down=tuple(_card_or_none(c) for c in s.get("down", [])),
            up=tuple(Card.parse(str(c)) for c in s.get("up", [])),
            shown=bool(s.get("shown", False)),
        )
        for s in items("seats")
    )
    pots = tuple(
        Pot(amount=int(p["amount"]), eligible=tuple(int(e) for e in p.get("eligible", [])))
        for p in items("pots")
    )
    viewer, to_act = data.get("viewer"), data.get("to_act")
    return HandView(
        viewer=None if viewer is None else int(str(viewer)),
        game=str(data["game"]),
        street=str(data.get("street", "")),
        version=int(str(data.get("version", 0))),
        button=None,
        bring_in_seat=None,
        seats=seats,
        board=tuple(Card.parse(str(c)) for c in items("board")),
        pots=pots,
        to_act=None if to_act is None else int(str(to_act)),
        legal=None,
        is_over=bool(data.get("is_over", False)),
        result=None,
    )


def choose_from_protocol(
    bot: Bot, hand: Mapping[str, object], options: Sequence[Mapping[str, object]]
) -> dict[str, object]:
    """A bot's answer to the server's ``your_turn``: ``{"kind": ..., "amount": ...}``.

    ``hand`` is the seat's view as JSON (the table state's ``hand``), ``options`` the legal
    options sent with the turn (``kind``, ``amount``, ``all_in``; read by
    :func:`studpoker.bots.policy.offers`).
    """
    legal = tuple(
        LegalOption(kind=ActionKind(o.kind), amount=o.amount or 0, all_in=o.all_in) for o in offers(options)
    )
    action = bot.choose(view_from_dict(hand), legal)
    out: dict[str, object] = {"kind": action.kind.value}
    if action.amount is not None and action.kind not in (ActionKind.FOLD, ActionKind.CHECK):
        out["amount"] = action.amount
    return out
