"""Solver answers for one rule set, round and deck, each hand (as a multiset) solved once: what
the advice, the turn and the buy verdict ask of the solver, memoised within one question."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor

from analyzer import solver
from analyzer.cards import ALL_CARD_KINDS, Card, sorted_cards
from analyzer.hand import deck_copies
from analyzer.result import LayDown
from analyzer.rules import DeckRule, Rules

SOLVER_THREADS = 2  # several hands' outs are worked out two at a time

OutsFinder = Callable[[tuple[Card, ...], Rules, int, DeckRule, float], tuple[LayDown, frozenset[Card]]]


def outs_by_resolving(cards: tuple[Card, ...], rules: Rules, round_number: int, deck: DeckRule,
                       time_limit: float) -> tuple[LayDown, frozenset[Card]]:
    """The naive way to find outs: solve the hand, then the hand plus each card kind the deck
    still has a copy of (53 solves). Kept as the benchmark's baseline and a fallback."""
    lay_down = solver.solve_lay_down(cards, rules, round_number, deck, time_limit)
    if not lay_down.cards_away:  # 0: nothing to wish for; None: no card would do
        return lay_down, frozenset()
    held = Counter(cards)
    outs = set()
    for card in ALL_CARD_KINDS:
        if held[card] >= deck_copies(card, deck):
            continue
        closer = solver.solve_lay_down(cards + (card,), rules, round_number, deck, time_limit)
        if closer.cards_away is not None and closer.cards_away < lay_down.cards_away:
            outs.add(card)
    return lay_down, frozenset(outs)


def outs_finder() -> OutsFinder:
    """The solver's exact ``find_outs`` when it has one, else the naive re-solving."""
    finder: OutsFinder = getattr(solver, "find_outs", outs_by_resolving)
    return finder


class RoundSolver:
    """Solver answers for one rule set, round and deck, each hand (as a multiset) solved once."""

    def __init__(self, rules: Rules, round_number: int, deck: DeckRule, time_limit: float,
                 find_outs: OutsFinder | None = None) -> None:
        self.rules, self.round_number, self.deck, self.time_limit = rules, round_number, deck, time_limit
        self.find_outs = find_outs or outs_finder()
        self._lay_downs: dict[tuple[Card, ...], LayDown] = {}
        self._outs: dict[tuple[Card, ...], frozenset[Card]] = {}

    def lay_down(self, cards: Iterable[Card]) -> LayDown:
        key = sorted_cards(cards)
        if key not in self._lay_downs:
            self._lay_downs[key] = solver.solve_lay_down(key, self.rules, self.round_number, self.deck,
                                                         self.time_limit)
        return self._lay_downs[key]

    def outs(self, cards: Iterable[Card]) -> tuple[LayDown, frozenset[Card]]:
        key = sorted_cards(cards)
        if key not in self._outs:
            lay_down, outs = self.find_outs(key, self.rules, self.round_number, self.deck, self.time_limit)
            self._lay_downs.setdefault(key, lay_down)
            self._outs[key] = outs
        return self._lay_downs[key], self._outs[key]

    def prefetch_outs(self, hands: Iterable[Iterable[Card]]) -> None:
        """Work out several hands' outs at once, on two threads: CP-SAT lets go of the
        interpreter while it searches, so two solves run side by side (the machines here have
        two cores; measured 1.9 times faster on the discard table)."""
        todo = list(dict.fromkeys(sorted_cards(h) for h in hands if sorted_cards(h) not in self._outs))
        with ThreadPoolExecutor(max_workers=SOLVER_THREADS) as pool:
            for key, (lay_down, outs) in zip(todo, pool.map(
                    lambda key: self.find_outs(key, self.rules, self.round_number, self.deck, self.time_limit), todo)):
                self._lay_downs.setdefault(key, lay_down)
                self._outs[key] = outs

    def points(self, cards: Iterable[Card]) -> int:
        return sum(self.rules.points_of(card) for card in cards)

