"""The same-suit rule between runs taken up lazily (``translate.SAME_SUIT_RULE_LAZILY``): the
lay-down model is first solved without the rule, and again with it when the runs it lays break
it. Hand by hand the answer is as good as the whole model's (the same cards away and points
left), and every arrangement keeps the rule, checked card by card by ``analyzer.validate``,
which shares no code with the solver.

The hands hold a long stretch of one suit, so that the relaxed model's runs often touch,
overlap or share a suit, and the test asserts that the second solve happened (a check that let every first answer
through would leave arrangements the validator rejects)."""

from __future__ import annotations

import dataclasses
import random

import pytest

from analyzer.cards import ALL_NATURALS, JOKER, Suit
from analyzer.rules import Rules, SameSuitRuns, preset
from analyzer.solver import model, solve_lay_down, translate
from analyzer.validate import validate_lay_down


def _house(base: str, policy: SameSuitRuns) -> Rules:
    return dataclasses.replace(preset(base), name=f"{base}-{policy.value}", same_suit_runs=policy)


# (rules, round): each same-suit rule, on exact contracts (windows) and a minimum one, with two
# or three runs in the contract.
CASES = [
    (preset("progressive"), 3),  # no touching, two runs of four
    (preset("progressive"), 7),  # three runs
    (preset("shanghai-powe"), 3),  # distinct suits, per-meld wild limits
    (_house("progressive", SameSuitRuns.GAP), 6),
    (_house("progressive", SameSuitRuns.GAP_2), 3),
    (_house("may-i", SameSuitRuns.NO_TOUCH), 3),  # a minimum contract: runs of any length
]
HANDS = 14


def _answers(rules: Rules, round_number: int, lazily: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[list[tuple[object, ...]], int]:
    """Each hand's answer, and how many models were built with the rule after one without it."""
    monkeypatch.setattr(translate, "SAME_SUIT_RULE_LAZILY", lazily)
    built_with_rule_after_relaxed = 0
    last_relaxed = False
    real_build = translate.build_model

    def counting_build(problem: model.Problem, strict_deck: bool, all_ranks: bool = False,
                       same_suit_rule: bool = True) -> model.Model:
        nonlocal built_with_rule_after_relaxed, last_relaxed
        if same_suit_rule and last_relaxed:
            built_with_rule_after_relaxed += 1
        last_relaxed = not same_suit_rule
        return real_build(problem, strict_deck, all_ranks, same_suit_rule)

    monkeypatch.setattr(translate, "build_model", counting_build)
    deck = rules.deck_for(None)
    rng = random.Random(f"{rules.name}-{round_number}")
    answers = []
    for _ in range(HANDS):
        # A long stretch of one suit, where two runs would touch or overlap, and more cards of
        # it and of one other suit.
        suits = rng.sample(list(Suit), 2)
        first = rng.randint(1, 5)
        stretch = [c for c in ALL_NATURALS if c.suit == suits[0] and first <= int(c.rank) < first + rng.randint(7, 9)]
        pool = [c for c in ALL_NATURALS if c.suit in suits] * (deck.decks - 1) + [JOKER] * deck.jokers
        size = rules.round(round_number).deal + rng.randint(1, 4)
        hand = tuple(stretch[:size] + rng.sample(pool, max(0, size - len(stretch))))
        laid = solve_lay_down(hand, rules, round_number, deck, 10.0)
        melds = laid.melds if laid.can_lay_down else laid.with_missing
        kept = laid.leftover if laid.can_lay_down else laid.kept_with_missing()
        assert validate_lay_down(hand, rules, round_number, melds, kept, laid.missing) == [], (hand, melds)
        answers.append((hand, laid.can_lay_down, laid.cards_away, laid.leftover_points, laid.proven_optimal))
    return answers, built_with_rule_after_relaxed


@pytest.mark.parametrize(("rules", "round_number"), CASES, ids=[f"{r.name}-round{n}" for r, n in CASES])
def test_lazily_or_at_once_the_same_best_answers(rules: Rules, round_number: int,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    at_once, _ = _answers(rules, round_number, False, monkeypatch)
    lazily, second_solves = _answers(rules, round_number, True, monkeypatch)
    assert all(proven for *_, proven in at_once + lazily)
    assert lazily == at_once
    # The rule bound on some hands: their first answer broke it and the whole model was solved.
    assert second_solves >= 1
    # Real answers: hands a few cards from their contract, each its own distance.
    assert len({away for _, _, away, _, _ in lazily}) >= 2
