"""Verifiable deals: a deck fixed before the first card, every card checkable on its own.

The construction (docs/fairness.md says who can check what):

1. **Seeds.** The server draws a secret 32-byte seed and publishes ``seed_commitment(seed)``
   before it accepts the players' seeds. Each seated player may then send a seed of his own.
2. **The deck.** :func:`deck_from_seeds` mixes the server seed and every client seed (in seat
   order, each length-prefixed) with HKDF-SHA256 (RFC 5869) into a key stream, and shuffles by
   Fisher-Yates, each swap index drawn by rejection sampling from 64-bit words, so no order is
   more likely than another. Knowing every client seed but not the server seed, nobody can
   predict the deck; a player whose seed went in can check afterwards that it did.
3. **Per-card commitments.** Position ``i`` of the deck is committed to by
   ``SHA-256("studpoker-card-v2" | i | card | salt_i)`` with a 16-byte salt of its own, also drawn
   from the key stream (so the auditor rebuilds everything from the seeds). The 52 commitments
   are the leaves of a Merkle tree hashed as in RFC 6962 (Certificate Transparency); its root is
   published before the deal. A card is opened alone by its position, card, salt and Merkle path:
   the opening says nothing about any other position, because every other leaf is a salted hash.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import struct
from collections.abc import Sequence
from dataclasses import dataclass

from .cards import Card, CardError, format_cards

SEED_BYTES = 32
SALT_BYTES = 16
MAX_CLIENT_SEED_BYTES = 64
_DECK_INFO = b"studpoker-deal-v2 deck"
_SALT_INFO = b"studpoker-deal-v2 salts"
_EXTRACT_SALT = b"studpoker-deal-v2"
_LEAF_TAG = b"studpoker-card-v2"
_WORD = 1 << 64


class FairnessError(ValueError):
    """A seed, an opening or a proof that is malformed (not merely one that fails to verify)."""


# ----------------------------------------------------------------------------- HKDF (RFC 5869)


def hkdf_extract(salt: bytes, ikm: bytes) -> bytes:
    return hmac.new(salt or b"\0" * 32, ikm, hashlib.sha256).digest()


def hkdf_expand(prk: bytes, info: bytes, length: int) -> bytes:
    if not 0 < length <= 255 * 32:
        raise FairnessError(f"HKDF-SHA256 can expand to 1..8160 bytes, not {length}")
    blocks: list[bytes] = []
    previous = b""
    for counter in range(1, -(-length // 32) + 1):
        previous = hmac.new(prk, previous + info + bytes([counter]), hashlib.sha256).digest()
        blocks.append(previous)
    return b"".join(blocks)[:length]


# ----------------------------------------------------------------------------- seeds and the deck


def new_server_seed() -> bytes:
    return secrets.token_bytes(SEED_BYTES)


def seed_commitment(server_seed: bytes) -> str:
    """SHA-256 (hex) of the server seed: published before any client seed is taken."""
    return hashlib.sha256(b"studpoker-seed-v2:" + server_seed).hexdigest()


def check_client_seed(seed: bytes) -> bytes:
    if not 1 <= len(seed) <= MAX_CLIENT_SEED_BYTES:
        raise FairnessError(f"a client seed has 1 to {MAX_CLIENT_SEED_BYTES} bytes, not {len(seed)}")
    return seed


def _key_material(server_seed: bytes, client_seeds: Sequence[tuple[int, bytes]]) -> bytes:
    if len(server_seed) != SEED_BYTES:
        raise FairnessError(f"the server seed has {SEED_BYTES} bytes, not {len(server_seed)}")
    parts = [struct.pack(">H", len(server_seed)), server_seed]
    seats = [seat for seat, _ in client_seeds]
    if seats != sorted(set(seats)):
        raise FairnessError("client seeds go in seat order, one per seat")
    for seat, seed in client_seeds:
        check_client_seed(seed)
        parts += [struct.pack(">HH", seat, len(seed)), seed]
    return hkdf_extract(_EXTRACT_SALT, b"".join(parts))


def _words(stream: bytes) -> list[int]:
    return list(struct.unpack(f">{len(stream) // 8}Q", stream[: len(stream) // 8 * 8]))


def _shuffle(words: list[int]) -> tuple[Card, ...]:
    """Fisher-Yates (Durstenfeld) from 64-bit words; a word at or above the largest multiple
    of ``n`` below 2**64 is rejected, so each index is exactly uniform."""
    order = [Card(c) for c in range(52)]
    position = 0
    for i in range(51, 0, -1):
        n = i + 1
        limit = _WORD - _WORD % n
        while True:
            if position == len(words):  # pragma: no cover - 2**-50 likely per deck
                raise FairnessError("the key stream ran out")
            word = words[position]
            position += 1
            if word < limit:
                break
        j = word % n
        order[i], order[j] = order[j], order[i]
    return tuple(order)


@dataclass(frozen=True)
class Deal:
    """A deck derived from seeds, with the salts of its per-card commitments."""

    order: tuple[Card, ...]
    salts: tuple[bytes, ...]

    def leaf(self, position: int) -> bytes:
        return leaf_hash(position, self.order[position], self.salts[position])

    def tree(self) -> MerkleTree:
        return MerkleTree([self.leaf(i) for i in range(52)])

    def opening(self, position: int, tree: MerkleTree | None = None) -> Opening:
        tree = tree or self.tree()
        return Opening(
            position=position,
            card=self.order[position],
            salt=self.salts[position].hex(),
            path=tuple(h.hex() for h in tree.path(position)),
        )


def deck_from_seeds(server_seed: bytes, client_seeds: Sequence[tuple[int, bytes]] = ()) -> Deal:
    """The deck and its salts from the server seed and the players' ``(seat, seed)`` pairs."""
    prk = _key_material(server_seed, client_seeds)
    # 64 words: 51 are needed; a rejection is rarer than 1 in 2**57 per word.
    words = _words(hkdf_expand(prk, _DECK_INFO, 64 * 8))
    salts_stream = hkdf_expand(prk, _SALT_INFO, 52 * SALT_BYTES)
    salts = tuple(salts_stream[i * SALT_BYTES : (i + 1) * SALT_BYTES] for i in range(52))
    return Deal(order=_shuffle(words), salts=salts)


# ----------------------------------------------------------------------------- the Merkle tree


def leaf_hash(position: int, card: int, salt: bytes) -> bytes:
    """The commitment to one deck position (a Merkle leaf's data)."""
    if not 0 <= position < 52:
        raise FairnessError(f"a deck position is 0 to 51, not {position}")
    if len(salt) != SALT_BYTES:
        raise FairnessError(f"a card's salt has {SALT_BYTES} bytes, not {len(salt)}")
    data = _LEAF_TAG + bytes([position]) + str(Card(card)).encode() + salt
    return hashlib.sha256(data).digest()


def _leaf(data: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + data).digest()


def _node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two smaller than ``n`` (RFC 6962, section 2.1)."""
    k = 1
    while k * 2 < n:
        k *= 2
    return k


class MerkleTree:
    """A Merkle tree over leaf data, hashed as RFC 6962 does (0x00 leaves, 0x01 nodes).

    The tree is built once, bottom up, and keeps every level, so an audit path is a lookup (the
    room opens up to 52 cards a deal; working each path out again from the leaves cost more
    than the rest of an opening). Pairing neighbours level by level and carrying an unpaired
    last node up unchanged gives RFC 6962's tree, whose left subtree at each split holds the
    largest power of two of leaves below the size."""

    def __init__(self, leaves: Sequence[bytes]) -> None:
        self.leaves = [bytes(x) for x in leaves]
        level = [_leaf(x) for x in self.leaves]
        self.levels: list[list[bytes]] = [level]
        while len(level) > 1:
            paired = [_node(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
            if len(level) % 2:
                paired.append(level[-1])
            level = paired
            self.levels.append(level)
        self.root = level[0] if level else hashlib.sha256(b"").digest()

    def path(self, index: int) -> list[bytes]:
        """The audit path of leaf ``index``, nearest sibling first."""
        if not 0 <= index < len(self.leaves):
            raise FairnessError(f"no leaf {index} in a tree of {len(self.leaves)}")
        out: list[bytes] = []
        for level in self.levels[:-1]:
            sibling = index ^ 1
            if sibling < len(level):  # an unpaired last node has no sibling at this level
                out.append(level[sibling])
            index //= 2
        return out


def root_from_path(index: int, size: int, leaf_data: bytes, path: Sequence[bytes]) -> bytes:
    """The root that leaf ``index`` of a ``size``-leaf tree and its audit path give."""
    if not 0 <= index < size:
        raise FairnessError(f"no leaf {index} in a tree of {size}")
    # The sides, top down, as the tree splits; then fold bottom up.
    sides: list[bool] = []  # True: our node is the right child
    lo, n = 0, size
    while n > 1:
        k = _split(n)
        if index - lo < k:
            sides.append(False)
            n = k
        else:
            sides.append(True)
            lo += k
            n -= k
    if len(sides) != len(path):
        raise FairnessError(f"a path to leaf {index} of {size} has {len(sides)} hashes, not {len(path)}")
    digest = _leaf(leaf_data)
    for right, sibling in zip(reversed(sides), path, strict=True):
        digest = _node(sibling, digest) if right else _node(digest, sibling)
    return digest


# ----------------------------------------------------------------------------- openings


@dataclass(frozen=True)
class Opening:
    """What a viewer receives to check one card: its position, the card, salt and path (hex)."""

    position: int
    card: Card
    salt: str
    path: tuple[str, ...]

    def to_json(self) -> dict[str, object]:
        return {"position": self.position, "card": str(self.card), "salt": self.salt, "path": list(self.path)}

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Opening:
        try:
            position = data["position"]
            card, salt, path = data["card"], data["salt"], data["path"]
            if not isinstance(position, int) or not isinstance(salt, str) or not isinstance(path, list):
                raise TypeError
            return cls(
                position=position,
                card=Card.parse(str(card)),
                salt=salt,
                path=tuple(str(h) for h in path),
            )
        except (KeyError, TypeError, CardError) as exc:
            raise FairnessError(f"a malformed opening: {data!r:.200}") from exc


def verify_opening(root_hex: str, opening: Opening) -> bool:
    """True when the opening's card sits at its position under the published root."""
    try:
        salt = bytes.fromhex(opening.salt)
        path = [bytes.fromhex(h) for h in opening.path]
        leaf = leaf_hash(opening.position, opening.card, salt)
        root = root_from_path(opening.position, 52, leaf, path)
    except (ValueError, FairnessError):
        return False
    return hmac.compare_digest(root.hex(), root_hex.lower())


def verify_deal(
    root_hex: str, commitment_hex: str, server_seed: bytes, client_seeds: Sequence[tuple[int, bytes]]
) -> tuple[bool, str]:
    """The auditor's check: the seed matches its commitment and the seeds give the root."""
    if not hmac.compare_digest(seed_commitment(server_seed), commitment_hex.lower()):
        return False, "the server seed does not match its commitment"
    try:
        deal = deck_from_seeds(server_seed, client_seeds)
    except FairnessError as exc:
        return False, str(exc)
    if not hmac.compare_digest(deal.tree().root.hex(), root_hex.lower()):
        return False, f"the seeds give another deck root (deck {format_cards(deal.order)})"
    return True, "the deck is the one the seeds give and the root commits to"
