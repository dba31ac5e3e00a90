"""A table's verifiable deals (docs/fairness.md): the next hand's committed server seed and the
players' seeds, then the hand's deck, its Merkle tree and what each viewer may open of it.

Which cards a viewer may open is decided by the engine's view of the hand for that viewer
(``hand.view(seat)``), never by the full state: his own down cards, every up card, the board,
the hands shown at the showdown or turned up for an all-in run-out. Folded, mucked and undealt
cards are in no view, so they are opened to nobody.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any

from studpoker import fairness
from studpoker.cards import Card
from studpoker.engine.views import HandView

from .protocol.server import fast_encode


@dataclass
class PendingDeal:
    """The next hand, announced: its id and server seed (only the commitment is public), and
    the seeds the seated players sent for it (seat -> (account id, seed))."""

    hand_id: str
    server_seed: bytes
    seed_commitment: str
    seeds: dict[int, tuple[int, bytes]] = field(default_factory=dict)

    @classmethod
    def draw(cls) -> PendingDeal:
        seed = fairness.new_server_seed()
        return cls(hand_id=uuid.uuid4().hex, server_seed=seed, seed_commitment=fairness.seed_commitment(seed))

    def announcement(self) -> dict[str, str]:
        return {"hand_id": self.hand_id, "seed_commitment": self.seed_commitment}

    def seeds_for(self, dealt: dict[int, int]) -> tuple[tuple[int, bytes], ...]:
        """The seeds that go into the deck: those of the seats dealt in (seat -> account id),
        sent by the account that holds the seat now, in seat order."""
        return tuple(
            (seat, seed)
            for seat, (account_id, seed) in sorted(self.seeds.items())
            if dealt.get(seat) == account_id
        )


class DealInPlay:
    """The deck of the hand being played, its commitments, and the openings each viewer class
    (a dealt seat, or None for everyone else) has been sent."""

    def __init__(self, pending: PendingDeal, client_seeds: tuple[tuple[int, bytes], ...]) -> None:
        self.hand_id = pending.hand_id
        self.server_seed = pending.server_seed
        self.seed_commitment = pending.seed_commitment
        self.client_seeds = client_seeds
        self.deal = fairness.deck_from_seeds(pending.server_seed, client_seeds)
        self.tree = self.deal.tree()
        self.root = self.tree.root.hex()
        self._position = {card: i for i, card in enumerate(self.deal.order)}
        self._openings: dict[int, dict[str, Any]] = {}
        self._opening_texts: dict[int, str] = {}
        self.sent: dict[int | None, set[int]] = {}

    @property
    def order(self) -> tuple[Card, ...]:
        return self.deal.order

    def client_seeds_json(self) -> list[dict[str, Any]]:
        return [{"seat": seat, "seed": seed.hex()} for seat, seed in self.client_seeds]

    def opening(self, position: int) -> dict[str, Any]:
        found = self._openings.get(position)
        if found is None:
            found = self._openings[position] = self.deal.opening(position, self.tree).to_json()
        return found

    def opening_text(self, position: int) -> str:
        """The opening of ``position`` as compact JSON, as a message's model would write it:
        each card is opened to up to nine viewer classes, and its text is made once."""
        found = self._opening_texts.get(position)
        if found is None:
            opening = self.opening(position)
            found = fast_encode(opening) or json.dumps(opening, separators=(",", ":"))
            self._opening_texts[position] = found
        return found

    def visible_positions(self, view: HandView) -> list[int]:
        """The deck positions of every card ``view`` shows, in deck order."""
        cards: list[Card] = list(view.board)
        for seat in view.seats:
            cards += [c for c in seat.down if c is not None]
            cards += [c for c in seat.up if c is not None]
        return sorted(self._position[c] for c in cards if c in self._position)

    def openings(self, view: HandView) -> list[dict[str, Any]]:
        """Every opening the viewer of ``view`` may check (a snapshot's)."""
        return [self.opening(p) for p in self.visible_positions(view)]

    def newly_visible(self, viewer: int | None, view: HandView) -> list[int]:
        """The deck positions of the cards ``view`` shows that this viewer class was not sent
        the openings of yet, in deck order (now counted as sent)."""
        sent = self.sent.setdefault(viewer, set())
        new = [p for p in self.visible_positions(view) if p not in sent]
        sent.update(new)
        return new
