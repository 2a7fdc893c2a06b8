"""Should you buy? The verdict over the rest of the round against hands whose answer a player
knows, the exact path against the Monte Carlo one, and the rules of buying. The verdict compares
the player's points less the other players' mean (the score that decides games); the verdict on
its own points alone stays reachable (``BuyObjective.OWN_POINTS``).

Every sanity test asserts the side of the margin the verdict falls on (and most how far), so
a verdict that came out the other way, or always the same, fails them.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math

import pytest

from analyzer import AdviceError, advise
from analyzer import buy as buy_module
from analyzer.buy import BuyAdvice, BuyObjective, Verdict
from analyzer.cards import ALL_CARD_KINDS, parse_cards
from analyzer.hand import deck_copies
from analyzer.round_solver import RoundSolver
from analyzer.rules import DiscardToGoOut, preset
from analyzer.simulate import SimulatedPlayer, going_out_chances

ONE_AWAY = "7H 8H 10H 5C 5D 5S KC"  # progressive round 2 (a set of 3, a run of 4): needs the 9H


def buy(hand: str, offered: str, rules: str = "progressive", round_number: int = 2, **options: object) -> BuyAdvice:
    result = advise(hand, rules, round_number, players=4, buy=offered, **options)  # type: ignore[arg-type]
    assert result.buy is not None
    return result.buy


def clear(advice: BuyAdvice, verdict: Verdict) -> None:
    """The verdict, with the difference clear of the margin by two standard errors."""
    assert advice.verdict is verdict, (advice.difference, advice.margin, advice.reason)
    spread = 2 * (advice.std_error or 0.0)
    if verdict is Verdict.BUY:
        assert advice.difference < -advice.margin - spread
    else:
        assert advice.difference > advice.margin + spread


# ---- against the table -------------------------------------------------------------------------------


def test_a_ready_hand_passes_a_card_it_does_not_need() -> None:
    """`echo "5C 5D 5S 7H 8H 9H 10H" | analyze - -r 2 --buy 2D --players 4`: the hand goes out on
    its next turn; buying a useless 2♦ and a penalty card halves its chance of going out first,
    and when it goes out the others are caught holding their whole hands. On its own points
    buying costs only 1.8 (a close call); against the table it is a clear pass."""
    advice = buy("5C 5D 5S 7H 8H 9H 10H", "2D")
    assert advice.objective is BuyObjective.AGAINST_TABLE
    clear(advice, Verdict.PASS)
    assert advice.passing.go_out_probability > 0.95 and advice.buying.go_out_probability < 0.6
    assert advice.difference == pytest.approx(advice.buying.relative_points - advice.passing.relative_points)
    # Going out first makes the others pay: they hold more when passing does.
    assert advice.passing.opponent_points > advice.buying.opponent_points + 5
    own = buy("5C 5D 5S 7H 8H 9H 10H", "2D", buy_objective=BuyObjective.OWN_POINTS)
    assert own.verdict is Verdict.CLOSE_CALL and own.objective is BuyObjective.OWN_POINTS


def test_two_sets_of_three_pass_a_card_that_fits_nothing_in_round_one() -> None:
    """`7C 7D 7S 9H 9D KC`, progressive round 1 (two sets of 3), offered the 4♠: going out first
    falls from about half to an eighth; a close call on the player's own points, a clear pass
    against the table."""
    advice = buy("7C 7D 7S 9H 9D KC", "4S", round_number=1)
    clear(advice, Verdict.PASS)
    assert advice.passing.go_out_probability > 2 * advice.buying.go_out_probability
    assert "fits none of your melds" in advice.reason


# Buys clear on the player's own points where the offered card completes the contract: with no,
# one and two penalty cards, and on the exact path.
COMPLETING_BUYS = [
    ("progressive", 2, ONE_AWAY, "9H", None, {}),
    ("progressive", 2, ONE_AWAY, "9H", 0, {}),
    ("progressive", 2, ONE_AWAY, "9H", 2, {}),
    ("eveleigh", 9, "3C 3D 3H 4C 4D 4H 5C 5D 5H 6C 6D", "6H", None, {"horizon": 1}),
]


@pytest.mark.parametrize(("rules", "round_number", "hand", "offered", "penalty", "options"), COMPLETING_BUYS,
                         ids=[f"{case[0]}-{case[1]}-{case[3]}-{case[4]}" for case in COMPLETING_BUYS])
def test_a_clear_buy_that_completes_the_contract_stays_a_clear_buy(
        rules: str, round_number: int, hand: str, offered: str, penalty: int | None, options: dict[str, int]) -> None:
    rule_set = preset(rules) if penalty is None else dataclasses.replace(preset(rules), buy_penalty_cards=penalty)

    def asked(objective: BuyObjective) -> BuyAdvice:
        advice = advise(hand, rule_set, round_number, players=4, buy=offered, buy_objective=objective,
                        **options).buy  # type: ignore[arg-type]
        assert advice is not None and advice.objective is objective
        return advice

    own = asked(BuyObjective.OWN_POINTS)
    clear(own, Verdict.BUY)  # the premise: a clear buy on the player's own points...
    assert "completes your contract" in own.reason  # ...of a card that completes the contract
    clear(asked(BuyObjective.AGAINST_TABLE), Verdict.BUY)


# ---- the sanity tests ------------------------------------------------------------------------------


def test_a_card_that_completes_the_contract_is_a_clear_buy() -> None:
    advice = buy(ONE_AWAY, "9H")
    clear(advice, Verdict.BUY)
    assert advice.buying.lay_down_probability > 0.95 > advice.passing.lay_down_probability
    assert "completes your contract" in advice.reason and "7♥ 8♥ 9♥ 10♥" in advice.reason
    assert "penalty card costs" in advice.reason
    assert advice.horizon is None and advice.turn == buy_module.DEFAULT_TURN
    # So clear that the simulation stops at its first look.
    assert advice.method == "monte-carlo" and advice.rollouts == buy_module.MIN_ROLLOUTS


def test_each_penalty_card_makes_buying_dearer() -> None:
    """The same completing card under progressive rules with 0, 1 and 2 penalty cards."""
    differences = []
    for penalty in (0, 1, 2):
        rules = dataclasses.replace(preset("progressive"), buy_penalty_cards=penalty)
        advice = advise(ONE_AWAY, rules, 2, players=4, buy="9H").buy
        assert advice is not None and advice.penalty_cards == penalty and advice.buying.hand_size == 8 + penalty
        clear(advice, Verdict.BUY)
        differences.append(advice.difference)
    assert differences[0] < differences[1] < differences[2]


def test_a_free_joker_is_a_clear_buy() -> None:
    """Eveleigh round 10 (three runs of 4), 11 cards dealt, no penalty card. The hand goes out
    first in two rounds of three either way, so the points against the table are large and so
    is the margin (10% of them): 120 rounds leave the buy short of clear, 400 make it so."""
    advice = buy("3H 4H 5H 6H 8S 9S 10S 4C 5C 6C KD", "JK", "eveleigh", 10, rollouts=400)
    assert advice.penalty_cards == 0 and "there is no penalty card" in advice.reason
    clear(advice, Verdict.BUY)
    assert advice.buying.go_out_probability > advice.passing.go_out_probability


def test_a_card_that_fits_nothing_with_costly_penalty_cards_is_a_clear_pass() -> None:
    advice = buy("7H 8H 10H 5C 5D 5S KC JC 3D 4S 6C", "KD", "shanghai", 2)
    assert advice.penalty_cards == 2
    clear(advice, Verdict.PASS)
    assert "fits none of your melds" in advice.reason and "adds 3 cards" in advice.reason


def test_a_card_that_helps_nothing_is_a_clear_pass() -> None:
    advice = buy(ONE_AWAY, "KD")
    clear(advice, Verdict.PASS)
    assert "fits none of your melds" in advice.reason and "adds 2 cards" in advice.reason


def test_buying_is_clear_when_the_round_needs_more_cards_than_are_dealt() -> None:
    """Eveleigh round 12: five runs of 3 (15 cards, going out without a discard) from 11 dealt, two
    buys of one penalty card each: passing can never lay down without buying later."""
    advice = buy("3H 4H 5H 7S 8S 9S JD QD KD 5C 6C", "7C", "eveleigh", 12)
    clear(advice, Verdict.BUY)
    assert "needs more cards than are dealt" in advice.reason and "takes 15 cards" in advice.reason
    assert "5♣ 6♣ 7♣" in advice.reason


def test_with_no_buy_left_after_this_one_neither_option_ever_lays_down() -> None:
    """The same hand having bought once already: this buy is the last, and 13 cards never make
    16. What each buy costs in future buys is counted."""
    advice = buy("3H 4H 5H 7S 8S 9S JD QD KD 5C 6C", "7C", "eveleigh", 12, buys_used=1)
    assert advice.passing.lay_down_probability == advice.buying.lay_down_probability == 0.0
    assert "you cannot lay down by the end of the round either way" in advice.reason
    assert buy("3H 4H 5H 7S 8S 9S JD QD KD 5C 6C", "7C", "eveleigh", 12).passing.lay_down_probability > 0.2


def test_a_joker_that_shortens_the_contract_is_worth_more_than_its_fifty_points() -> None:
    """Shanghai round 6 (a set of 3, two runs of 4): the joker scores 50 and brings two
    penalty cards, but it takes the hand from 2 cards away to 1."""
    advice = buy("7C 7D 7S 4H 5H 6H 9S 10S JS KD 3C", "JK", "shanghai", 6)
    assert "takes you from 2 cards away to 1" in advice.reason
    # Against the table buying is the better choice, and a buy since generator puzzles-8's
    # simulated players (they lay down in 63% of the rounds without the joker, 86% with it:
    # -9.4 against a margin of 3.0 on 120 rounds, within two standard errors of it; before, 83%
    # and 95%, a close call).
    assert advice.verdict is Verdict.BUY and advice.difference < -advice.margin
    assert advice.buying.lay_down_probability > advice.passing.lay_down_probability


def test_the_reason_names_the_run_a_card_extends() -> None:
    advice = buy("7C 7D 4H 5H 6H 9S 10S JS QS KD 3C", "8S", "progressive", 6)
    assert "extends the run 9♠ 10♠ J♠ Q♠" in advice.reason
    assert "fits none" not in advice.reason


def test_a_hand_that_can_lay_down_passes() -> None:
    """Late in the round (turn 10) a hand that goes out on its next turn gains nothing."""
    advice = buy("7H 8H 9H 10H 5C 5D 5S", "KS", turn=10)
    clear(advice, Verdict.PASS)
    assert "already" in advice.reason
    assert advice.passing.go_out_probability > 0.9 > advice.buying.go_out_probability


def test_the_same_inputs_give_the_same_answer() -> None:
    first = advise(ONE_AWAY, "progressive", 2, players=4, buy="6H", seed=7, rollouts=60)
    again = advise(ONE_AWAY, "progressive", 2, players=4, buy="6H", seed=7, rollouts=60)
    assert first == again and first.to_dict() == again.to_dict()


def test_each_simulated_round_keeps_plans_of_its_own() -> None:
    """A plan one round's player remembers (a card taken between turns fills its plan) is not
    another round's: there the same cards are planned afresh, as by a player that never saw the
    first round. So a round's play depends on its own stock alone, and the verdict's rounds may
    be played side by side. It fails when the copies share their plans."""
    rules = preset("progressive")
    hand, taken_card = parse_cards("8D QS 7S 9C 7H 3D QC"), parse_cards("7C")  # round 2
    deck = rules.deck_for(4)
    player = SimulatedPlayer(RoundSolver(rules, 2, deck, 10.0))
    dealt = player.start(hand)
    one_round = player.for_one_round()
    taken = one_round.with_cards(dealt, taken_card)
    never_saw_it = SimulatedPlayer(RoundSolver(rules, 2, deck, 10.0)).start(hand + taken_card)
    assert taken != never_saw_it  # the premise: the plan the taken card filled is not the solver's plan
    assert one_round.start(hand + taken_card) == taken  # within its round the plan stands
    assert player.for_one_round().start(hand + taken_card) == never_saw_it


@pytest.mark.parametrize("threads", [1, 2])
def test_the_verdict_is_the_same_whichever_order_its_rounds_are_played_in(
        monkeypatch: pytest.MonkeyPatch, threads: int) -> None:
    """Rounds played last first on one thread, or two at a time: the same figures as in order
    (and a verdict that is not finished would say so)."""
    in_order = buy(ONE_AWAY, "6H", rollouts=50, seed=3)

    def last_first(play, items, stop):  # type: ignore[no-untyped-def]
        yield from reversed([play(item) for item in reversed(list(items))])

    monkeypatch.setattr(buy_module, "ROLLOUT_THREADS", threads)
    assert buy(ONE_AWAY, "6H", rollouts=50, seed=3) == in_order
    monkeypatch.setattr(buy_module, "_side_by_side", last_first)
    reversed_order = buy(ONE_AWAY, "6H", rollouts=50, seed=3)
    assert reversed_order == in_order and reversed_order.finished and reversed_order.rollouts == 50


def test_another_seed_draws_other_stocks_and_agrees_within_the_noise() -> None:
    """A clear pass under two seeds: other stocks (other numbers), the same answer within a few
    standard errors, and the same verdict clear of the margin under each."""
    one, other = (buy(ONE_AWAY, "KD", seed=seed, rollouts=120) for seed in (7, 8))
    assert (one.seed, other.seed) == (7, 8)
    assert one.method == other.method == "monte-carlo"
    assert one.difference != other.difference and one.passing != other.passing
    assert one.std_error is not None and other.std_error is not None
    assert abs(one.difference - other.difference) <= 4 * math.hypot(one.std_error, other.std_error)
    clear(one, Verdict.PASS)
    clear(other, Verdict.PASS)


# ---- exact and Monte Carlo ---------------------------------------------------------------------------

EVELEIGH_9 = "3C 3D 3H 4C 4D 4H 5C 5D 5H 6C 6D"  # four sets of 3 (and a discard): 13 cards, 11 dealt


# Eveleigh as it was read before generator puzzles-8: going out needs a discard, so round 9's
# four sets of 3 take 13 cards (a house rule now; the preset goes out by melding every card).
EVELEIGH_DISCARDING = dataclasses.replace(preset("eveleigh"), discard_to_go_out=DiscardToGoOut.REQUIRED)


def test_exact_enumeration_matches_the_outs() -> None:
    """A horizon of one turn without a penalty card is enumerated exactly. Passing never lays
    down (12 cards after the draw, 13 needed); buying lays down exactly when the draw is an out,
    unless the player just before goes out first."""
    rules = EVELEIGH_DISCARDING
    result = advise(EVELEIGH_9, rules, 9, players=4, buy="KS", horizon=1)
    assert result.buy is not None and result.buy.method == "exact" and result.buy.rollouts is None
    assert result.buy.penalty_cards == 0 and result.buy.std_error is None
    stock = sum(deck_copies(c, rules.deck_for(4)) for c in ALL_CARD_KINDS) - 11 - 1
    first = going_out_chances(rules, 9, 4).chance(buy_module.DEFAULT_TURN)
    assert result.lay_down.cards_away == 1
    assert result.buy.passing.lay_down_probability == 0.0
    assert result.buy.buying.lay_down_probability == pytest.approx((1 - first) * result.unseen_outs / stock)


def test_the_others_hold_the_points_self_play_measured() -> None:
    """Passing never lays down (12 cards after the draw, 13 needed), so the round ends either by
    the player just before going out first (then the other two hold their points of this turn)
    or after the one turn (all three hold their points of the next turn)."""
    result = advise(EVELEIGH_9, EVELEIGH_DISCARDING, 9, players=4, buy="KS", horizon=1)
    assert result.buy is not None and result.buy.method == "exact"
    going_out = going_out_chances(EVELEIGH_DISCARDING, 9, 4)
    turn = buy_module.DEFAULT_TURN
    assert going_out.held and all(points > 0 for points in going_out.held)
    first = going_out.chance(turn)
    expected = first * 2 / 3 * going_out.points(turn) + (1 - first) * going_out.points(turn + 1)
    assert result.buy.passing.opponent_points == pytest.approx(expected)
    assert result.buy.passing.relative_points == pytest.approx(result.buy.passing.expected_points - expected)


def test_monte_carlo_agrees_with_exact_enumeration(monkeypatch: pytest.MonkeyPatch) -> None:
    exact = advise(EVELEIGH_9, "eveleigh", 9, players=4, buy="6H", horizon=1).buy
    monkeypatch.setattr(buy_module, "EXACT_LIMIT", 0)
    monkeypatch.setattr(buy_module, "MIN_ROLLOUTS", 10_000)  # all 600 rounds
    sampled = advise(EVELEIGH_9, "eveleigh", 9, players=4, buy="6H", horizon=1, rollouts=600, seed=3).buy
    assert exact is not None and sampled is not None
    assert exact.method == "exact" and sampled.method == "monte-carlo" and sampled.rollouts == 600
    for a, b in ((exact.passing, sampled.passing), (exact.buying, sampled.buying)):
        for p, q in ((a.lay_down_probability, b.lay_down_probability), (a.go_out_probability, b.go_out_probability)):
            assert abs(p - q) <= 4 * math.sqrt(max(0.0, p * (1 - p)) / 600) + 1e-9
    assert sampled.std_error is not None
    assert abs(exact.difference - sampled.difference) <= 4 * sampled.std_error + 0.5
    assert exact.verdict is sampled.verdict is Verdict.BUY


# ---- the simulation ------------------------------------------------------------------------------------


CLOSE = "7C 7D 4H 5H 6H 9S 10S JS QS KD 3C"  # progressive round 6, before the draw: 2 cards away
UNBOUNDED = 3600.0  # seconds: a time limit no verdict of these tests comes near


def settled(advice: BuyAdvice) -> bool:
    """docs/advice.md: the mean difference lies more than 3 standard errors clear of the margin."""
    assert advice.std_error is not None
    return abs(abs(advice.difference) - advice.margin) > buy_module.SETTLED * advice.std_error


def test_the_simulation_stops_early_only_when_the_verdict_is_settled() -> None:
    # The 8♥ waits for the 7♥ beside 4♥ 5♥ 6♥ but costs its points and a penalty card: on the
    # player's own points a real close call, the difference well inside the margin, settled after
    # some rounds, not at once (600 of at most 1,000 since generator puzzles-8's simulated
    # players; the 6♥ this test used before no longer settles inside 400). (Against the table
    # close calls are rarer, the going out counting for the others' whole hands; the settling is
    # the same for both objectives.)
    # No bound in seconds (a loaded machine would stop it at the time limit, not where it settles).
    close = buy(CLOSE, "8H", "progressive", 6, rollouts=1000, seed=0, buy_objective=BuyObjective.OWN_POINTS,
                time_limit=UNBOUNDED)
    assert close.verdict is Verdict.CLOSE_CALL and close.std_error is not None
    assert abs(close.difference) < close.margin - 2 * close.std_error, (close.difference, close.margin)
    assert close.rollouts is not None and buy_module.MIN_ROLLOUTS < close.rollouts < 1000
    assert close.rollouts % buy_module.SETTLE_EVERY == 0
    # It stopped because the verdict was settled, and not a look earlier: the same seed with
    # fewer rounds plays the same first rounds.
    assert settled(close)
    earlier = buy(CLOSE, "8H", "progressive", 6, rollouts=close.rollouts - buy_module.SETTLE_EVERY, seed=0,
                  buy_objective=BuyObjective.OWN_POINTS, time_limit=UNBOUNDED)
    assert earlier.rollouts == close.rollouts - buy_module.SETTLE_EVERY and not settled(earlier)
    clear_pass = buy(ONE_AWAY, "KD", rollouts=200)
    assert clear_pass.verdict is Verdict.PASS and clear_pass.rollouts is not None and settled(clear_pass)
    assert buy_module.MIN_ROLLOUTS <= clear_pass.rollouts < 200 and clear_pass.rollouts % buy_module.SETTLE_EVERY == 0
    if clear_pass.rollouts > buy_module.MIN_ROLLOUTS:
        assert not settled(buy(ONE_AWAY, "KD", rollouts=clear_pass.rollouts - buy_module.SETTLE_EVERY))
    assert buy(ONE_AWAY, "KD", rollouts=25).rollouts == 25  # never more than asked


def test_later_turns_bring_the_others_closer_to_going_out() -> None:
    early = buy(ONE_AWAY, "KD", turn=1, rollouts=40)
    late = buy(ONE_AWAY, "KD", turn=12, rollouts=40)
    assert late.turn == 12 and late.rollouts == early.rollouts == 40
    assert late.passing.go_out_probability < early.passing.go_out_probability
    assert late.passing.lay_down_probability < early.passing.lay_down_probability


def test_the_horizon_caps_the_turns_played() -> None:
    capped = buy(ONE_AWAY, "6H", horizon=2, rollouts=40)
    whole = buy(ONE_AWAY, "6H", rollouts=40)
    assert capped.horizon == 2 and whole.horizon is None
    assert capped.passing.lay_down_probability < whole.passing.lay_down_probability


def test_buy_verdict_to_dict_is_json() -> None:
    result = advise(ONE_AWAY, "progressive", 2, players=4, buy="9H", discards=True, rollouts=20)
    answer = json.loads(json.dumps(result.to_dict()))
    # The offered 9H lies face up: one 9H is left unseen.
    assert answer["cards_away"] == 1 and answer["outs"] == [{"card": "9H", "unseen": 1}, {"card": "JK", "unseen": 1}]
    assert answer["unseen_outs"] == 2 and answer["discards"][0]["card"] == "KC"
    assert answer["buy"]["verdict"] == "buy" and answer["buy"]["offered"] == "9H"
    assert set(answer["buy"]) == {"offered", "penalty_cards", "passing", "buying", "verdict", "difference", "margin",
                                  "std_error", "reason", "horizon", "turn", "players", "rollouts", "seed", "method",
                                  "objective"}
    assert set(answer["buy"]["passing"]) == {"hand_size", "lay_down_probability", "go_out_probability",
                                             "expected_points", "opponent_points", "relative_points"}
    assert answer["buy"]["horizon"] is None and answer["buy"]["players"] == 4
    assert answer["buy"]["objective"] == "against the table"
    for option in (answer["buy"]["passing"], answer["buy"]["buying"]):
        assert option["relative_points"] == pytest.approx(option["expected_points"] - option["opponent_points"],
                                                          abs=0.011)


# ---- the rules of buying -------------------------------------------------------------------------------


def test_buying_where_the_rules_forbid_it_is_refused() -> None:
    with pytest.raises(AdviceError, match="no buying in round 1"):
        advise("3C 3D 3H 4C 4D", "eveleigh", 1, buy="4H")
    with pytest.raises(AdviceError, match="allows 2 buys in round 2 and you have used 2"):
        advise(ONE_AWAY, "shanghai", 2, buy="9H", buys_used=2)
    with pytest.raises(AdviceError, match="twice in succession"):
        advise(ONE_AWAY, "pagat", 2, players=4, buy="9H", bought_last=True)
    with pytest.raises(AdviceError, match="turn"):
        advise(ONE_AWAY, "progressive", 2, buy="9H", turn=0)
    assert advise(ONE_AWAY, "progressive", 2, buy="9H", bought_last=True, rollouts=4).buy is not None


# ---- the verdict's thresholds ---------------------------------------------------------------------------
#
# docs/advice.md: BUY when buying's points against the table (the player's expected points less
# the others' expected mean) are lower than passing's by more than the margin, PASS when higher by
# more than the margin, else a close call; the margin is 3 points or 10% of the size of passing's
# points against the table, whichever is larger. The expected points are set by hand (the exact
# path's enumeration replaced), so only the thresholds are under test: first with the others
# holding nothing (the points against the table are the player's own), then with the others'.


@pytest.mark.parametrize(("passing", "buying", "margin", "verdict"), [
    # margin 3 points (passing 20: 10% is 2)
    (20.0, 16.9, 3.0, Verdict.BUY),
    (20.0, 17.0, 3.0, Verdict.CLOSE_CALL),  # exactly the margin: not more than it
    (20.0, 17.1, 3.0, Verdict.CLOSE_CALL),
    (20.0, 20.0, 3.0, Verdict.CLOSE_CALL),
    (20.0, 22.9, 3.0, Verdict.CLOSE_CALL),
    (20.0, 23.0, 3.0, Verdict.CLOSE_CALL),
    (20.0, 23.1, 3.0, Verdict.PASS),
    (0.0, 2.5, 3.0, Verdict.CLOSE_CALL),  # passing holds nothing: still 3 points
    (0.0, 3.5, 3.0, Verdict.PASS),
    # margin 10% of passing (passing 50: 5 points)
    (50.0, 44.5, 5.0, Verdict.BUY),
    (50.0, 45.0, 5.0, Verdict.CLOSE_CALL),
    (50.0, 45.5, 5.0, Verdict.CLOSE_CALL),  # would be BUY with a 3-point margin
    (50.0, 54.5, 5.0, Verdict.CLOSE_CALL),  # would be PASS with a 3-point margin
    (50.0, 55.0, 5.0, Verdict.CLOSE_CALL),
    (50.0, 55.5, 5.0, Verdict.PASS),
    # the two margins meet at passing 30
    (30.0, 26.5, 3.0, Verdict.BUY),
    (30.0, 33.5, 3.0, Verdict.PASS),
])
def test_verdict_thresholds(monkeypatch: pytest.MonkeyPatch, passing: float, buying: float, margin: float,
                            verdict: Verdict) -> None:
    advice = _with_figures(monkeypatch, (passing, 0.0), (buying, 0.0))
    assert advice.passing.expected_points == passing and advice.buying.expected_points == buying
    assert advice.difference == pytest.approx(buying - passing)
    assert advice.margin == pytest.approx(margin)
    assert advice.verdict is verdict, (advice.difference, advice.margin)


@pytest.mark.parametrize(("passing", "buying", "margin", "verdict"), [
    # (own points, others' mean points) of each option
    ((0.0, 50.0), (2.0, 40.0), 5.0, Verdict.PASS),  # -50 against -38: 12 worse, margin 10% of 50
    ((0.0, 50.0), (0.0, 45.5), 5.0, Verdict.CLOSE_CALL),  # 4.5 worse: within 5 points
    ((0.0, 50.0), (0.0, 44.5), 5.0, Verdict.PASS),
    ((20.0, 40.0), (10.0, 40.0), 3.0, Verdict.BUY),  # -20 against -30: the 3-point margin
    ((20.0, 40.0), (18.0, 40.0), 3.0, Verdict.CLOSE_CALL),
    ((20.0, 40.0), (19.0, 44.0), 3.0, Verdict.BUY),  # fewer own points and more for the others
    ((60.0, 20.0), (55.0, 20.0), 4.0, Verdict.BUY),  # +40 against +35: margin 10% of 40
    ((60.0, 20.0), (56.5, 20.0), 4.0, Verdict.CLOSE_CALL),
])
def test_verdict_thresholds_against_the_table(monkeypatch: pytest.MonkeyPatch, passing: tuple[float, float],
                                              buying: tuple[float, float], margin: float, verdict: Verdict) -> None:
    advice = _with_figures(monkeypatch, passing, buying)
    assert (advice.passing.expected_points, advice.passing.opponent_points) == passing
    assert (advice.buying.expected_points, advice.buying.opponent_points) == buying
    assert advice.difference == pytest.approx((buying[0] - buying[1]) - (passing[0] - passing[1]))
    assert advice.margin == pytest.approx(margin)
    assert advice.verdict is verdict, (advice.difference, advice.margin)
    # On the player's own points alone, the old verdict's rule, whatever the others hold.
    own = _with_figures(monkeypatch, passing, buying, BuyObjective.OWN_POINTS)
    assert own.difference == pytest.approx(buying[0] - passing[0])
    assert own.margin == pytest.approx(max(3.0, 0.1 * passing[0]))


def _with_figures(monkeypatch: pytest.MonkeyPatch, passing: tuple[float, float], buying: tuple[float, float],
                  objective: BuyObjective = BuyObjective.AGAINST_TABLE) -> BuyAdvice:
    """The verdict on the exact path with each option's (own points, others' mean points) set by hand."""
    calls: list[int] = []

    def exact(rest: object, state: object, stock: object, blind: int) -> tuple[float, float, float, float]:
        calls.append(blind)
        own, others = passing if len(calls) == 1 else buying
        return (0.5, 0.25, own, others)

    monkeypatch.setattr(buy_module, "_exact", exact)
    advice = advise(EVELEIGH_9, "eveleigh", 9, players=4, buy="KS", horizon=1, buy_objective=objective).buy
    assert advice is not None and advice.method == "exact" and len(calls) == 2
    return advice


# ---- the verdict pinned ------------------------------------------------------------------------------

# Seeded verdicts on every preset that buys, recorded with the code of main before the buy verdict
# was made faster: speed-ups must not change a figure, the reason or the simulated play
# behind them. A short horizon and few rollouts keep them cheap; the first three cases have the
# default settings, one is the exact enumeration and five are go-out rounds (ill-buy-it 8, pagat 7,
# shanghai 7, kolsov 10) or the never-discard-to-go-out rules (shanghai-powe). The shanghai-powe
# round 8 case was recorded again on 2026-11-24, when the one-wild presets' runs came to be
# counted per window (other ties in simulated play): the same verdict, a close call (difference
# 4.75 -> 7.75 against a margin of 8.1 -> 7.75). With CP-SAT's new settings (no SAT inprocessing
# or CG cuts) the pagat round 7, shanghai-powe round 2 and kolsov round 2 cases were recorded
# again, each the same verdict: differences 15.05 -> 14.9, 7.0 -> 5.5 and 14.75 -> 14.5. When
# a player one card away stopped buying in a go-out round, and those rounds' going-out chances
# were measured again, ill-buy-it round 8 was recorded again: the same close call, passing's and
# buying's expected points 126.0 and 136.0 -> 125.997 and 135.997. When the same-suit rule between
# runs came to be taken up lazily (SolverOptions.same_suit_rule_lazily: the same optima, other ties
# in simulated play), progressive round 7 and pagat round 7 were recorded again, each the same
# verdict (pass): differences 18.06 -> 10.22 (margin 5.77 -> 5.82) and 14.9 -> 15.05.
# All recorded again when the verdict came to compare the points against the table (the player's
# points less the other players' mean) and the going-out table was measured again with the points
# a player still in holds: 15 verdicts the same; 6 changed, each by its margin (10% of the size of
# passing's points against the table, not of its own points) and none by its difference: in the
# horizon-3 cases of ill-buy-it 8, may-i 7, shanghai-powe 8 and eveleigh 12 nobody goes out within
# the horizon, so the others hold the same either way, the difference is unchanged and the margin
# falls to 3 (close call -> pass: 10.0 against 12.6 -> 3.0, 5.3 against 10.46 -> 3.0, 7.75 against
# 7.75 -> 4.23, 5.52 against 9.87 -> 3.0); in pagat 2 and shanghai-powe 2 the others hold far more
# than the player, and the margin grew (pass -> close call: 3.25 against 3.0 -> 4.35, 5.5 against
# 3.0 -> 5.93). All but four recorded again when the simulated player (every seat's model of
# play) came to keep its near-melds, re-plan for a meld and buy what its plan misses: 17 moved,
# 15 keeping their verdict (e.g. contract 2 QS pass 11.64 -> 5.68, ill-buy-it 2 AH buy -22.1 ->
# -17.19, ill-buy-it 8 6D pass 10.0 -> 22.5), two changing it: progressive 7 8H pass -> close
# call (11.68 -> 1.31 against a margin of 3.0 -> 4.26) and may-i 7 6D pass -> close call (5.3
# -> 2.9 against 3.0). The horizon-1 eveleigh 9, pagat 2, shanghai-powe 2 and kolsov 2 cases did
# not move. All but kolsov 10 recorded again with generator puzzles-8 (every seat sees every
# seat's melds and lays off on any, Eveleigh goes out without a discard, the going-out table
# measured again under those rules): one verdict changed, progressive 7 8H close call -> pass
# (1.31 -> 3.24); the others kept theirs with other figures (contract 2 QS pass 5.68 -> 5.55,
# ill-buy-it 2 AH buy -17.19 -> -15.8, ill-buy-it 8 6D pass 22.5 -> 22.43, may-i 7 6D close call 2.9).
# Progressive 7 8H and contract 2 QS once more when a player going out by discarding stopped
# taking a card off a meld that left two runs of a suit touching (the rollouts, unlike the
# table, never checked that play): pass 3.24 -> 3.53, pass 5.55 -> 5.6. With generator
# puzzles-11 (the simulated player buys for a set in contracts of two sets or more, and a hand
# out of reach by its size buys any card; the going-out table measured again) the three cases of
# such rounds were recorded again: eveleigh 9 2H buy -85.46 -> -83.14 (horizon 1) and -12.22 ->
# -16.45 (horizon 3), and kolsov 10 6C pass -> buy (27.5 -> -8.12), the advice's answer since
# puzzles-10 (its simulated player, too, now buys later offers in either option). With generator
# puzzles-12 (under shanghai-powe the simulated player discards a last card that fits nowhere; the
# going-out table measured again) shanghai-powe 2 5D was recorded again: pass, 5.5 against a
# margin of 4.55 -> 4.63 (the others' chances of going out moved); shanghai-powe 8 did not move.
PINNED_VERDICTS = [
    ("progressive", 2, "7H 8H 10H 5C 5D 5S KC", "9H", {}, "04bdc2878e0995cb"),
    ("progressive", 7, "7H 3H 4C 8C 4C 3H 3C 9C 4H 6H 6C 7H", "8H", {}, "147d10d6b31b407c"),
    ("contract", 2, "KC QC JD QD 5C 9D 5H 3C AD JH", "QS", {}, "bdb7fc7927047a64"),
    ("eveleigh", 9, "2D 4H JK 7H 5H 2H 6D 4H 7D JK JK", "2H", {"horizon": 1}, "ea39f003d53efbbd"),
    ("progressive", 6, "4C 7D 7C 3D 3D AC 7D 5C 6C 5D 2D", "AD", {"horizon": 3, "rollouts": 20}, "b6bcc7fc46119616"),
    ("ill-buy-it", 2, "AS AS 5S JK 3H 4S 4S", "AH", {"horizon": 3, "rollouts": 20}, "e37b021c1419cbd6"),
    ("ill-buy-it", 7, "8C 3D 4C 4D 7D JK 7C 4D 5D 2D 5C 6D", "2C", {"horizon": 3, "rollouts": 20}, "97127562fd0436d8"),
    ("ill-buy-it", 8, "4H 3D 9H JK 9D JK 8D 7D 8H JK 4H 4D 7H", "6D", {"horizon": 3, "rollouts": 20}, "58c7b908093a034f"),
    ("contract", 2, "10C 6D 6C 7D 10D 10C JD 5C JD 9D", "JK", {"horizon": 3, "rollouts": 20}, "260edd163b01d8c8"),
    ("pagat", 2, "JK 10C 6D 6C 7D 10D 10C JK 5C JD", "8D", {"horizon": 3, "rollouts": 20}, "5f820f9950a27ee0"),
    ("pagat", 7, "4S 10S 9S JK 7S 7D 5S 4S 7S 8S 9S JK", "6D", {"horizon": 3, "rollouts": 20}, "28ad97e17cc7d88d"),
    ("may-i", 2, "8C AH 9S 9H 5D JD 9H AC 5S KC", "KD", {"horizon": 3, "rollouts": 20}, "01142af9b615eb0d"),
    ("may-i", 7, "8S 9S 7S 7D 5S 4S 7S 8S 10S JK 10D 4S", "6D", {"horizon": 3, "rollouts": 20}, "7ff54c7e49e96376"),
    ("shanghai", 2, "8C AH 9S 9H 5D JD 9H AC 5S KC KD", "JC", {"horizon": 3, "rollouts": 20}, "d6a33e43a28745b1"),
    ("shanghai", 7, "9C 4C 4H 10H 9H JK 7H 7C 5H 4H 7H", "8H", {"horizon": 3, "rollouts": 20}, "aa6ca25e814291f4"),
    ("shanghai-powe", 2, "7C 7D 10D 10C 6D 5C JK JD JK 9D", "5D", {"horizon": 3, "rollouts": 20}, "3bc8939a23ca3a22"),
    ("shanghai-powe", 8, "4D 6D 6H 3D 4H 7H 4H 8H 7H 8H", "3H", {"horizon": 3, "rollouts": 20}, "1294414df266ec6c"),
    ("kolsov", 2, "7H 7S 10S 10H 6S 5H JK JS JK 9S 5S", "6H", {"horizon": 3, "rollouts": 20}, "24526a9ef1e79995"),
    ("kolsov", 10, "5S 7S 4S 8S 3S 4C 6S 5S 8C 2S 7S", "6C", {"horizon": 2, "rollouts": 8}, "88fc30cbc65eaf53"),
    ("eveleigh", 9, "2D 4H JK 7H 5H 2H 6D 4H 7D JK JK", "2H", {"horizon": 3, "rollouts": 8}, "211fdcf20e6074ee"),
    ("eveleigh", 12, "9D 4H 9H 6H JK 8H 6D 6H JK 5H 3D", "7D", {"horizon": 3, "rollouts": 20}, "73fc896cbe3a61f8"),
]


def verdict_digest(advice: BuyAdvice) -> str:
    """``to_dict`` (with the reason) and the unrounded figures, hashed."""
    unrounded = {"difference": repr(advice.difference), "std_error": repr(advice.std_error),
                 "margin": repr(advice.margin), "passing": repr(advice.passing), "buying": repr(advice.buying)}
    return hashlib.sha256(json.dumps([advice.to_dict(), unrounded], sort_keys=True).encode()).hexdigest()[:16]


@pytest.mark.parametrize(("rules", "round_number", "hand", "offered", "options", "digest"), PINNED_VERDICTS,
                         ids=[f"{case[0]}-{case[1]}-{i}" for i, case in enumerate(PINNED_VERDICTS)])
def test_seeded_verdicts_are_pinned(rules: str, round_number: int, hand: str, offered: str,
                                    options: dict[str, int], digest: str) -> None:
    advice = buy(hand, offered, rules, round_number, seed=5, **options)
    assert advice.finished
    assert verdict_digest(advice) == digest, advice.to_dict()
