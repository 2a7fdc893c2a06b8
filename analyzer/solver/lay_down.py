"""The best lay-down of a hand, or how far it is from one: the solver's main entry point."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable

from analyzer.cards import Card, sorted_cards
from analyzer.melds import card_at
from analyzer.result import LayDown, PlacedMeld
from analyzer.rules import DeckRule, MeldKind, Rules
from analyzer.solver.model import (
    DEFAULT_OPTIONS,
    Model,
    Problem,
    RunShape,
    SolverOptions,
    make_problem,
    runs_may_share_a_contract,
)
from analyzer.solver.translate import (
    DeckTooSmall,
    NoLayDown,
    run_position,
    run_suit,
    solve,
)

# ---- the public entry point --------------------------------------------------------------------


def solve_lay_down(hand: tuple[Card, ...], rules: Rules, round_number: int, deck: DeckRule,
                   time_limit: float, *, before_draw: bool = False, meld_at_most: int | None = None,
                   seen: Iterable[Card] = (), options: SolverOptions = DEFAULT_OPTIONS) -> LayDown:
    """Best lay-down, or cards away with a witness, for an already checked hand.

    In a go-out round the hand is counted in draws (docs/lay-down.md): the melds hold as many
    cards as the hand (after the draw) or one more (``before_draw``), some of them missing
    cards, which are the draws; the hand's cards they leave out are let go (discarded on the
    way). Elsewhere ``before_draw`` changes nothing. ``meld_at_most``: the melds may hold at most this many of the hand's cards
    (a player who may not go out by discarding keeps two cards, one of them to discard).
    ``seen``: cards out of reach (seen on the table): missing cards are only copies beyond them.
    ``options``: how the solver goes about it (``SolverOptions``), the answer the same."""
    return best_lay_down(make_problem(hand, rules, round_number, deck, before_draw, meld_at_most, seen, options),
                         time_limit)[0]


def best_lay_down(problem: Problem, time_limit: float) -> tuple[LayDown, Model | None]:
    """The lay-down and the model that gave it (one without the same-suit rule when its answer
    kept the rule: ``translate.solve``)."""
    rules, round_number = problem.rules, problem.round_number
    points = problem.hand_points
    total_points = sum(map(points.__getitem__, problem.hand))
    lay_down = functools.partial(LayDown, rules=rules.name, round=round_number, contract=problem.contract,
                                 go_out=problem.go_out, hand=problem.hand)
    try:
        try:
            solution, built = solve(problem, time_limit)
        except DeckTooSmall:
            solution, built = solve(problem, time_limit, strict_deck=True)
    except NoLayDown as none:
        return lay_down(can_lay_down=False, melds=(), leftover=problem.hand,
                        leftover_points=total_points, cards_away=None, missing=(), with_missing=(),
                        proven_optimal=none.proven), None
    kept = Counter(problem.counts)  # the cards no meld takes: the hand's and the missing ones ...
    kept.update(solution.missing)
    for meld in solution.melds:
        for card in meld.cards:
            kept[card] -= 1
    kept = +kept  # ... less those the melds hold
    ordered = tuple(sorted(_tidy_runs(solution.melds, kept, problem), key=_meld_order))
    if solution.missing:
        return lay_down(can_lay_down=False, melds=(), leftover=problem.hand,
                        leftover_points=total_points, cards_away=len(solution.missing),
                        missing=solution.missing, with_missing=ordered,
                        proven_optimal=solution.proven_optimal), built
    leftover = sorted_cards(kept.elements())  # sliding wild cards along a run changes no card
    # No missing cards here: what is left is the hand's.
    return lay_down(can_lay_down=True, melds=ordered, leftover=leftover,
                    leftover_points=sum(map(points.__getitem__, leftover)), cards_away=0,
                    missing=(), with_missing=(), proven_optimal=solution.proven_optimal), built


def _tidy_runs(melds: tuple[PlacedMeld, ...], kept: Counter[Card], problem: Problem) -> list[PlacedMeld]:
    """Slide a run's wild cards along it so that none stands for a card the player keeps in hand
    (``Joker=4♥ 5♥ 6♥ 7♥`` while holding the 4♥ reads as a mistake; ``5♥ 6♥ 7♥ Joker=8♥`` says
    the same). The cards and the leftover stay as they are; the run only moves to another
    window holding the same naturals, if the same-suit rule allows it."""
    tidy = list(melds)
    for index, meld in enumerate(melds):
        if meld.kind != MeldKind.RUN:
            continue

        def held(run: PlacedMeld) -> int:
            return sum(1 for card, meaning in zip(run.cards, run.stands_for) if card != meaning and kept[meaning])

        if not held(meld):
            continue
        suit = run_suit(meld)
        positions = [run_position(meld, i) for i in range(len(meld.cards))]
        naturals = {p: card for p, card, meaning in zip(positions, meld.cards, meld.stands_for) if card == meaning}
        wilds = [card for card, meaning in zip(meld.cards, meld.stands_for) if card != meaning]
        others: tuple[RunShape, ...] = tuple((run_suit(m), run_position(m, 0), len(m.cards), ()) for j, m in enumerate(tidy)
                       if j != index and m.kind == MeldKind.RUN)
        best = meld
        for first in problem.positions:
            last = first + len(positions) - 1
            if last not in problem.positions or not all(first <= p <= last for p in naturals):
                continue
            if not runs_may_share_a_contract(problem.rules.same_suit_runs, (suit, first, len(positions)), others):
                continue
            fill = iter(wilds)
            cards = tuple(naturals[p] if p in naturals else next(fill) for p in range(first, last + 1))
            run = PlacedMeld(MeldKind.RUN, cards, tuple(card_at(p, suit) for p in range(first, last + 1)))
            if held(run) < held(best):
                best = run
        tidy[index] = best
    return tidy


_KIND_ORDER = {MeldKind.SET: 0, MeldKind.PAIR: 1, MeldKind.RUN: 2}  # as the contract reads


def _meld_order(meld: PlacedMeld) -> tuple[int, tuple[tuple[int, int], ...]]:
    """Sets before runs, as the contract reads; then by the cards they stand for."""
    return _KIND_ORDER[meld.kind], tuple(map(Card.sort_key, meld.stands_for))
