"""The hasty player's run (``puzzles.hasty._run``) against a brute-force reading of what it
looks for, where it stops early: without wild cards, only a suit holding every place of a window
gives a run."""

from __future__ import annotations

import dataclasses
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from analyzer import Card, PlacedMeld, Rank, Suit, parse_cards, preset
from analyzer.rules import MeldKind, MeldSpec
from puzzles.check import play_problems
from puzzles.hasty import NO_READING, _run, greedy_play, hasty_play, mistake
from puzzles.model import LayDownAnswer
from tests.strategies import hands

PROGRESSIVE = preset("progressive")


def _places(card: Card) -> tuple[int, ...]:
    assert card.rank is not None
    return (1, 14) if card.rank == Rank.ACE else (int(card.rank),)


def _some_window_held(cards: Counter[Card], size: int) -> bool:
    held = {(card.suit, place) for card in cards for place in _places(card)}
    return any(all((suit, place) in held for place in range(low, low + size))
               for suit in Suit for low in range(1, 16 - size))


@given(hands(PROGRESSIVE, 1, 14), st.integers(3, 6), st.booleans())
def test_without_wild_cards_a_run_is_found_exactly_when_a_window_is_held(
        hand: tuple[Card, ...], size: int, longer: bool) -> None:
    pool = Counter(card for card in hand if not PROGRESSIVE.is_wild(card))
    run = _run(pool, MeldSpec(MeldKind.RUN, size), PROGRESSIVE, longer)
    assert (run is not None) == _some_window_held(pool, size)
    if run is not None:
        assert len(run.cards) >= size and all(pool[card] for card in run.cards)


def test_a_run_of_fourteen_from_ace_to_ace_is_found_without_wild_cards() -> None:
    # The stretch loop splits A..K from the high ace; the window of 14 holds both.
    hearts = [Card(Rank(r), Suit.HEARTS) for r in range(1, 14)] + [Card(Rank.ACE, Suit.HEARTS)]
    run = _run(Counter(hearts), MeldSpec(MeldKind.RUN, 14), PROGRESSIVE, False)
    assert run is not None and len(run.cards) == 14


def test_a_two_standing_for_another_suit_s_two_is_a_wild_card_in_the_hasty_reading() -> None:
    # 2♣ standing for 2♥ is wild (docs/lay-down.md, the validator), so this run holds two wild
    # cards where the house allows one: the mistake is named, not the catch-all sentence.
    rules = dataclasses.replace(preset("shanghai"), name="shanghai-deuces", deuces_wild=True, ace_low=True)
    hand = parse_cards("7S 7D 7C 2C 3H JK 5H 9D KD")
    sevens, run = parse_cards("7S 7D 7C"), parse_cards("2C 3H JK 5H")
    play = LayDownAnswer((PlacedMeld(MeldKind.SET, sevens, sevens),
                          PlacedMeld(MeldKind.RUN, run, parse_cards("2H 3H 4H 5H"))), Card.parse("KD"))
    problems, _ = play_problems(hand, rules, 2, play)
    assert problems == ["meld 2 (run 2C=2H 3H JK=4H 5H): 2 wild cards, at most 1 allowed per meld"]
    assert mistake(hand, rules, 2, play) == (
        "they put two wild cards in 2♣=2♥ 3♥ Joker=4♥ 5♥, where a meld takes one at most")
    # 2♥ on its own place is natural: the same run with it is legal.
    own = parse_cards("2H 3H JK 5H")
    legal = LayDownAnswer((play.melds[0], PlacedMeld(MeldKind.RUN, own, parse_cards("2H 3H 4H 5H"))),
                          Card.parse("KD"))
    hand = parse_cards("7S 7D 7C 2H 3H JK 5H 9D KD")
    assert play_problems(hand, rules, 2, legal)[0] == [] and mistake(hand, rules, 2, legal) == NO_READING


@given(hands(PROGRESSIVE, 7, 14), st.sampled_from(["progressive", "kolsov", "shanghai", "may-i", "eveleigh"]),
       st.integers(1, 3))
def test_the_greedy_player_plays_only_legal_plays(hand: list[Card], name: str, round_number: int) -> None:
    rules = preset(name)
    play = greedy_play(hand, rules, round_number)
    assert play.cannot or play_problems(hand, rules, round_number, play)[1] is not None


def test_the_greedy_player_follows_the_rules_the_hasty_ones_read_loosely() -> None:
    # Kolsov: the ace is high only, so A 2 3 4 is no run for the greedy player; the hasty one
    # lays it, illegally.
    hand, kolsov = parse_cards("AD 2D 3D 4D 5C 5D 5S KH 9C"), preset("kolsov")
    assert play_problems(hand, kolsov, 2, hasty_play(hand, kolsov, 2, "sets-first"))[1] is None
    assert greedy_play(hand, kolsov, 2).cannot
    assert not greedy_play(hand, PROGRESSIVE, 2).cannot
