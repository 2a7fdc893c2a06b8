"""Cards as values: the hash and sort key each card works out once (``Card.__post_init__``) are
the ones the dataclass and the card order define, in this process and in another."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys

from analyzer.cards import ALL_CARD_KINDS, JOKER, Card, Rank, Suit, sorted_cards

SUIT_ORDER = [Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES]


def test_a_cards_hash_and_sort_key_are_the_values_they_stand_for() -> None:
    for card in ALL_CARD_KINDS:
        assert hash(card) == hash((card.rank, card.suit))  # the frozen dataclass's own hash
        expected = (4, 0) if card.suit is None else (SUIT_ORDER.index(card.suit), int(card.rank or 0))
        assert card.sort_key() == expected, card
    assert sorted_cards([JOKER, Card(Rank.ACE, Suit.SPADES), Card(Rank.KING, Suit.CLUBS)]) == (
        Card(Rank.KING, Suit.CLUBS), Card(Rank.ACE, Suit.SPADES), JOKER)


def test_a_card_unpickled_in_another_process_hashes_as_that_process_makes_it() -> None:
    # A suit's hash is its name's, which differs between processes (PYTHONHASHSEED): a card sent
    # to a worker of ``puzzles generate --workers`` (spawned) must not bring this process's hash.
    child = (
        "import pickle, sys\n"
        "from analyzer.cards import ALL_CARD_KINDS\n"
        "sent = pickle.loads(sys.stdin.buffer.read())\n"
        "fresh = set(ALL_CARD_KINDS)\n"
        "assert all(card in fresh and hash(card) == hash((card.rank, card.suit)) for card in sent)\n"
        "print(len(sent))\n"
    )
    for seed in ("1", "2"):
        done = subprocess.run([sys.executable, "-c", child], input=pickle.dumps(list(ALL_CARD_KINDS)),
                              capture_output=True, env={**os.environ, "PYTHONHASHSEED": seed}, check=False)
        assert done.returncode == 0, done.stderr.decode()
        assert done.stdout.strip() == str(len(ALL_CARD_KINDS)).encode()
