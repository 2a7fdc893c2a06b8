"""Every "cards away" answer comes with a witness a player can follow: as many missing cards as
it says, copies the deck still has, and a play that is legal card by card.

The witness is re-checked by ``analyzer.validate`` (which shares none of the solver's logic)
and the copies are counted here from the rule set's deck. After the draw, outside go-out
rounds, the witness must be a whole turn's legal play of the hand and the missing cards:
melds, then a discard where the rules want one (and a card kept where going out by
discarding is forbidden). In a go-out round it melds the hand's cards less the ones let go, and
the missing ones, every card (docs/lay-down.md).
"""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings

from analyzer import PRESETS, advise, analyze, preset
from analyzer.cards import Card, parse_cards
from analyzer.result import LayDown
from analyzer.rules import DiscardToGoOut, Rules
from analyzer.validate import validate_lay_down
from tests.strategies import turn_hands

ALL_PRESETS = [preset(name) for name in PRESETS]


def copies_in_deck(card: Card, rules: Rules) -> int:
    deck = rules.deck_for(None)
    return deck.jokers if card.is_joker else deck.decks


def witness_problems(answer: LayDown, rules: Rules, seen: tuple[Card, ...] = ()) -> list[str]:
    """Every way the answer's witness fails a player; [] when it holds."""
    away = answer.cards_away
    if away is None or away == 0:
        return []
    problems = []
    if len(answer.missing) != away:
        problems.append(f"{away} away but {len(answer.missing)} missing cards")
    held = Counter(answer.hand) + Counter(answer.missing) + Counter(seen)
    problems += [f"{count} copies of {card.token} with the seen and missing cards, the deck has "
                 f"{copies_in_deck(card, rules)}" for card, count in held.items() if count > copies_in_deck(card, rules)]
    melded = Counter(card for meld in answer.with_missing for card in meld.cards)
    if not answer.with_missing:
        return problems + ["no witness"]
    if answer.go_out:
        # Every card melded: the hand's less those let go, and the missing ones (the draws).
        from_hand = melded - Counter(answer.missing)
        target = len(answer.hand) + (answer.moment == "before-draw")
        if sum(melded.values()) != target:
            problems.append(f"the witness melds {sum(melded.values())} cards, not {target}")
        return problems + validate_lay_down(tuple(from_hand.elements()), rules, answer.round, answer.with_missing,
                                            (), answer.missing)
    leftover = Counter(answer.hand) + Counter(answer.missing) - melded
    # A missing card the melds leave is held like the hand's own (after the draw, the discard or
    # a card kept); the validator takes extra cards as the melds' fillers only.
    filling = Counter(answer.missing) & melded
    held_extra = Counter(answer.missing) - filling
    if answer.moment != "after-draw" and held_extra:
        problems.append(f"missing cards that no meld takes: {sorted(c.token for c in held_extra.elements())}")
    problems += validate_lay_down(tuple((Counter(answer.hand) + held_extra).elements()), rules, answer.round,
                                  answer.with_missing, tuple(leftover.elements()), tuple(filling.elements()))
    if answer.moment == "after-draw":
        left = sum(leftover.values())
        if rules.discard_to_go_out == "required" and left == 0:
            problems.append("the witness melds every card, but the turn must end with a discard")
        if rules.discard_to_go_out == "never" and left == 1:
            problems.append("the witness goes out by discarding its last card, which the rules forbid")
    return problems


@settings(max_examples=300, suppress_health_check=[HealthCheck.large_base_example])
@given(turn_hands(ALL_PRESETS))
def test_every_witness_is_a_play_the_deck_allows(case: tuple[Rules, int, str, tuple[Card, ...]]) -> None:
    rules, round_number, moment, cards = case
    answer = analyze(cards, rules, round_number, moment=moment)
    assert witness_problems(answer, rules) == []
    if answer.cards_away:
        assert answer.describe_missing(), "the text would print an empty 'would do it' line"


@pytest.mark.parametrize(("hand", "rules", "round_number"), [
    # the hand melds every card but one, and going out by discarding is forbidden
    ("10S 10D 4H 2H 5C 3H 10H 5H KC 5D 5H", "shanghai-powe", 5),
    ("8C 8S 5S 6S 8S 7H 8H 8D 10H 7H 9H 7S", "shanghai-powe", 6),
    # the hand melds every card, and the turn must end with a discard (Eveleigh as read before
    # generator puzzles-8, a house rule now); both A♣ of two decks held
    ("AC 2H AD 8S AD 3D 3C AS 3H AH AC 8H", "eveleigh-discarding", 9),
])
def test_no_legal_play_this_turn_is_one_card_away(hand: str, rules: str, round_number: int) -> None:
    answer = analyze(hand, rules_of(rules), round_number, moment="after-draw")
    assert not answer.can_lay_down and answer.cards_away == 1
    assert witness_problems(answer, rules_of(rules)) == []


@pytest.mark.parametrize(("hand", "rules", "round_number", "seen"), [
    ("AC 2H AD 8S AD 3D 3C AS 3H AH AC 8H", "eveleigh-discarding", 9, "3C 4C 5C"),
    ("7C 7D 4H 5H 6H 9S 10S JS KD", "progressive", 6, "QS QS QS JK"),
    ("7C 7D 4H 5H 6H 9S 10S JS KD", "progressive", 6, "QS QS QS JK JK 7S 7S 7S"),
])
def test_the_witness_needs_no_seen_copy(hand: str, rules: str, round_number: int, seen: str) -> None:
    advice = advise(hand, rules_of(rules), round_number, seen=seen)
    unseen_only = witness_problems(advice.lay_down, rules_of(rules), tuple(parse_cards(seen)))
    assert advice.lay_down.cards_away and unseen_only == []
    # The same question without the seen cards names one of them: the seen cards made the difference.
    assert witness_problems(analyze(hand, rules_of(rules), round_number), rules_of(rules), tuple(parse_cards(seen)))


def rules_of(name: str) -> Rules:
    """A preset, or ``eveleigh-discarding``: Eveleigh with a discard to go out."""
    if name == "eveleigh-discarding":
        return dataclasses.replace(preset("eveleigh"), discard_to_go_out=DiscardToGoOut.REQUIRED)
    return preset(name)
