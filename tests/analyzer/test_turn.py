"""The moment of a turn and the turn's best play, against a brute force and worked examples.

The best-play property enumerates every legal lay-down of the hand with the brute-force
reference and every legal discard after it, so a turn finder that returned nothing, the first
legal play, or the obvious play (the fewest-points lay-down, then its costliest card) fails it
(``test_the_turn_check_catches_wrong_players`` shows that it does).
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections import Counter
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analyzer import AdviceError, HandError, advise, analyze
from analyzer.cards import Card, parse_cards
from analyzer.result import PlacedMeld
from analyzer.round_solver import RoundSolver
from analyzer.rules import MeldKind, Rules, preset
from analyzer.turn import (
    MOST_BUYS_WHEN_UNLIMITED,
    Moment,
    TurnPlay,
    best_turn,
    hand_sizes,
    lay_off_targets,
    place_in_turn,
    play_with_discard,
)
from analyzer.validate import validate_lay_down
from tests.reference import reference_lay_downs
from tests.strategies import hands

Hand = tuple[Card, ...]
TurnFinder = Callable[[RoundSolver, Hand], TurnPlay | None]

# Small contracts under every discard_to_go_out rule: optional (progressive), required with exact
# melds (pagat) and with minimum melds (may-i), never (shanghai-powe), wild 2s (eveleigh).
TURN_ROUNDS = [
    ("progressive", 1), ("progressive", 2), ("progressive", 3), ("pagat", 1), ("pagat", 2),
    ("may-i", 1), ("may-i", 3), ("shanghai-powe", 1), ("shanghai-powe", 2), ("eveleigh", 1),
]
FEW = settings(max_examples=max(5, settings().max_examples // 4))


def reference_turn_points(hand: Hand, rules: Rules, round_number: int) -> tuple[int, int] | None:
    """By brute force: (points held when the turn ends, points before the discard) of the best
    play of a turn after the draw, over every legal lay-down and every legal discard after it;
    None when no play lays down."""
    best: tuple[int, int] | None = None
    for _, leftover in reference_lay_downs(hand, rules, round_number):
        before = sum(rules.points_of(card) for card in leftover)
        if not leftover:
            if rules.discard_to_go_out != "required":
                best = min(best or (0, 0), (0, 0))  # go out by melding every card
            continue
        if len(leftover) == 1 and rules.discard_to_go_out == "never":
            continue  # discarding the last card would go out by discarding
        after = before - max(rules.points_of(card) for card in leftover)
        best = (after, before) if best is None else min(best, (after, before))
    return best


def check_turn(hand: Hand, rules: Rules, round_number: int, finder: TurnFinder = best_turn) -> TurnPlay | None:
    """The turn's play from ``finder`` against the brute force, and re-validated card by card."""
    solver = RoundSolver(rules, round_number, rules.deck_for(None), 5.0)
    play = finder(solver, hand)
    expected = reference_turn_points(hand, rules, round_number)
    if expected is None:
        assert play is None, play
        return None
    assert play is not None, f"the brute force lays down, keeping {expected}"
    assert (play.points_after_discard, play.leftover_points) == expected
    assert validate_lay_down(hand, rules, round_number, play.melds, play.leftover) == []
    kept = Counter(play.leftover)
    if play.discard is not None:
        assert kept[play.discard] > 0
        kept[play.discard] -= 1
    assert Counter(play.kept) == +kept and play.goes_out == (not play.kept)
    assert play.points_after_discard == sum(rules.points_of(card) for card in play.kept)
    if play.discard is None:
        assert not play.leftover and rules.discard_to_go_out != "required"
    if rules.discard_to_go_out == "never" and play.discard is not None:
        assert play.kept, "going out by discarding is not allowed"
    return play


@pytest.mark.parametrize("rules_name, round_number", TURN_ROUNDS)
@FEW
@given(data=st.data())
def test_the_best_play_of_a_turn_matches_the_brute_force(rules_name: str, round_number: int,
                                                          data: st.DataObject) -> None:
    rules = preset(rules_name)
    need = sum(spec.size for spec in rules.round(round_number).contract)
    hand = data.draw(hands(rules, min_size=need, max_size=need + 3))
    check_turn(hand, rules, round_number)


@pytest.mark.parametrize("rules_name, round_number", TURN_ROUNDS[:6])
@FEW
@given(data=st.data())
def test_each_discard_row_holds_the_best_play_with_that_discard(rules_name: str, round_number: int,
                                                               data: st.DataObject) -> None:
    """A row that lays down this turn keeps what the brute force's best play with that discard
    keeps; a row that does not has no such play."""
    rules = preset(rules_name)
    need = sum(spec.size for spec in rules.round(round_number).contract)
    hand = data.draw(hands(rules, min_size=need + 1, max_size=need + 3))
    table = advise(hand, rules, round_number, discards=True, moment="after-draw").discards
    assert table is not None and Counter(row.card for row in table) == Counter(dict.fromkeys(hand, 1))
    solver = RoundSolver(rules, round_number, rules.deck_for(None), 5.0)
    for row in table:
        rest = list(hand)
        rest.remove(row.card)
        best = min((points for _, points in _discard_plays(hand, row.card, rules, round_number)), default=None)
        assert row.lays_down == (best is not None), row
        if best is not None:
            assert row.points_kept == best and row.cards_away == 0
            play = play_with_discard(solver, tuple(hand), row.card)
            assert play is not None and play.points_after_discard == best
    merits = [(not row.lays_down, math.inf if row.cards_away is None else row.cards_away, -row.unseen_outs,
               row.points_kept) for row in table]
    assert merits == sorted(merits)


def every_discard_turn(solver: RoundSolver, hand: Hand) -> TurnPlay | None:
    """``best_turn`` without its bounds: every discard tried, in the same order, the first of
    the best kept."""
    cards = tuple(sorted(hand, key=Card.sort_key))
    rules = solver.rules
    whole = solver.lay_down(cards)
    no_discard_to_choose = not whole.leftover and rules.discard_to_go_out != "required"
    if solver.go_out or not whole.can_lay_down or no_discard_to_choose:
        return best_turn(solver, hand)
    order = list(dict.fromkeys(sorted(whole.leftover, key=lambda c: -rules.points_of(c))))
    order += [card for card in dict.fromkeys(cards) if card not in whole.leftover]
    best = None
    for card in order:
        play = play_with_discard(solver, cards, card, whole)
        if play is not None and (best is None or play.merit(rules) < best.merit(rules)):
            best = play
    return best


@pytest.mark.parametrize("rules_name, round_number", TURN_ROUNDS)
@FEW
@given(data=st.data())
def test_the_discards_best_turn_skips_would_not_have_changed_its_play(rules_name: str, round_number: int,
                                                                      data: st.DataObject) -> None:
    """The bounds only skip discards that cannot beat the play found: the very same play as
    trying them all (the simulated player's decisions depend on which play, not only its points)."""
    rules = preset(rules_name)
    need = sum(spec.size for spec in rules.round(round_number).contract)
    hand = data.draw(hands(rules, min_size=need + 1, max_size=need + 4))
    solver = RoundSolver(rules, round_number, rules.deck_for(None), 5.0)
    assert best_turn(solver, hand) == every_discard_turn(solver, hand)


def _discard_plays(hand: Hand, discard: Card, rules: Rules, round_number: int) -> list[tuple[object, int]]:
    """Every legal play that discards ``discard``, with the points then kept (brute force)."""
    rest = list(hand)
    rest.remove(discard)
    plays = []
    for melds, leftover in reference_lay_downs(tuple(rest), rules, round_number):
        if not leftover and rules.discard_to_go_out == "never":
            continue
        plays.append((melds, sum(rules.points_of(card) for card in leftover)))
    return plays


def obvious_turn(solver: RoundSolver, hand: Hand) -> TurnPlay | None:
    """The play a hurried player makes: the lay-down leaving the fewest points, then its
    costliest card thrown. Often right; not always."""
    whole = solver.lay_down(hand)
    if not whole.can_lay_down or not whole.leftover:
        return best_turn(solver, hand)
    return play_with_discard(solver, tuple(hand), max(whole.leftover, key=solver.rules.points_of), whole)


def first_turn(solver: RoundSolver, hand: Hand) -> TurnPlay | None:
    """The first legal play: any discard that lets the rest lay down."""
    for card in dict.fromkeys(hand):
        play = play_with_discard(solver, tuple(hand), card)
        if play is not None:
            return play
    return None


def test_the_turn_check_catches_wrong_players() -> None:
    rules = preset("progressive")
    example = parse_cards("6C 7C 8C 9C 10C AD 2D 3D 4D 5D 6D")  # the README's example, round 3
    assert check_turn(example, rules, 3) is not None
    for wrong in (obvious_turn, first_turn, lambda solver, hand: None):
        with pytest.raises(AssertionError):
            check_turn(example, rules, 3, wrong)


# ---- worked examples --------------------------------------------------------------------------


def test_the_old_example_goes_out_by_discarding_a_natural_card() -> None:
    """Round 6, 12 cards after the draw: lay down 11 and discard the 12th, going out. The joker
    is never the recommended discard, and the equal discards form one group."""
    hand = "7C 7D 7H 7S 4H 5H 6H 9S 10S JS QS JK"
    result = analyze(hand, "progressive", 6)
    assert result.moment == "after-draw" and result.goes_out and result.points_after_discard == 0
    assert result.discard is not None and not result.discard.is_joker
    table = advise(hand, "progressive", 6, discards=True).discards
    assert table is not None
    best = [row for row in table if row.rank == 1]
    assert all(row.goes_out for row in best) and len(best) == 11
    joker = next(row for row in table if row.card.is_joker)
    assert joker.rank > 1 and not joker.equal_to_previous and joker.goes_out


def test_a_hand_larger_than_any_turn_is_refused_with_the_sizes_the_round_allows() -> None:
    thirty = " ".join(["7H", "8H", "9H", "10H", "JH", "QH", "KH", "AH", "2C", "3C", "4C", "5C", "6C", "7C", "8C"] * 2)
    with pytest.raises(HandError) as error:
        analyze(thirty, "progressive", 1)
    largest = max(hand_sizes(preset("progressive"), 1)[Moment.AFTER_DRAW])
    assert "30 cards" in str(error.value) and "6 are dealt" in str(error.value) and str(largest) in str(error.value)


def test_a_player_known_to_have_bought_more_than_five_times_is_advised() -> None:
    """Where buying is unlimited a hand is taken to hold at most five buys, unless the caller
    counts more (a game at the table): then the hand of six buys is a turn, not refused."""
    from analyzer import advise

    progressive = preset("progressive")
    six_buys_after_draw = 6 + 6 * 2 + 1  # round 1 deals 6; each buy a card and a penalty card
    with pytest.raises(HandError, match="up to 5 buys"):
        place_in_turn(progressive, 1, six_buys_after_draw)
    assert place_in_turn(progressive, 1, six_buys_after_draw, None, 6).moment is Moment.AFTER_DRAW
    assert max(hand_sizes(progressive, 1, 6)[Moment.BEFORE_DRAW]) == six_buys_after_draw - 1
    assert hand_sizes(preset("shanghai"), 1, 6) == hand_sizes(preset("shanghai"), 1)  # its buys are limited
    hand = "7H 7D 7S 9C 9D 9S 2H 4H 6C 8C 10D QD KS 3S 5D JH AC JC KD"
    with pytest.raises(HandError):
        advise(hand, "progressive", 1, discards=True)
    advice = advise(hand, "progressive", 1, discards=True, buys_used=6)
    assert advice.lay_down.can_lay_down and advice.discards
    from analyzer.question import Question, QuestionError

    before_draw = " ".join(hand.split()[:-1])  # a seventh buy asked of the hand before its draw
    with pytest.raises(QuestionError, match="up to 5 buys"):
        Question.from_json({"hand": before_draw, "round": 1, "buy": "9H"})
    assert Question.from_json({"hand": before_draw, "round": 1, "buy": "9H", "buys_used": 6}).buys_used == 6


def test_a_buy_asked_after_the_draw_is_refused() -> None:
    hand = "7C 7D 4H 5H 6H 9S 10S JS QS KD 3C 2D"  # 12 cards in round 6: the draw is done
    with pytest.raises(AdviceError, match="before your draw"):
        advise(hand, "progressive", 6, buy="7H")
    answer = advise(hand, "progressive", 6, buy="7H", moment="before-draw", rollouts=10)
    assert answer.buy is not None


def test_the_moment_is_told_from_the_size_and_can_be_said_outright() -> None:
    progressive, shanghai, eveleigh = preset("progressive"), preset("shanghai"), preset("eveleigh")
    assert hand_sizes(progressive, 6) == {
        Moment.BEFORE_DRAW: tuple(11 + 2 * buys for buys in range(MOST_BUYS_WHEN_UNLIMITED + 1)),
        Moment.AFTER_DRAW: tuple(12 + 2 * buys for buys in range(MOST_BUYS_WHEN_UNLIMITED + 1)),
    }
    assert hand_sizes(shanghai, 1) == {Moment.BEFORE_DRAW: (11, 14, 17), Moment.AFTER_DRAW: (12, 15, 18)}
    assert hand_sizes(eveleigh, 3) == {Moment.BEFORE_DRAW: (11,), Moment.AFTER_DRAW: (12,)}  # no buying
    assert place_in_turn(progressive, 6, 11).moment is Moment.BEFORE_DRAW
    assert place_in_turn(progressive, 6, 12).moment is Moment.AFTER_DRAW
    assert place_in_turn(progressive, 6, 13) == place_in_turn(progressive, 6, 13, None)
    assert place_in_turn(progressive, 6, 13).moment is Moment.BEFORE_DRAW and place_in_turn(progressive, 6, 13).note is None
    both = place_in_turn(eveleigh, 10, 12)  # a free buy (no penalty card) or the draw
    assert both.moment is Moment.AFTER_DRAW and both.note and "--before-draw" in both.note
    assert place_in_turn(eveleigh, 10, 12, Moment.BEFORE_DRAW).moment is Moment.BEFORE_DRAW
    part = place_in_turn(progressive, 6, 9)
    assert part.moment is Moment.BEFORE_DRAW and part.note and "fewer than the 11 dealt" in part.note
    odd = place_in_turn(shanghai, 1, 13)  # between 12 (after the draw) and 14 (before it, after a buy)
    assert odd.moment is Moment.AFTER_DRAW and odd.note and "12, 15 or 18" in odd.note
    with pytest.raises(HandError, match="11 cards before your draw and 12 after it"):
        place_in_turn(eveleigh, 3, 13)


def test_a_remembered_place_is_the_rule_sets_own() -> None:
    """``place_in_turn`` is memoised by rule set, round, size and moment: a rule set that differs
    in what the place depends on (here the buys a round allows) gets its own note, and an equal
    rule set made anew the same one, each as written afresh (``__wrapped__``: the unmemoised)."""
    progressive = preset("progressive")
    one_buy = dataclasses.replace(progressive, buys_per_round=1)
    asked = (6, 12, Moment.BEFORE_DRAW)  # deal + 1 before the draw: "no turn of this round gives that"
    for rules in (progressive, one_buy, dataclasses.replace(progressive), progressive):
        assert place_in_turn(rules, *asked) == place_in_turn.__wrapped__(rules, *asked)
    assert place_in_turn(progressive, *asked).note != place_in_turn(one_buy, *asked).note
    assert "up to 1 buy" not in (place_in_turn(progressive, *asked).note or "")
    assert "the 1 buy the round allows" in (place_in_turn(one_buy, *asked).note or "")


def test_the_moment_shows_in_the_json_and_decides_the_answer() -> None:
    hand = "7H 8H 9H 10H 5C 5D 5S KD"  # round 2: 8 cards, after the draw
    after = analyze(hand, "progressive", 2)
    assert after.moment == "after-draw" and after.discard == Card.parse("KD") and after.goes_out
    before = analyze(hand, "progressive", 2, moment="before-draw")
    assert before.moment == "before-draw" and before.discard is None and before.points_after_discard is None
    assert before.leftover == (Card.parse("KD"),) and before.note and "no turn of this round" in before.note
    as_json = json.loads(json.dumps(after.to_dict()))
    assert as_json["discard"] == "KD" and as_json["goes_out"] is True and as_json["points_after_discard"] == 0
    with pytest.raises(HandError, match="before-draw"):
        analyze(hand, "progressive", 2, moment="sometime")


def test_never_discarding_to_go_out_keeps_a_card_or_melds_every_card() -> None:
    """shanghai-powe: going out is by melding every card, never by discarding the last one."""
    rules = preset("shanghai-powe")
    melds_all = parse_cards("5C 5D 5H 8C 8D 8S")  # round 1 (2 sets of 3): every card melds
    play = check_turn(melds_all, rules, 1)
    assert play is not None and play.discard is None and play.goes_out
    one_over = parse_cards("5C 5D 5H 8C 8D 8S KD")  # discarding the K♦ would go out by discarding
    assert check_turn(one_over, rules, 1) is None  # and no set can spare a card: no legal play
    spare = parse_cards("5C 5D 5H 5S 8C 8D 8S KD")  # a set of four can spare a five to keep
    play = check_turn(spare, rules, 1)
    assert play is not None and play.discard == Card.parse("KD") and len(play.kept) == 1


def test_a_kept_card_that_extends_a_meld_can_be_laid_off_later() -> None:
    rules = preset("progressive")
    melds = analyze("7C 8C 9C 10C 3D 4D 5D 6D", "progressive", 3, moment="before-draw").melds
    assert [m.describe() for m in lay_off_targets(Card.parse("6C"), melds, rules)] == ["7♣ 8♣ 9♣ 10♣"]
    assert [m.describe() for m in lay_off_targets(Card.parse("JC"), melds, rules)] == ["7♣ 8♣ 9♣ 10♣"]
    assert lay_off_targets(Card.parse("QC"), melds, rules) == []  # a gap, not an end
    assert lay_off_targets(Card.parse("6H"), melds, rules) == []  # another suit
    assert len(lay_off_targets(Card.parse("JK"), melds, rules)) == 2  # a joker goes anywhere
    sets = analyze("KC KD KH 2S 3S 4S 5S", "progressive", 2, moment="before-draw").melds
    assert [m.kind.value for m in lay_off_targets(Card.parse("KS"), sets, rules)] == ["set"]


def test_a_wild_card_is_laid_off_where_the_validator_sees_room_for_one() -> None:
    # 2s wild, two wild cards a meld: in a set of 2s a 2 is natural whichever 2 it stands for
    # (docs/lay-down.md), so this set holds one wild card, the joker, and has room for another.
    rules = dataclasses.replace(preset("eveleigh"), max_wilds_per_meld=2)
    twos = PlacedMeld(MeldKind.SET, parse_cards("2H 2C JK"), parse_cards("2H 2D 2S"))
    assert lay_off_targets(Card.parse("JK"), [twos], rules) == [twos]
    full = PlacedMeld(MeldKind.SET, parse_cards("2H 2C JK JK"), parse_cards("2H 2D 2S 2C"))
    assert lay_off_targets(Card.parse("JK"), [full], rules) == []


# ---- go-out rounds, as the player reads them ----------------------------------------------------


def test_a_go_out_hand_after_the_draw_lets_a_card_go_and_names_its_outs() -> None:
    """Shanghai round 7: let the K♠ go and the hand is one draw away, with 8 unseen outs."""
    advice = advise("4C 5C 6C 7C 9D 10D JD QD 3H 4H 5H KS", "shanghai", 7)
    assert advice.lay_down.moment == "after-draw" and advice.lay_down.cards_away == 1
    assert advice.lay_down.kept_with_missing() == (Card.parse("KS"),)
    assert {out.card.token for out in advice.outs} == {"2H", "6H", "JK"} and advice.unseen_outs == 8


# A budget no run can reach: this table costs a few seconds of CPU even on a loaded machine, so
# the test checks the table itself, never the clock. (Under the default budget a slow machine
# once left the joker's row unranked.) Not bounded by deterministic work instead: a solve cut
# short by work would answer silently, where one cut short by seconds is reported.
NO_CLOCK = 3600.0


def test_a_go_out_discard_table_never_says_never_nor_throws_the_joker() -> None:
    advice = advise("4C 5C 6C QC 9D KD 3H 9H KH 2S 9S JK", "shanghai", 7, discards=True, time_limit=NO_CLOCK)
    assert not advice.unfinished and not advice.unranked
    table = advice.discards
    assert table is not None and len(table) == 12 and all(row.cards_away is not None for row in table)
    assert not table[0].card.is_joker
    joker = next(row for row in table if row.card.is_joker)
    assert joker.cards_away is not None and joker.cards_away > table[0].cards_away
