"""Verifiable deals: the standard constructions against their published vectors, the shuffle's
uniformity, and openings that check one card alone and catch any tampering."""

from __future__ import annotations

import hashlib
import itertools
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from studpoker.cards import Card
from studpoker.fairness import (
    FairnessError,
    MerkleTree,
    Opening,
    deck_from_seeds,
    hkdf_expand,
    hkdf_extract,
    root_from_path,
    seed_commitment,
    verify_deal,
    verify_opening,
)

SERVER = bytes(range(32))


def test_hkdf_matches_rfc_5869_case_1() -> None:
    prk = hkdf_extract(bytes(range(13)), b"\x0b" * 22)
    assert prk.hex() == "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5"
    okm = hkdf_expand(prk, bytes(range(0xF0, 0xFA)), 42)
    assert okm.hex() == (
        "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"
    )


def test_hkdf_matches_rfc_5869_case_3_empty_salt_and_info() -> None:
    prk = hkdf_extract(b"", b"\x0b" * 22)
    assert prk.hex() == "19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04"
    assert hkdf_expand(prk, b"", 42).hex() == (
        "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"
    )


# RFC 6962's reference leaves and the roots of their first 1..8 (Certificate Transparency's
# published test vectors).
CT_LEAVES = [
    b"",
    b"\x00",
    b"\x10",
    b"\x20\x21",
    b"\x30\x31",
    b"\x40\x41\x42\x43",
    bytes(range(0x50, 0x58)),
    bytes(range(0x60, 0x70)),
]
CT_ROOTS = [
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]


def test_merkle_tree_matches_rfc_6962_vectors() -> None:
    assert MerkleTree([]).root.hex() == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    for n, expected in enumerate(CT_ROOTS, start=1):
        assert MerkleTree(CT_LEAVES[:n]).root.hex() == expected, n


@given(st.lists(st.binary(max_size=8), min_size=1, max_size=70), st.data())
@settings(max_examples=60, deadline=None)
def test_every_audit_path_leads_to_the_root(leaves: list[bytes], data: st.DataObject) -> None:
    tree = MerkleTree(leaves)
    index = data.draw(st.integers(0, len(leaves) - 1))
    assert root_from_path(index, len(leaves), leaves[index], tree.path(index)) == tree.root


def _rfc_6962_path(index: int, leaves: list[bytes]) -> list[bytes]:
    """RFC 6962 section 2.1.1's PATH(m, D[n]), from its recursive definition."""

    def mth(data: list[bytes]) -> bytes:
        if len(data) == 1:
            return hashlib.sha256(b"\x00" + data[0]).digest()
        k = 1 << ((len(data) - 1).bit_length() - 1)
        return hashlib.sha256(b"\x01" + mth(data[:k]) + mth(data[k:])).digest()

    if len(leaves) == 1:
        return []
    k = 1 << ((len(leaves) - 1).bit_length() - 1)
    if index < k:
        return [*_rfc_6962_path(index, leaves[:k]), mth(leaves[k:])]
    return [*_rfc_6962_path(index - k, leaves[k:]), mth(leaves[:k])]


def test_audit_paths_are_rfc_6962_and_cost_no_hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tree keeps its levels: a deal opens up to 52 cards, and each path is a lookup."""
    for size in [*range(1, 34), 52, 64, 65]:
        leaves = [bytes([size, i]) for i in range(size)]
        tree = MerkleTree(leaves)
        expected = [_rfc_6962_path(i, leaves) for i in range(size)]
        with monkeypatch.context() as patched:
            patched.setattr(hashlib, "sha256", _no_hashing)
            paths = [tree.path(i) for i in range(size)]
        assert paths == expected, size


def _no_hashing(*_args: object) -> object:
    raise AssertionError("an audit path was hashed again")


def test_a_deal_is_a_permutation_fixed_by_its_seeds() -> None:
    deal = deck_from_seeds(SERVER, [(1, b"alice"), (3, b"carol")])
    assert sorted(deal.order) == list(range(52))
    assert deal == deck_from_seeds(SERVER, [(1, b"alice"), (3, b"carol")])
    # Every seed matters: change one byte of any seed and the deck changes.
    assert deal.order != deck_from_seeds(SERVER, [(1, b"alicf"), (3, b"carol")]).order
    assert deal.order != deck_from_seeds(SERVER, [(1, b"alice")]).order
    assert deal.order != deck_from_seeds(bytes(31) + b"\x01", [(1, b"alice"), (3, b"carol")]).order
    # Seats are part of the mix: the same seed from another seat is another deck.
    assert deal.order != deck_from_seeds(SERVER, [(2, b"alice"), (3, b"carol")]).order
    assert len(set(deal.salts)) == 52


def test_the_seed_mix_matches_the_fixed_vectors() -> None:
    """Frozen outputs: any change to the construction (or a port, e.g. the browser's) must give
    exactly these, so a deal checked today checks the same way tomorrow."""
    deal = deck_from_seeds(SERVER, [(1, b"alice"), (3, b"carol")])
    assert " ".join(str(c) for c in deal.order[:10]) == VECTOR_TOP_10
    assert deal.salts[0].hex() == VECTOR_SALT_0
    assert deal.tree().root.hex() == VECTOR_ROOT
    assert seed_commitment(SERVER) == VECTOR_SEED_COMMITMENT


VECTOR_TOP_10 = "Ah Th 4d 7d 8s 9d 8h 2s As 4h"
VECTOR_SALT_0 = "bff4a5ebeff8b0a5f369e2ca06038b3b"
VECTOR_ROOT = "b0e5653abd5b39be0439417eb92ccad559ce43a085d9d47b166307c8863fb400"
VECTOR_SEED_COMMITMENT = "284bb72677dea67222c9716dcd74ceea7db8c8ba8f0052eb49bd44363f9b3a94"


def test_client_seeds_are_refused_when_malformed() -> None:
    with pytest.raises(FairnessError, match="seat order"):
        deck_from_seeds(SERVER, [(3, b"x"), (1, b"y")])
    with pytest.raises(FairnessError, match="seat order"):
        deck_from_seeds(SERVER, [(1, b"x"), (1, b"y")])
    with pytest.raises(FairnessError, match="1 to 64 bytes"):
        deck_from_seeds(SERVER, [(1, b"")])
    with pytest.raises(FairnessError, match="1 to 64 bytes"):
        deck_from_seeds(SERVER, [(1, b"x" * 65)])
    with pytest.raises(FairnessError, match="32 bytes"):
        deck_from_seeds(b"short")


def test_the_derived_shuffle_is_uniform_by_position() -> None:
    """Chi-square over card-by-position counts for 4,000 seeded deals (df = 51 per position)."""
    rng = random.Random(7)
    counts = [Counter[int]() for _ in range(52)]
    deals = 4000
    for _ in range(deals):
        order = deck_from_seeds(rng.randbytes(32), [(1, rng.randbytes(8))]).order
        for position, card in enumerate(order):
            counts[position][int(card)] += 1
    expected = deals / 52
    worst = max(sum((c[k] - expected) ** 2 / expected for k in range(52)) for c in counts)
    # The 99.99th percentile of chi-square with 51 degrees of freedom is about 101.
    assert worst < 105, worst


def test_every_opening_verifies_and_any_tampering_is_caught() -> None:
    deal = deck_from_seeds(SERVER, [(2, b"bob")])
    tree = deal.tree()
    root = tree.root.hex()
    for position in range(52):
        opening = deal.opening(position, tree)
        assert verify_opening(root, opening)
        assert verify_opening(root, Opening.from_json(opening.to_json()))
    opening = deal.opening(5, tree)
    other = Card((int(opening.card) + 1) % 52)
    tampered = [
        Opening(opening.position, other, opening.salt, opening.path),
        Opening(6, opening.card, opening.salt, opening.path),
        Opening(opening.position, opening.card, "00" * 16, opening.path),
        Opening(opening.position, opening.card, opening.salt, opening.path[:-1]),
        Opening(opening.position, opening.card, opening.salt, ("00" * 32, *opening.path[1:])),
        Opening(opening.position, opening.card, "zz", opening.path),
    ]
    for bad in tampered:
        assert not verify_opening(root, bad), bad
    assert not verify_opening("00" * 32, opening)


def test_an_opening_tells_nothing_about_other_positions() -> None:
    """An opening carries its own card and salt and, for the others, only hashes of salted
    commitments: an attacker who tries every card for the neighbouring position, with any salt
    he knows (the opened one, zeros), never reproduces the hash in the path."""
    from studpoker.fairness import _leaf, leaf_hash

    deal = deck_from_seeds(SERVER)
    opening = deal.opening(0)
    assert set(opening.to_json()) == {"position", "card", "salt", "path"}
    sibling = bytes.fromhex(opening.path[0])
    assert sibling == _leaf(deal.leaf(1))  # the path commits to position 1 ...
    known_salts = [bytes.fromhex(opening.salt), bytes(16), b"\xff" * 16]
    guesses = {_leaf(leaf_hash(1, card, salt)) for card in range(52) for salt in known_salts}
    assert sibling not in guesses  # ... without giving its card away
    # Swapping two unopened cards changes the path but not what is opened.
    order = list(deal.order)
    order[10], order[11] = order[11], order[10]
    other = type(deal)(order=tuple(order), salts=deal.salts).opening(0)
    assert (other.card, other.salt) == (opening.card, opening.salt) and other.path != opening.path


def test_the_auditor_rebuilds_the_deal_from_the_seeds() -> None:
    seeds = [(1, b"alice"), (4, b"dave")]
    deal = deck_from_seeds(SERVER, seeds)
    root = deal.tree().root.hex()
    assert verify_deal(root, seed_commitment(SERVER), SERVER, seeds)[0]
    ok, why = verify_deal(root, seed_commitment(SERVER), SERVER, seeds[:1])
    assert not ok and "another deck" in why
    ok, why = verify_deal(root, seed_commitment(bytes(32)), SERVER, seeds)
    assert not ok and "commitment" in why


def test_all_positions_have_distinct_leaves() -> None:
    deal = deck_from_seeds(SERVER)
    leaves = [deal.leaf(i) for i in range(52)]
    assert len(set(leaves)) == 52
    assert all(a != b for a, b in itertools.combinations(leaves[:5], 2))
