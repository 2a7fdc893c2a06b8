"""The same-suit rule between runs taken up lazily (``SolverOptions.same_suit_rule_lazily``): the
lay-down model is first solved without the rule, and again with it when the runs it lays break
it. Hand by hand the answer is as good as the whole model's (the same cards away and points
left), and every arrangement keeps the rule, checked card by card by ``analyzer.validate``,
which shares no code with the solver.

Half the hands hold a long stretch of one suit, where the relaxed model's runs often touch,
overlap or share a suit; the others are two suits at random, where they seldom do. The test
asserts that both happened: some first answers were kept and some solved again (a check that
let every first answer through would leave arrangements the validator rejects; one that let
none through would never keep a first answer). The outs keep asking the whole model."""

from __future__ import annotations

import dataclasses
import random

import pytest

from analyzer.cards import ALL_NATURALS, JOKER, Suit, parse_cards
from analyzer.round_solver import RoundSolver
from analyzer.rules import Rules, SameSuitRuns, preset
from analyzer.solver import model, solve_lay_down, translate
from analyzer.solver.model import SolverOptions, make_problem
from analyzer.validate import validate_lay_down
from tests.analyzer.test_advice import reference_outs


def _house(base: str, policy: SameSuitRuns) -> Rules:
    return dataclasses.replace(preset(base), name=f"{base}-{policy.value}", same_suit_runs=policy)


# (rules, round): each same-suit rule, with two or three runs in the contract: on exact contracts
# (runs counted per window), under per-meld wild limits, and on a minimum contract.
CASES = [
    (preset("progressive"), 3),  # no touching, two runs of four
    (preset("progressive"), 7),  # three runs
    (preset("shanghai-powe"), 3),  # distinct suits, one wild card a meld
    (_house("progressive", SameSuitRuns.GAP), 6),
    (_house("progressive", SameSuitRuns.GAP_2), 3),
    (_house("may-i", SameSuitRuns.NO_TOUCH), 3),  # runs of any length
]
HANDS = 16


@dataclasses.dataclass
class Solves:
    relaxed: int = 0  # models built without the rule
    again: int = 0  # models built with it right after one without


def _counting(monkeypatch: pytest.MonkeyPatch) -> Solves:
    """Count the models ``translate.solve`` builds, with the rule and without it."""
    solves = Solves()
    real_build = translate.build_model
    previous_relaxed = False

    def build(problem: model.Problem, strict_deck: bool, all_ranks: bool = False,
              same_suit_rule: bool = True) -> model.Model:
        nonlocal previous_relaxed
        solves.relaxed += not same_suit_rule
        solves.again += same_suit_rule and previous_relaxed
        previous_relaxed = not same_suit_rule
        return real_build(problem, strict_deck, all_ranks, same_suit_rule)

    monkeypatch.setattr(translate, "build_model", build)
    return solves


def _answers(rules: Rules, round_number: int, lazily: bool,
             monkeypatch: pytest.MonkeyPatch) -> tuple[list[tuple[object, ...]], Solves]:
    options = SolverOptions(same_suit_rule_lazily=lazily)
    solves = _counting(monkeypatch)
    deck = rules.deck_for(None)
    rng = random.Random(f"{rules.name}-{round_number}")
    answers = []
    for number in range(HANDS):
        suits = rng.sample(list(Suit), 2)
        pool = [c for c in ALL_NATURALS if c.suit in suits] * deck.decks + [JOKER] * deck.jokers
        size = rules.round(round_number).deal + rng.randint(1, 4)
        stretch = []
        if number % 2:  # a long stretch of the first suit, then more of both
            first, length = rng.randint(1, 5), rng.randint(7, 9)
            stretch = [c for c in ALL_NATURALS
                       if c.suit == suits[0] and c.rank is not None and first <= c.rank < first + length]
            for card in stretch:
                pool.remove(card)
        hand = tuple(stretch[:size] + rng.sample(pool, max(0, size - len(stretch))))
        laid = solve_lay_down(hand, rules, round_number, deck, 10.0, options=options)
        melds = laid.melds if laid.can_lay_down else laid.with_missing
        kept = laid.leftover if laid.can_lay_down else laid.kept_with_missing()
        assert validate_lay_down(hand, rules, round_number, melds, kept, laid.missing) == [], (hand, melds)
        answers.append((hand, laid.can_lay_down, laid.cards_away, laid.leftover_points, laid.proven_optimal))
    return answers, solves


@pytest.mark.parametrize(("rules", "round_number"), CASES, ids=[f"{r.name}-round{n}" for r, n in CASES])
def test_lazily_or_at_once_the_same_best_answers(rules: Rules, round_number: int,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    at_once, _ = _answers(rules, round_number, False, monkeypatch)
    lazily, solves = _answers(rules, round_number, True, monkeypatch)
    assert all(proven for *_, proven in at_once + lazily)
    assert lazily == at_once
    # Some first answers kept the rule, and some broke it and the whole model was solved.
    assert solves.relaxed == HANDS
    assert 0 < solves.again < solves.relaxed
    # Real answers: hands a few cards from their contract, each its own distance.
    assert len({away for _, _, away, _, _ in lazily}) >= 2


def test_the_outs_ask_the_whole_model() -> None:
    # Two runs of four, two cards away: the lay-down comes from the model without the rule
    # (5♦-8♦ and 9♥-Q♥, the 10♥ and J♥ missing), but that model's other best arrangements
    # include touching diamond runs, whose gaps would make outs of cards that bring the hand no
    # closer under the rule (the 10♦, the A♦): the outs must come from the whole model.
    rules, round_number = preset("progressive"), 3
    hand = parse_cards("4D 5D 6D 7D 8D 9H QH 3D")
    deck = rules.deck_for(None)
    _, built = translate.solve(make_problem(hand, rules, round_number, deck, False), 10.0)
    assert not built.same_suit_rule  # the lay-down itself comes from the relaxed model
    lay_down, outs = RoundSolver(rules, round_number, deck, 10.0).outs(hand)
    assert lay_down.cards_away
    assert outs == reference_outs(hand, rules, round_number, deck, lay_down.cards_away)
