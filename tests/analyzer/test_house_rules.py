"""Three house rules players use: 2s that are always wild (never natural), runs that may not use
the 2's place (3 up to the ace), and same-suit runs two ranks apart (``gap-2``).

Each is checked three ways, as everywhere in the project: the CP-SAT solver against the
brute-force reference (tests/reference.py) on small hands, every answer re-validated card by
card (analyzer/validate.py), and named examples. The hands come from ``house_hands``, which
builds the round's contract where these rules bite (runs through the 2's place, sets of 2s,
2s in runs, two runs of one suit a few ranks apart), so that a solver ignoring one of the rules
breaks the properties.
"""

from __future__ import annotations

import dataclasses
import pickle
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analyzer import analyze
from analyzer.cards import ALL_NATURALS, JOKER, Card, Rank, Suit, parse_cards
from analyzer.hand import deck_copies
from analyzer.result import LayDown, PlacedMeld
from analyzer.rules import MeldKind, Rules, RulesError, SameSuitRuns, check_rules, load_rules, preset
from analyzer.simulate import extend_meld, meld_is_valid
from analyzer.turn import lay_off_targets
from analyzer.validate import leftover_points, validate_lay_down
from tests.reference import reference_best, reference_cards_away
from tests.strategies import within_deck

PROGRESSIVE = preset("progressive")
SHANGHAI = preset("shanghai")
EVELEIGH = preset("eveleigh")
MAY_I = preset("may-i")


def house(base: Rules, name: str, **changes: object) -> Rules:
    return check_rules(dataclasses.replace(base, name=name, **changes))


# Each new rule over the model's three ways of counting: exact contracts without wild limits
# (runs per window, sets per rank), minimum contracts, and a slot per run (wild limits).
ALWAYS_WILD = house(PROGRESSIVE, "always-wild", deuces_wild=True, deuces_always_wild=True,
                    wilds_may_outnumber_naturals=False)
ALWAYS_WILD_ONE_PER_MELD = house(SHANGHAI, "always-wild-1", deuces_wild=True, deuces_always_wild=True)
ALWAYS_WILD_EVELEIGH = house(EVELEIGH, "always-wild-eveleigh", deuces_always_wild=True)
NO_TWO = house(PROGRESSIVE, "no-two", two_position_in_runs=False)
NO_TWO_WILD_DEUCES = house(EVELEIGH, "no-two-eveleigh", two_position_in_runs=False)
NO_TWO_SHANGHAI = house(SHANGHAI, "no-two-shanghai", two_position_in_runs=False, ace_low=True)
GAP_2 = house(PROGRESSIVE, "gap-2", same_suit_runs=SameSuitRuns.GAP_2)
GAP_2_MAY_I = house(MAY_I, "gap-2-may-i", same_suit_runs=SameSuitRuns.GAP_2)
GAP_2_SHANGHAI = house(SHANGHAI, "gap-2-shanghai", same_suit_runs=SameSuitRuns.GAP_2)
# All three at once, as the May I? engine's house file has them.
ALL_THREE = house(MAY_I, "all-three", deuces_wild=True, deuces_always_wild=True, two_position_in_runs=False,
                  same_suit_runs=SameSuitRuns.GAP_2, wilds_may_outnumber_naturals=False)

HOUSE_ROUNDS = [
    (ALWAYS_WILD, 1), (ALWAYS_WILD, 2), (ALWAYS_WILD, 3),
    (ALWAYS_WILD_ONE_PER_MELD, 1), (ALWAYS_WILD_ONE_PER_MELD, 2),
    (ALWAYS_WILD_EVELEIGH, 2),
    (NO_TWO, 2), (NO_TWO, 3), (NO_TWO_WILD_DEUCES, 2), (NO_TWO_SHANGHAI, 2),
    (GAP_2, 3), (GAP_2_MAY_I, 3), (GAP_2_SHANGHAI, 3),
    (ALL_THREE, 2), (ALL_THREE, 3),
]
IDS = [f"{rules.name}-{number}" for rules, number in HOUSE_ROUNDS]
SOME = settings(max_examples=max(10, settings().max_examples // 3))  # the reference is slow-ish


@st.composite
def house_hands(draw: st.DrawFn, rules: Rules, round_number: int, spare: int) -> tuple[Card, ...]:
    """The round's contract laid where the house rules bite, then spoilt a little: runs often
    through the 2's place or the low ace, a second run of one suit 0 to 3 ranks past the first
    (or overlapping it), sets of 2s, 2s and jokers swapped in, a card dropped, a stray added;
    at most the contract's size plus ``spare`` cards, within the deck."""
    suits = draw(st.lists(st.sampled_from(list(Suit)), min_size=1, max_size=2, unique=True))
    cards: list[Card] = []
    last_end: dict[Suit, int] = {}
    for spec in rules.round(round_number).contract:
        if spec.kind == MeldKind.RUN:
            suit = draw(st.sampled_from(suits))
            if suit in last_end and draw(st.booleans()):
                first = last_end[suit] + draw(st.integers(-1, 3))  # overlapping, touching, 1-3 apart
            else:
                first = draw(st.one_of(st.integers(1, 3), st.integers(1, 11)))  # often A-2-3-4, 2-3-4-5
            first = max(1, min(first, 15 - spec.size))
            last_end[suit] = first + spec.size
            cards += [Card(Rank(1 + (p - 1) % 13), suit) for p in range(first, first + spec.size)]
        else:
            rank = draw(st.one_of(st.just(Rank.TWO), st.sampled_from(list(Rank))))
            cards += [Card(rank, draw(st.sampled_from(list(Suit)))) for _ in range(spec.size)]
    if draw(st.booleans()):
        del cards[draw(st.integers(0, len(cards) - 1))]
    for _ in range(draw(st.integers(0, 2))):
        swap_in = draw(st.sampled_from([JOKER, Card(Rank.TWO, draw(st.sampled_from(suits)))]))
        cards[draw(st.integers(0, len(cards) - 1))] = swap_in
    if draw(st.booleans()):
        cards.append(draw(st.sampled_from([*ALL_NATURALS[:13], JOKER, Card(Rank.TWO, Suit.HEARTS)])))
    need = sum(spec.size for spec in rules.round(round_number).contract)
    return tuple(within_deck(cards, rules.deck_for(None))[:need + spare])


def check_answer(result: LayDown, hand: tuple[Card, ...], rules: Rules, round_number: int) -> None:
    """Re-validate whatever the solver returned, with the independent validator."""
    assert Counter(result.hand) == Counter(hand)
    if result.can_lay_down:
        problems = validate_lay_down(hand, rules, round_number, result.melds, result.leftover)
        assert problems == [], result.to_dict()
        assert result.leftover_points == leftover_points(result.leftover, rules)
    elif result.cards_away is not None:
        assert result.cards_away == len(result.missing) >= 1
        problems = validate_lay_down(hand, rules, round_number, result.with_missing, result.kept_with_missing(),
                                     extra=result.missing, deck=rules.deck_for(None))
        assert problems == [], result.to_dict()
        for card, count in Counter(hand + result.missing).items():
            assert count <= deck_copies(card, rules.deck_for(None))


@pytest.mark.parametrize(("rules", "round_number"), HOUSE_ROUNDS, ids=IDS)
@given(data=st.data())
def test_best_lay_down_matches_brute_force(rules: Rules, round_number: int, data: st.DataObject) -> None:
    hand = data.draw(house_hands(rules, round_number, spare=2))
    result = analyze(hand, rules, round_number, moment="before-draw")
    check_answer(result, hand, rules, round_number)
    assert result.proven_optimal
    best = reference_best(hand, rules, round_number)
    assert result.can_lay_down == (best is not None), result.to_dict()
    if best is not None:
        assert result.leftover_points == best


@pytest.mark.parametrize(("rules", "round_number"), HOUSE_ROUNDS, ids=IDS)
@SOME
@given(data=st.data())
def test_cards_away_matches_brute_force(rules: Rules, round_number: int, data: st.DataObject) -> None:
    hand = data.draw(house_hands(rules, round_number, spare=0))
    result = analyze(hand, rules, round_number, moment="before-draw")
    check_answer(result, hand, rules, round_number)
    expected = reference_cards_away(hand, rules, round_number, rules.deck_for(None), max_extra=2)
    if expected is not None:
        assert result.cards_away == expected, result.to_dict()
    else:
        assert result.cards_away is None or result.cards_away > 2


# ---- named examples ----------------------------------------------------------------------------


def lay(hand: str, rules: Rules, round_number: int) -> LayDown:
    result = analyze(hand, rules, round_number, moment="before-draw")
    check_answer(result, parse_cards(hand), rules, round_number)
    assert reference_best(parse_cards(hand), rules, round_number) == (
        result.leftover_points if result.can_lay_down else None)
    return result


DEUCES_WILD = house(PROGRESSIVE, "deuces-wild", deuces_wild=True, wilds_may_outnumber_naturals=False)


def test_three_twos_are_no_set_when_twos_are_always_wild() -> None:
    # Three wild cards and no natural one: no set where wild cards may not outnumber naturals.
    assert not lay("2C 2D 2H 5C 5D 5S", ALWAYS_WILD, 1).can_lay_down
    # Wild 2s that may stand for themselves: a set of three natural 2s.
    assert lay("2C 2D 2H 5C 5D 5S", DEUCES_WILD, 1).can_lay_down


def test_a_two_on_its_own_place_is_still_wild_when_twos_are_always_wild() -> None:
    # 2♠ 3♠ JK JK: one natural (3♠) to three wild cards.
    assert not lay("2S 3S JK JK 9C 9D 9H", ALWAYS_WILD, 2).can_lay_down
    assert lay("2S 3S JK JK 9C 9D 9H", DEUCES_WILD, 2).can_lay_down  # 2♠ and 3♠ natural: two to two
    # Shanghai's one wild card per meld: 2♥ 3♥ 4♥ JK holds two wild cards when 2s are always wild.
    assert not lay("2H 3H 4H JK 9C 9D 9H", ALWAYS_WILD_ONE_PER_MELD, 2).can_lay_down
    assert lay("2H 3H 4H 5H 9C 9D 9H", ALWAYS_WILD_ONE_PER_MELD, 2).can_lay_down


def test_the_validator_counts_an_always_wild_two_as_wild() -> None:
    twos = PlacedMeld(MeldKind.SET, parse_cards("2C 2D 2H"), parse_cards("2C 2D 2H"))
    fives = PlacedMeld(MeldKind.SET, parse_cards("5C 5D 5S"), parse_cards("5C 5D 5S"))
    hand = parse_cards("2C 2D 2H 5C 5D 5S")
    assert validate_lay_down(hand, DEUCES_WILD, 1, [twos, fives], ()) == []
    problems = validate_lay_down(hand, ALWAYS_WILD, 1, [twos, fives], ())
    assert problems == ["meld 1 (set 2C 2D 2H): 3 wild cards outnumber its 0 natural cards"]


def test_always_wild_twos_score_as_wild_twos() -> None:
    assert ALWAYS_WILD.points_of(Card(Rank.TWO, Suit.HEARTS)) == ALWAYS_WILD.points.wild_deuce


def test_runs_may_not_use_the_two_position() -> None:
    assert not lay("2H 3H 4H 5H 9C 9D 9H", NO_TWO, 2).can_lay_down
    assert not lay("AH 2H 3H 4H 9C 9D 9H", NO_TWO, 2).can_lay_down
    assert lay("3H 4H 5H 6H 9C 9D 9H", NO_TWO, 2).can_lay_down
    assert lay("JH QH KH AH 9C 9D 9H", NO_TWO, 2).can_lay_down
    assert lay("2H 3H 4H 5H 9C 9D 9H", PROGRESSIVE, 2).can_lay_down
    # A joker cannot stand for the 2 either: JK 3♥ 4♥ 5♥ is 3-6 (the joker a 6♥).
    result = lay("JK 3H 4H 5H 9C 9D 9H", NO_TWO, 2)
    run = next(meld for meld in result.melds if meld.kind == MeldKind.RUN)
    assert [card.token for card in run.stands_for] == ["3H", "4H", "5H", "6H"]
    # What would do it: the 6♥ (3-6), never a 2.
    assert lay("3H 4H 5H 9C 9D 9H", NO_TWO, 2).missing == (Card(Rank.SIX, Suit.HEARTS),)


def test_the_validator_refuses_a_run_over_the_two_position() -> None:
    cards = parse_cards("AH 2H 3H 4H 9C 9D 9H")
    melds = [PlacedMeld(MeldKind.RUN, cards[:4], cards[:4]), PlacedMeld(MeldKind.SET, cards[4:], cards[4:])]
    assert validate_lay_down(cards, PROGRESSIVE, 2, melds, ()) == []
    problems = validate_lay_down(cards, NO_TWO, 2, melds, ())
    assert len(problems) == 1 and "2's place" in problems[0]
    wild_two = [PlacedMeld(MeldKind.RUN, parse_cards("3H JK 5H 6H"), parse_cards("3H 4H 5H 6H"))]
    assert not [p for p in validate_lay_down(parse_cards("3H JK 5H 6H"), NO_TWO, 2, wild_two, ())
                if "2's place" in p]


def test_same_suit_runs_two_ranks_apart() -> None:
    # 3-6♥ and 9-Q♥ leave 7 and 8 out: two missing ranks, allowed under gap-2 (and gap).
    assert lay("3H 4H 5H 6H 9H 10H JH QH", GAP_2, 3).can_lay_down
    # 3-6♥ and 8-J♥ leave only the 7 out: allowed under gap, not under gap-2.
    gap = house(PROGRESSIVE, "gap", same_suit_runs=SameSuitRuns.GAP)
    assert lay("3H 4H 5H 6H 8H 9H 10H JH", gap, 3).can_lay_down
    assert not lay("3H 4H 5H 6H 8H 9H 10H JH", GAP_2, 3).can_lay_down
    assert not lay("3H 4H 5H 6H 8H 9H 10H JH", GAP_2_SHANGHAI, 3).can_lay_down
    assert not lay("3H 4H 5H 6H 8H 9H 10H JH", GAP_2_MAY_I, 3).can_lay_down
    # Other suits are not affected.
    assert lay("3H 4H 5H 6H 8S 9S 10S JS", GAP_2, 3).can_lay_down


def test_the_validator_names_the_two_rank_gap() -> None:
    low, high = parse_cards("3H 4H 5H 6H"), parse_cards("8H 9H 10H JH")
    melds = [PlacedMeld(MeldKind.RUN, low, low), PlacedMeld(MeldKind.RUN, high, high)]
    assert validate_lay_down(low + high, GAP_2, 3, melds, ()) == [
        "melds 1 and 2: two runs of one suit must leave at least two ranks between them (gap-2)"]


# ---- lay-offs and the simulated table -------------------------------------------------------------


def test_lay_offs_follow_the_house_rules() -> None:
    run = PlacedMeld(MeldKind.RUN, parse_cards("3H 4H 5H 6H"), parse_cards("3H 4H 5H 6H"))
    two = Card(Rank.TWO, Suit.HEARTS)
    assert lay_off_targets(two, [run], PROGRESSIVE) == [run]
    assert lay_off_targets(two, [run], NO_TWO) == []
    assert extend_meld(run, two, PROGRESSIVE) is not None
    assert extend_meld(run, two, NO_TWO) is None
    assert extend_meld(run, Card(Rank.SEVEN, Suit.HEARTS), NO_TWO) is not None
    low = PlacedMeld(MeldKind.RUN, parse_cards("2H 3H 4H 5H"), parse_cards("2H 3H 4H 5H"))
    assert meld_is_valid(low, PROGRESSIVE) and not meld_is_valid(low, NO_TWO)
    # Shanghai's one wild per meld: with a joker in the run, a 2♥ fits on its own place only
    # while a 2 may be natural.
    with_joker = PlacedMeld(MeldKind.RUN, parse_cards("3H JK 5H 6H"), parse_cards("3H 4H 5H 6H"))
    one_wild = house(SHANGHAI, "shanghai-deuces", deuces_wild=True, ace_low=True)
    assert lay_off_targets(two, [with_joker], one_wild) == [with_joker]
    assert lay_off_targets(two, [with_joker], ALWAYS_WILD_ONE_PER_MELD) == []
    as_itself = PlacedMeld(MeldKind.RUN, parse_cards("2H 3H JK 5H"), parse_cards("2H 3H 4H 5H"))
    assert meld_is_valid(as_itself, one_wild) and not meld_is_valid(as_itself, ALWAYS_WILD_ONE_PER_MELD)


# ---- the rules file ------------------------------------------------------------------------------


def test_a_house_file_says_all_three(tmp_path: Path) -> None:
    path = tmp_path / "house.toml"
    path.write_text('base = "may-i"\ndeuces_wild = true\ndeuces_always_wild = true\n'
                    'two_position_in_runs = false\nsame_suit_runs = "gap-2"\n')
    rules = load_rules(str(path))
    assert rules.deuces_always_wild and not rules.two_position_in_runs
    assert rules.same_suit_runs == SameSuitRuns.GAP_2
    assert rules.run_positions() == tuple(range(3, 15))


@pytest.mark.parametrize("name", ["progressive", "ill-buy-it", "contract", "pagat", "may-i", "shanghai",
                                  "shanghai-powe", "kolsov", "eveleigh"])
def test_every_preset_keeps_the_old_rules(name: str) -> None:
    rules = preset(name)
    assert not rules.deuces_always_wild and rules.two_position_in_runs
    assert rules.same_suit_runs != SameSuitRuns.GAP_2


@pytest.mark.parametrize(("changes", "words"), [
    ({"deuces_always_wild": True}, "deuces_always_wild = true needs deuces_wild = true"),
    ({"two_position_in_runs": False, "ace_high": False}, "ace_high must be true"),
    ({"deuces_always_wild": 1}, "deuces_always_wild must be true or false"),
    ({"two_position_in_runs": "no"}, "two_position_in_runs must be true or false"),
])
def test_bad_house_values_are_refused(changes: dict[str, object], words: str) -> None:
    with pytest.raises(RulesError, match=words):
        check_rules(dataclasses.replace(PROGRESSIVE, **changes))


def test_a_run_longer_than_the_positions_left_is_refused() -> None:
    from analyzer.rules import RoundRule, parse_contract

    long_run = (RoundRule(13, parse_contract("R13")),)
    assert check_rules(dataclasses.replace(PROGRESSIVE, rounds=long_run))
    with pytest.raises(RulesError, match="run's size .runs have 12 places.* must be from 3 to 12, not 13"):
        check_rules(dataclasses.replace(PROGRESSIVE, rounds=long_run, two_position_in_runs=False))


def test_new_fields_at_their_defaults_keep_the_going_out_table() -> None:
    """The measured going-out chances are keyed by a fingerprint of the rule set: a field added
    later must not change the fingerprint of a rule set that leaves it at its default."""
    from analyzer.going_out_table import TABLE
    from analyzer.simulate import rules_fingerprint

    measured = {key.split("/")[0] for key in TABLE}
    for name in ("progressive", "ill-buy-it", "contract", "pagat", "may-i", "shanghai", "shanghai-powe",
                 "eveleigh"):
        assert rules_fingerprint(preset(name)) in measured, name
    assert rules_fingerprint(NO_TWO) != rules_fingerprint(PROGRESSIVE)
    assert rules_fingerprint(ALWAYS_WILD_EVELEIGH) != rules_fingerprint(EVELEIGH)


def test_a_path_without_toml_is_told_to_be_named_toml(tmp_path: Path) -> None:
    path = tmp_path / "house.rules"
    path.write_text('base = "shanghai"\n')
    with pytest.raises(RulesError, match="a rules file is named .toml"):
        load_rules(str(path))
    with pytest.raises(RulesError, match="did you mean 'shanghai'"):
        load_rules("shangai")


def _fields_hash(rules: Rules) -> int:
    """The frozen dataclass's own hash: every field, in order."""
    return hash(tuple(getattr(rules, f.name) for f in dataclasses.fields(rules)))


def test_a_rule_sets_kept_hash_is_its_fields_hash_and_no_pickle_carries_it() -> None:
    """``Rules`` keeps its hash once worked out (it is frozen): the same value as the dataclass's,
    for every preset and a changed one, and a pickle leaves it out (a string's hash differs
    between processes), so a rule set sent to another process is found there by its own hash."""
    kolsov = preset("kolsov")
    for rules in (kolsov, dataclasses.replace(kolsov, max_run_length=13), preset("progressive")):
        assert hash(rules) == _fields_hash(rules) == hash(rules)
    assert "_hash" not in pickle.loads(pickle.dumps(kolsov)).__dict__
    child = ("import dataclasses, pickle, sys; rules = pickle.loads(sys.stdin.buffer.read()); "
             "print(hash(rules) == hash(tuple(getattr(rules, f.name) for f in dataclasses.fields(rules))))")
    shown = subprocess.run([sys.executable, "-c", child], input=pickle.dumps(kolsov), capture_output=True, check=True)
    assert shown.stdout.strip() == b"True"
