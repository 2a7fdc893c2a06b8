"""The CP-SAT model: the problem in plain data, the variables kept by meaning, and the
constraints (docs/lay-down.md says what a legal lay-down is)."""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar, cast

from ortools.sat.python import cp_model, cp_model_helper
from ortools.util.python.sorted_interval_list import Domain  # type: ignore[import-untyped]

from analyzer.cards import JOKER, Card, Rank, Suit, sorted_cards
from analyzer.hand import deck_copies
from analyzer.melds import DEUCE, HIGH_ACE, LOW_ACE, card_places, run_places
from analyzer.rules import ContractMode, DeckRule, MeldKind, MeldSpec, Rules, SameSuitRuns

SUITS = tuple(Suit)


@functools.lru_cache(maxsize=1024)
def _use_sites(card: Card, positions: tuple[int, ...], name: str) -> tuple[tuple[int, str], ...]:
    """The run positions ``card`` can take among ``positions`` (``run_places``) with the name
    of its use variable there (``run4.use[AC,14]``): the same for every hand, worked out once per
    card, ace rule and group (building every use's name anew was a tenth of a typical model's
    building, profiled with cProfile)."""
    return tuple((p, f"{name}.use[{card},{p}]") for p in card_places(card) if p in positions)


def may_be_natural(card: Card, rules: Rules) -> bool:
    """A card that can stand for itself as a natural: not wild, or a wild 2 unless 2s are
    always wild (then a 2 is a wild card wherever it goes)."""
    return not card.is_joker and not (rules.deuces_always_wild and rules.is_wild(card))


RunShape = tuple[Suit, int, int, tuple[tuple[int, Card], ...]]  # suit, first, size, naturals by position
Terms = dict[int, int]  # a linear expression flattened: its coefficients by variable index
# A linear expression as the model builds them: variables, sums of them, integers. (OR-Tools'
# ``LinearExprT`` also admits numpy integers, which its stubs cannot add to an expression.)
Expr = cp_model.LinearExpr | int


# ---- the problem, in plain data --------------------------------------------------------------


@dataclass(frozen=True)
class SolverOptions:
    """Choices in how the solver models and solves a problem that leave every answer the same
    (the tests compare each choice with its alternative); the defaults are the faster ones.

    ``tight_go_out``: go-out rounds get a tighter LP relaxation, rows and limits every lay-down
    already meets (``sets_hold_naturals_only_when_laid``, the run windows of ``_run_windows``),
    so the optimum is the same, found with far less branching (tests/analyzer/test_go_out_rows_keep_the_optimum.py).

    ``same_suit_rule_lazily``: the rule between runs of one suit is left out of the first model
    and taken up only when its answer breaks it (``translate.solve``;
    tests/analyzer/test_same_suit_rule_between_runs.py). docs/benchmarks.md has the figures of both."""

    tight_go_out: bool = True
    same_suit_rule_lazily: bool = True


DEFAULT_OPTIONS = SolverOptions()


@dataclass(frozen=True)
class Problem:
    """Everything the model needs, decided once from hand, rules and round."""

    hand: tuple[Card, ...]
    rules: Rules
    round_number: int
    deck: DeckRule
    contract: tuple[MeldSpec, ...]
    go_out: bool
    minimum: bool  # contract melds may be longer than their size
    counts: dict[Card, int]  # the hand as a multiset
    naturals: tuple[Card, ...]  # distinct cards that can stand for themselves (wild 2s too, unless always wild)
    wild_kinds: tuple[Card, ...]  # distinct wild cards in the hand (the joker, wild 2s)
    positions: tuple[int, ...]  # run positions that exist under the ace rule
    # Go-out rounds, counted in draws: the melds hold exactly this many cards, the hand's and
    # missing ones (the hand's size, one more before the draw). None in other rounds.
    target: int | None = None
    meld_at_most: int | None = None  # the melds hold at most this many of the hand's cards
    seen: dict[Card, int] = field(default_factory=dict)  # copies out of reach (seen elsewhere)
    options: SolverOptions = DEFAULT_OPTIONS

    @property
    def run_specs(self) -> list[MeldSpec]:
        return [spec for spec in self.contract if spec.kind == MeldKind.RUN]

    @property
    def set_groups(self) -> dict[MeldSpec, int]:
        """Set-like contract entries by (kind, size), with how many of each."""
        return dict(Counter(spec for spec in self.contract if spec.kind != MeldKind.RUN))

    @functools.cached_property
    def hand_points(self) -> dict[Card, int]:
        """Penalty points of each card the hand holds, worked out once: the objective and the
        lay-down's leftover ask about thirty times a hand, two Python calls each through
        ``Rules.points_of``."""
        return {card: self.rules.points_of(card) for card in self.counts}

    @property
    def runs_by_window(self) -> bool:
        """No per-meld wild limits: any gap of any run may take any wild card, so runs are
        counted per window with the hand's naturals per position (``RunWindows``) and their wild
        cards in one count. (A limit of one wild card a run counts them per window too, each
        window's wild cards apart: ``WindowWilds``.)"""
        return self.rules.max_wilds_per_meld is None and self.rules.wilds_may_outnumber_naturals

    @property
    def counted_by_window(self) -> bool:
        """Exact contracts without per-meld wild limits: runs are counted per window and sets per
        rank, and any gap may take any wild card. Otherwise every run gets its own slot."""
        rules = self.rules
        return (not self.minimum and rules.max_wilds_per_meld is None
                and rules.wilds_may_outnumber_naturals)

    def spare(self, card: Card) -> int:
        """Copies of ``card`` the deck holds beyond the hand's and the seen ones: what a missing
        card can be."""
        return max(0, deck_copies(card, self.deck) - self.counts.get(card, 0) - self.seen.get(card, 0))


def make_problem(hand: tuple[Card, ...], rules: Rules, round_number: int, deck: DeckRule,
                 before_draw: bool = False, meld_at_most: int | None = None,
                 seen: Iterable[Card] = (), options: SolverOptions = DEFAULT_OPTIONS) -> Problem:
    rule = rules.round(round_number)
    hand = sorted_cards(hand)
    counts = Counter(hand)
    distinct = tuple(counts)  # in the hand's order: a Counter keeps its keys as first counted
    return Problem(
        hand=hand,
        rules=rules,
        round_number=round_number,
        deck=deck,
        contract=rule.contract,
        go_out=rule.go_out,
        minimum=rule.go_out or rules.contract_mode == ContractMode.MINIMUM,
        counts=dict(counts),
        naturals=tuple(card for card in distinct if may_be_natural(card, rules)),
        wild_kinds=tuple(card for card in distinct if rules.is_wild(card)),
        positions=rules.run_positions(),
        target=len(hand) + (1 if before_draw else 0) if rule.go_out else None,
        meld_at_most=meld_at_most,
        seen=dict(Counter(seen)),
        options=options,
    )


# ---- variables, kept by meaning ------------------------------------------------------------


@dataclass
class RunSlot:
    spec: MeldSpec
    suit: dict[Suit, cp_model.IntVar]  # 1: the run is in this suit
    start: dict[int, cp_model.IntVar]  # 1: the run's first position is p
    end: dict[int, cp_model.IntVar]  # 1: the run's last position is p
    covers: dict[int, Expr]  # 1: position p is in the run (an expression)
    uses: dict[tuple[Card, int], cp_model.IntVar]  # 1: the run holds this natural at position p
    wilds: cp_model.IntVar  # the hand's wild cards in the run
    missing_jokers: cp_model.IntVar | None  # strict model: missing cards that must be jokers
    wild_at: dict[int, cp_model.IntVar] = field(default_factory=dict)  # strict: a wild at p

    def length(self) -> Expr:
        return sum(self.covers.values())

    def naturals_used(self) -> Expr:
        return sum(self.uses.values())

    def missing(self) -> Expr:
        """Gaps not filled by the hand's wild cards: missing naturals and missing jokers alike."""
        return self.length() - self.naturals_used() - self.wilds

    def missing_terms(self) -> tuple[Terms, int]:
        """``missing()`` flattened, and its constant."""
        return _flat(self.missing())


Window = tuple[Suit, int, int]  # a run's suit, first and last position


def one_wild_a_run(rules: Rules) -> bool:
    """Per-meld wild limits that allow every run at most one wild card (``max_wilds_per_meld``
    0 or 1, whatever ``wilds_may_outnumber_naturals`` says: a run has three places or more, so
    half of it is at least one). Such runs can be counted per window (``WindowWilds``; where the
    contract repeats a run, ``build_model``); other limits keep run slots."""
    return rules.max_wilds_per_meld is not None and rules.max_wilds_per_meld <= 1


@dataclass
class WindowWilds:
    """Runs counted per window under a limit of one wild card a run (``one_wild_a_run``): how
    many of the hand's wild cards the runs on each window take.
    Why (1) and (2) are exactly what it takes: docs/lay-down.md, "One wild card a run, counted
    per window"."""

    inside: dict[Window, cp_model.IntVar]  # wild cards on a window lying inside a held stretch
    outside: cp_model.IntVar | None  # wild cards on the other windows, together (None: no wilds)


@dataclass
class RunWindows:
    """Runs of one contract size, counted per window (suit, first and last position), with the
    hand's naturals counted per position: no slots, so no symmetric copies of one solution.
    Under a limit of one wild card a run, each window's wild cards are counted apart
    (``per_window``); otherwise any gap may take any wild card."""

    spec: MeldSpec
    how_many: int
    count: dict[Window, cp_model.IntVar]  # runs laid on this window
    present: dict[Window, cp_model.IntVar]  # 1: at least one run on this window
    uses: dict[tuple[Card, int], cp_model.IntVar]  # copies of a natural the runs hold at position p
    wilds: cp_model.IntVar  # the hand's wild cards in these runs
    exact: bool  # every window is the contract's size (``_window_layout``)
    per_window: WindowWilds | None = None  # one wild card a run: where the wild cards go
    # ``places()`` and its flattened terms, made once with the window head (``_WindowHead``).
    places_made: Expr = 0
    places_terms: Terms = field(default_factory=dict)

    def places(self) -> Expr:
        """Positions of all runs laid: each is a natural, a wild card or a gap. Exact sizes give
        a constant (which CP-SAT prefers); otherwise each window's length times its count."""
        return self.places_made

    def missing(self) -> Expr:
        return self.places() - _sum(list(self.uses.values())) - self.wilds

    def missing_terms(self) -> tuple[Terms, int]:
        """``missing()`` flattened, and its constant, read off the variables (flattening the
        expression costs more: test_model_identity compares the two)."""
        terms = dict(self.places_terms)
        _add_terms(terms, self.uses.values(), -1)
        _add_terms(terms, (self.wilds,), -1)
        return terms, self.spec.size * self.how_many if self.exact else 0


@dataclass
class SetGroup:
    spec: MeldSpec
    count: dict[Rank, cp_model.IntVar]  # how many sets of this size have rank r
    uses: dict[Card, cp_model.IntVar]  # how many of the hand's copies of a natural they hold
    wilds: dict[Rank, cp_model.IntVar]  # the hand's wild cards in the sets of rank r
    missing: dict[Rank, cp_model.IntVar]  # missing natural cards of rank r in them
    missing_jokers: dict[Rank, cp_model.IntVar]  # strict model: missing jokers in them
    pooled_wilds: cp_model.IntVar | None = None  # exact sizes, no wild limits: wilds for all ranks

    def wild_total(self) -> Expr:
        return self.pooled_wilds if self.pooled_wilds is not None else sum(self.wilds.values())

    def missing_total(self) -> Expr:
        if self.pooled_wilds is not None:
            uses = _sum(list(self.uses.values()))
            return self.spec.size * _sum(list(self.count.values())) - uses - self.pooled_wilds
        return sum(self.missing.values()) + sum(self.missing_jokers.values())

    def missing_terms(self) -> tuple[Terms, int]:
        """``missing_total()`` flattened, and its constant (as ``RunWindows.missing_terms``)."""
        if self.pooled_wilds is None:
            return _flat(self.missing_total())
        terms: Terms = {}
        _add_terms(terms, self.count.values(), self.spec.size)
        _add_terms(terms, self.uses.values(), -1)
        _add_terms(terms, (self.pooled_wilds,), -1)
        return terms, 0


@dataclass
class DeckCover:
    """Strict deck model for window-counted contracts: which missing cards fill the gaps."""

    in_runs: dict[Card, cp_model.IntVar]  # missing copies of a natural in runs
    in_sets: dict[Card, cp_model.IntVar]  # missing copies of a natural in sets
    jokers: Expr  # missing cards that are jokers (the other gaps)


@dataclass
class Model:
    model: cp_model.CpModel
    runs: list[RunSlot]
    windows: list[RunWindows]
    sets: list[SetGroup]
    wild_used: dict[Card, cp_model.IntVar]  # how many of each wild card melds use as a wild
    cover: DeckCover | None = None
    strict_deck: bool = False  # built with the deck's limits on missing cards
    same_suit_rule: bool = True  # built with the rule between runs of one suit (``build_model``)

    @functools.cached_property
    def missing_total(self) -> Expr:
        """The missing cards, as an expression (the outs and near_best bound it), made when first
        asked: a lay-down alone never asks."""
        return _missing_total(self.runs, self.windows, self.sets)


def _missing_total(runs: list[RunSlot], windows: list[RunWindows], sets: list[SetGroup]) -> Expr:
    # A run's missing jokers are among its gaps (``RunSlot.missing``), so they are not added
    # again; a set's are apart from its missing naturals (``SetGroup.missing_total``).
    return (sum(slot.missing() for slot in runs) + sum(group.missing() for group in windows)
            + sum(g.missing_total() for g in sets))


def _missing_terms(runs: list[RunSlot], windows: list[RunWindows], sets: list[SetGroup]) -> tuple[Terms, int]:
    """``_missing_total`` flattened, and its constant."""
    terms: Terms = {}
    constant = 0
    groups: list[RunSlot | RunWindows | SetGroup] = [*runs, *windows, *sets]
    for group in groups:
        group_terms, group_constant = group.missing_terms()  # a dict of its own, to keep or change
        if not terms:
            terms = group_terms  # the first group's, added to in place (a few hundred windows' counts)
        else:
            for index, coefficient in group_terms.items():
                terms[index] = terms.get(index, 0) + coefficient
        constant += group_constant
    return terms, constant


def _add_terms(terms: Terms, variables: Iterable[cp_model.IntVar], coefficient: int) -> None:
    for var in variables:
        index = var.index
        terms[index] = terms.get(index, 0) + coefficient


# ---- building the model ------------------------------------------------------------------------


def _sum(terms: list[cp_model.IntVar]) -> Expr:
    """``sum(terms)`` of variables made in one step (``LinearExpr.sum``) rather than one addition
    a term: the same terms in the same order, so the same proto wherever it goes, at about half
    the cost (test_model_identity checks both). An empty list stays the integer 0, as ``sum``
    gives it (a constraint on it alone is a constant one). Variables only: a list of integers
    would become a constant expression, where ``sum`` gives an integer."""
    return cp_model.LinearExpr.sum(terms) if terms else 0


_NO_LOWER, _NO_UPPER = -(2**63), 2**63 - 1  # the bounds ``model.add`` writes for a one-sided constraint


def _add_long_linear(model: cp_model.CpModel, indices: list[int], coefficients: list[int], lower: int,
                     upper: int) -> None:
    """``lower <= sum(coefficient * variable) <= upper`` (``_NO_LOWER`` and ``_NO_UPPER``: no
    bound), the variables given by index in increasing order with their coefficients (none 0),
    written into the proto as ``model.add`` writes it. For long sums: ``add`` flattens an
    expression at about half a microsecond a term (300 terms: 170 us), where writing the proto
    costs 20 us; under ten terms ``add`` is the quicker."""
    linear = model.proto.constraints.add().linear
    linear.vars.extend(indices)
    linear.coeffs.extend(coefficients)
    linear.domain.extend([lower, upper])


def _add_nothing_missing_below_zero(model: cp_model.CpModel, missing: tuple[Terms, int]) -> None:
    """``missing >= 0`` for a group's missing cards as its ``missing_terms`` give them (the places
    its melds have, less the cards and wild cards they hold), written as ``model.add`` writes it:
    the variables in index order, none with coefficient 0. The row can be hundreds of terms long
    (every window's count), which ``add`` would flatten term by term."""
    terms, constant = missing
    indices = sorted(index for index, coefficient in terms.items() if coefficient)
    _add_long_linear(model, indices, [terms[index] for index in indices], -constant, _NO_UPPER)


class _CpModel(cp_model.CpModel):
    """``CpModel`` without the camelCase aliases it attaches to every new instance: that costs
    half a millisecond a model, a fifth of a typical analysis (profiled with cProfile). Its
    variables are made as ``CpModel`` makes them, with one domain object shared per bounds
    (making a ``Domain`` was a fifth of making a variable, and a typical model makes a few
    dozen variables a hand)."""

    def __init__(self) -> None:
        cp_model_helper.CpBaseModel.__init__(self, None)
        self._proto = self.model_proto  # kept: reading the property costs a tenth of making a variable

    def new_int_var(self, lb: cp_model.IntegralT, ub: cp_model.IntegralT, name: str) -> cp_model.IntVar:
        return cp_model.IntVar(self._proto).with_name(name).with_domain(_domain(lb, ub))

    def new_bool_var(self, name: str) -> cp_model.IntVar:
        return cp_model.IntVar(self._proto).with_name(name).with_domain(_BOOLEAN)


@functools.lru_cache(maxsize=1024)
def _domain(lb: cp_model.IntegralT, ub: cp_model.IntegralT) -> Domain:
    """The domain [lb, ub], made once (a ``Domain`` is a value: a variable copies it)."""
    return Domain(lb, ub)


_BOOLEAN = Domain(0, 1)


def build_model(problem: Problem, strict_deck: bool, all_ranks: bool = False,
                same_suit_rule: bool = True) -> Model:
    """The model. ``strict_deck``: missing cards must exist in the deck. ``all_ranks``: offer
    sets of every rank, not only the hand's and a few stand-ins (needed to list outs).
    ``same_suit_rule=False`` leaves out the rule between runs of one suit (a relaxation:
    ``analyzer.solver.translate.solve`` checks its answer against the rule)."""
    model = _CpModel()
    rules = problem.rules
    same_suit = rules.same_suit_runs if same_suit_rule else SameSuitRuns.FREE
    by_window = problem.counted_by_window
    runs, heads_and_windows = _run_groups(model, problem, strict_deck, same_suit)
    windows = [group for _, group in heads_and_windows]
    sets = [_set_group(model, problem, spec, count, strict_deck and not by_window, all_ranks)
            for spec, count in problem.set_groups.items()]
    _between_melds(model, rules, runs, tuple(head for head, _ in heads_and_windows), sets, same_suit)
    wild_used, wilds_melded = _wild_cards_once(model, problem, runs, windows, sets)
    natural_uses = _naturals_held(model, problem, runs, windows, sets, wild_used)

    if tightened(problem):
        sets_hold_naturals_only_when_laid(model, problem, sets)

    cover = None
    if strict_deck and by_window:
        cover = _deck_cover(model, problem, windows, sets)
    elif strict_deck:
        _strict_deck_limits(model, problem, runs, sets)

    built = Model(model, runs, windows, sets, wild_used, cover, strict_deck, same_suit_rule)
    # The missing cards, as the objective counts them (flattened).
    missing_counted = _hand_melded_rows(model, problem, built, natural_uses, wilds_melded)
    if missing_counted is None:
        missing_counted = _missing_terms(runs, windows, sets)
    _set_objective(model, *_objective(problem, natural_uses, wild_used, missing_counted))
    return built


def _run_groups(model: cp_model.CpModel, problem: Problem, strict_deck: bool,
                same_suit: SameSuitRuns) -> tuple[list[RunSlot], list[tuple[_WindowHead, RunWindows]]]:
    """The contract's runs: a slot each, or counted per window (a head and its group a size).
    Runs are counted per window, except in the strict deck model (of a minimum contract, or
    of wild limits), which places wild cards position by position in run slots, and under
    per-meld wild limits unless they allow one wild card a run (``WindowWilds``) and the
    contract repeats a run: a lone run's slot has no symmetric copies, and it is the smaller
    model (docs/benchmarks.md, "Figures behind the solver's choices")."""
    repeats_a_run = len(set(problem.run_specs)) < len(problem.run_specs)
    windows_for_runs = problem.counted_by_window or (not strict_deck and (
        problem.runs_by_window or (one_wild_a_run(problem.rules) and repeats_a_run)))
    if not windows_for_runs:
        return [_run_slot(model, problem, spec, index, strict_deck)
                for index, spec in enumerate(problem.run_specs)], []
    return [], [_run_windows(model, problem, spec, how_many, same_suit)
                for spec, how_many in Counter(problem.run_specs).items()]


def _between_melds(model: cp_model.CpModel, rules: Rules, runs: list[RunSlot], heads: tuple[_WindowHead, ...],
                   sets: list[SetGroup], same_suit: SameSuitRuns) -> None:
    """The rules between melds: run slots of one contract entry in order, the same-suit rule
    between runs, and sets of distinct ranks where the rules ask for them."""
    # Runs of one contract entry are interchangeable: keep them in (suit, start) order.
    for first, second in itertools.pairwise(runs):
        if first.spec == second.spec:
            model.add(_run_key(first) <= _run_key(second))
    _same_suit_policy(model, runs, same_suit)
    _same_suit_policy_windows(model, heads, same_suit)
    if rules.distinct_set_ranks:
        for rank in Rank:
            model.add(sum(group.count[rank] for group in sets if rank in group.count) <= 1)


def _wild_cards_once(model: cp_model.CpModel, problem: Problem, runs: list[RunSlot], windows: list[RunWindows],
                     sets: list[SetGroup]) -> tuple[dict[Card, cp_model.IntVar], Expr]:
    """Wild cards: each one used at most once, as a wild or (a wild 2) as itself. The copies of
    each wild card used, and their sum: the wild cards the melds hold."""
    wild_used = {card: model.new_int_var(0, problem.counts[card], f"wild_used[{card}]")
                 for card in problem.wild_kinds}
    wilds_melded = sum(wild_used.values())
    model.add(wilds_melded == sum(slot.wilds for slot in runs)
              + sum(group.wilds for group in windows) + sum(g.wild_total() for g in sets))
    return wild_used, wilds_melded


def _naturals_held(model: cp_model.CpModel, problem: Problem, runs: list[RunSlot], windows: list[RunWindows],
                   sets: list[SetGroup], wild_used: dict[Card, cp_model.IntVar]) -> dict[Card, list[cp_model.IntVar]]:
    """Natural cards: no more copies than the hand holds. Each natural's use variables in the
    melds."""
    natural_uses: dict[Card, list[cp_model.IntVar]] = {card: [] for card in problem.naturals}
    for slot in runs:
        for (card, _), use in slot.uses.items():
            natural_uses[card].append(use)
    for group in windows:
        for (card, _), use in group.uses.items():
            natural_uses[card].append(use)
    for set_group in sets:
        for card, use in set_group.uses.items():
            natural_uses[card].append(use)
    # Each natural's copies used, in one sum with the wild card's own count for a wild 2: the
    # same row as its melded copies plus that count (add() writes a sum's variables in index
    # order), made with one sum a card instead of two and an addition.
    for card in problem.naturals:
        uses = natural_uses[card]
        model.add(_sum([*uses, wild_used[card]] if card in wild_used else uses) <= problem.counts[card])
    return natural_uses


def _hand_melded_rows(model: cp_model.CpModel, problem: Problem, built: Model,
                      natural_uses: dict[Card, list[cp_model.IntVar]], wilds_melded: Expr) -> tuple[Terms, int] | None:
    """The rows on how many of the hand's cards the melds hold, in a go-out round or under a
    limit (``meld_at_most``); in a go-out round the missing cards as the objective counts them
    (flattened), else None."""
    if problem.target is None and problem.meld_at_most is None:
        return None
    missing_counted = None
    # Each natural's melded copies summed apart, then together: the go-out count and the
    # limit take this expression.
    hand_melded = sum(_sum(uses) for uses in natural_uses.values()) + wilds_melded
    if problem.target is not None:
        # Go-out round: the melds hold every card of the hand the player ends with, the drawn
        # (missing) cards among them; the hand's cards they leave out are let go.
        model.add(hand_melded + built.missing_total == problem.target)
        # So the missing cards are the target less the hand's cards melded: counted so, the
        # objective weighs the hand's cards alone, not every run window's places, with the
        # same value for every lay-down. CP-SAT proves it sooner (docs/benchmarks.md).
        missing_counted = _flat(problem.target - hand_melded)
    if problem.meld_at_most is not None:
        model.add(hand_melded <= problem.meld_at_most)
    return missing_counted


def _flat(expression: Expr) -> tuple[Terms, int]:
    """``expression`` as OR-Tools flattens it (``FlatIntExpr``): its coefficients by variable
    index, and its constant."""
    if not isinstance(expression, cp_model.LinearExpr):
        return {}, int(expression)
    flat = cp_model_helper.FlatIntExpr(expression)
    return dict(zip([var.index for var in flat.vars], flat.coeffs)), flat.offset


def _set_objective(model: cp_model.CpModel, terms: Terms, offset: int) -> None:
    """Minimise ``sum(coefficient * variable) + offset``, written as ``model.minimize`` writes a
    flattened expression: the variables in index order, none with a coefficient of 0."""
    indices = sorted([index for index, coefficient in terms.items() if coefficient])
    model.clear_objective()
    objective = model.proto.objective
    objective.vars.extend(indices)
    objective.scaling_factor = 1.0
    objective.offset = offset
    objective.coeffs.extend([terms[index] for index in indices])


def _objective(problem: Problem, natural_uses: dict[Card, list[cp_model.IntVar]],
               wild_used: dict[Card, cp_model.IntVar], missing_total: tuple[Terms, int]) -> tuple[Terms, int]:
    """Lexicographic, in one number: fewest missing cards first (one outweighs all the rest).

    Then, in most rounds, the most penalty points melded (the fewest left in hand). In go-out
    rounds, where the melds' size is fixed and the hand's cards they leave out are let go: the
    most wild cards melded (a joker is worth keeping), then the fewest penalty points melded
    (the costliest cards let go), then the lowest ranks melded (of two cards worth the same,
    the higher one goes). Ties left (9♥ or 9♠) fall to the solver's fixed search: one worker,
    seed 0, the hand in card order, so the same hand always gets the same answer.

    Made as flattened terms (``Terms``): ``missing_total`` (the missing cards, flattened) and each
    melded copy (``natural_uses``, ``wild_used``) added by index. Flattening one expression of
    the whole objective gave the same terms (test_model_identity) at about three times the cost."""
    points = problem.hand_points  # every card here is the hand's
    missing, missing_offset = missing_total
    if problem.target is None:
        missing_weight = sum(map(points.__getitem__, problem.hand)) + 1
        # Weight of each copy melded (of each natural, and of each wild card as a wild): minus
        # its points.
        copy_weight = {card: -points[card] for card in natural_uses}
        wild_weight = {card: -points[card] for card in wild_used}
    else:
        wild = set(problem.wild_kinds)
        rank_weight = 13 * len(problem.hand) + 1  # one point outweighs every rank melded
        wild_worth = sum((points[card] * rank_weight + 13) * n for card, n in problem.counts.items()) + 1
        missing_weight = wild_worth * (len(problem.hand) + 1)
        # Minus the wild cards melded (a wild 2 as itself too), plus each natural's cost.
        copy_weight = {card: -wild_worth if card in wild else points[card] * rank_weight + _rank_order(card)
                       for card in natural_uses}
        wild_weight = dict.fromkeys(wild_used, -wild_worth)
    terms = {index: missing_weight * coefficient for index, coefficient in missing.items()}
    for card, uses in natural_uses.items():
        weight = copy_weight[card]
        for use in uses:
            index = use.index
            terms[index] = terms.get(index, 0) + weight
    for card, var in wild_used.items():
        terms[var.index] = terms.get(var.index, 0) + wild_weight[card]
    return terms, missing_weight * missing_offset


def _rank_order(card: Card) -> int:
    """1 (the two) .. 13 (the ace): the order in which cards worth the same points are kept."""
    assert card.rank is not None
    return 13 if card.rank == Rank.ACE else int(card.rank) - 1


def _deck_cover(model: cp_model.CpModel, problem: Problem, windows: list[RunWindows],
                sets: list[SetGroup]) -> DeckCover:
    """Every gap (a run position or a set place the hand's cards do not fill) takes a wild card
    of the hand, a missing natural that fits it, or a missing joker; no more missing copies of
    a card than the deck has left, no more missing jokers than it has left."""
    hand_wilds = sum(g.wilds for g in windows) + sum(g.wild_total() for g in sets)
    gaps_total = sum(g.places() - sum(g.uses.values()) for g in windows) \
        + sum(g.missing_total() + g.wild_total() for g in sets)
    in_runs: dict[Card, cp_model.IntVar] = {}
    in_sets: dict[Card, cp_model.IntVar] = {}
    for rank in Rank:
        set_gaps = sum(g.spec.size * g.count[rank] - sum(u for c, u in g.uses.items() if c.rank == rank)
                       for g in sets if rank in g.count)
        of_rank_in_sets = []
        for suit in SUITS:
            card = Card(rank, suit)
            spare = problem.spare(card)
            if not spare:
                continue
            if windows:
                run_gaps = sum(
                    sum(c for (s, first, last), c in g.count.items() if s == suit and first <= p <= last)
                    - g.uses.get((card, p), 0)
                    for g in windows for p in run_places(card, problem.rules))
                in_runs[card] = model.new_int_var(0, spare, f"missing_in_runs[{card}]")
                model.add(in_runs[card] <= run_gaps)
            if sets:
                in_sets[card] = model.new_int_var(0, spare, f"missing_in_sets[{card}]")
                of_rank_in_sets.append(in_sets[card])
            if card in in_runs and card in in_sets:
                model.add(in_runs[card] + in_sets[card] <= spare)
        if of_rank_in_sets:
            model.add(sum(of_rank_in_sets) <= set_gaps)
    jokers = gaps_total - hand_wilds - sum(in_runs.values()) - sum(in_sets.values())
    model.add(jokers >= 0)
    model.add(jokers <= problem.spare(JOKER))
    return DeckCover(in_runs, in_sets, jokers)


@functools.lru_cache(maxsize=64)
def _window_layout(positions: tuple[int, ...], size: int, longest: int) -> tuple[
        tuple[Window, ...], tuple[str, ...], dict[tuple[Suit, int], tuple[int, ...]], bool]:
    """What window-counted runs of one size look like under the ace rule, whatever the hand:
    the windows, their names (``S5-8``), per (suit, position) the windows covering it (their
    indices), and whether every window is ``size`` long (``RunWindows.exact``). Worked out once
    per rule set and size: a fifth of a typical model's building time (profiled with cProfile)."""
    windows = tuple((suit, first, last) for suit in SUITS for first in positions for last in positions
                    if size <= last - first + 1 <= longest)
    names = tuple(f"{suit.value}{first}-{last}" for suit, first, last in windows)
    covering: dict[tuple[Suit, int], list[int]] = {}
    for index, (suit, first, last) in enumerate(windows):
        for p in range(first, last + 1):
            covering.setdefault((suit, p), []).append(index)
    exact = all(last - first + 1 == size for _, first, last in windows)
    return windows, names, {key: tuple(indices) for key, indices in covering.items()}, exact


@dataclass(frozen=True, eq=False)  # compared and hashed by identity: the shared ones are cached
class _WindowHead:
    """The first part of a group of window-counted runs, the same for every hand: a count per
    window, their total, and (where the same-suit rule needs them) a presence flag per window."""

    count: dict[Window, cp_model.IntVar]
    present: dict[Window, cp_model.IntVar]
    covering_index: dict[tuple[Suit, int], tuple[int, ...]]
    # Runs covering (suit, p), made when first asked. The shared head is cached, so this dict
    # outlives one model and its expressions hold the template's variables: they still mean the
    # right ones in every model that copied the template, because a copy keeps each variable's
    # index, and a constraint is written with indices only (test_model_identity pins the protos).
    covering: dict[tuple[Suit, int], Expr]
    exact: bool  # every window is the contract's size
    # The places of all runs laid (``RunWindows.places``) and, for windows of several lengths,
    # its terms by variable index (``Terms``): a few hundred windows for a minimum contract's
    # runs, whose sum was a quarter of building eveleigh's models (profiled with cProfile).
    places: Expr
    places_terms: Terms
    covering_flat: dict[tuple[Suit, int], tuple[list[int], list[int]]]  # ``covering_row``, made when first asked
    # Each suit's windows as (count, first, last), in window order (which is index order).
    of_suit: dict[Suit, list[tuple[cp_model.IntVar, int, int]]] = field(default_factory=dict)
    shared: bool = False  # the cached head that a first group copies: its variables are in every such model
    # ``use_sites`` by card, made when first asked (kept with the shared head, as ``covering``).
    sites: dict[Card, tuple[tuple[int, str, Expr | tuple[list[int], list[int]]], ...]] = field(
        default_factory=dict)

    def runs_covering(self, suit: Suit, position: int) -> Expr:
        key = suit, position
        if key not in self.covering:
            counts = list(self.count.values())
            self.covering[key] = sum(counts[i] for i in self.covering_index[key])
        return self.covering[key]

    def use_sites(self, card: Card, positions: tuple[int, ...],
                  name: str) -> tuple[tuple[int, str, Expr | tuple[list[int], list[int]]], ...]:
        """Where the runs may hold the natural ``card``: its run positions with the name of its
        use variable there (``_use_sites``) and the runs covering it, as an expression
        (``runs_covering``) for exact windows, else as a row (``covering_row``). The same for
        every hand: a shared head works them out once a card (looking them up anew, natural by
        natural, was a tenth of building a typical model; profiled with cProfile)."""
        sites = self.sites.get(card)
        if sites is None:
            assert card.suit is not None
            covering = self.runs_covering if self.exact else self.covering_row
            sites = self.sites[card] = tuple((p, label, covering(card.suit, p))
                                             for p, label in _use_sites(card, positions, name))
        return sites

    def covering_row(self, suit: Suit, position: int) -> tuple[list[int], list[int]]:
        """``-runs_covering(suit, position)`` as a row: the counts' indices in increasing order,
        and a -1 for each. A variable made after the head has a greater index than them all."""
        key = suit, position
        if key not in self.covering_flat:
            counts = list(self.count.values())
            indices = [counts[i].index for i in self.covering_index[key]]
            assert indices == sorted(indices), "a head's counts are made in window order"
            self.covering_flat[key] = indices, [-1] * len(indices)
        return self.covering_flat[key]


def _add_window_head(model: cp_model.CpModel, positions: tuple[int, ...], size: int, longest: int,
                     how_many: int, top: int, flagged: bool) -> _WindowHead:
    # Made in an empty model, the head is a template's (``_head``): shared by every model
    # that copies it.
    shared = _empty(model)
    windows, window_names, covering_index, exact = _window_layout(positions, size, longest)
    name = f"run{size}"
    counts = [model.new_int_var(0, top, f"{name}.count[{w}]") for w in window_names]
    model.add(sum(counts) == how_many)
    present = {}
    if flagged:
        for w, label, c in zip(windows, window_names, counts):
            present[w] = model.new_bool_var(f"{name}.present[{label}]")
            model.add(c <= top * present[w])
    places: Expr = size * how_many
    places_terms: Terms = {}
    if not exact:
        lengths = [last - first + 1 for _, first, last in windows]
        places = cp_model.LinearExpr.weighted_sum(counts, lengths)
        places_terms = {c.index: length for c, length in zip(counts, lengths)}
    of_suit: dict[Suit, list[tuple[cp_model.IntVar, int, int]]] = {suit: [] for suit in SUITS}
    for (suit, first, last), c in zip(windows, counts):
        of_suit[suit].append((c, first, last))
    return _WindowHead(dict(zip(windows, counts)), present, covering_index, {}, exact, places, places_terms, {},
                       of_suit, shared)


_Head = TypeVar("_Head")


def _head(model: cp_model.CpModel, add: Callable[..., _Head], *layout: object) -> _Head:
    """The part of a group of runs that is the same for every hand (``add(model, *layout)``:
    a window head, a run slot's head), added to ``model``: copied from its template into an
    empty model (the same variables and constraints in the same order, so the same proto),
    else built afresh."""
    if _empty(model):
        template: tuple[cp_model.CpModel, _Head] = _head_template(add, *layout)
        model.proto.copy_from(template[0].proto)
        return template[1]
    return add(model, *layout)


@functools.lru_cache(maxsize=512)
def _head_template(add: Callable[..., _Head], *layout: object) -> tuple[cp_model.CpModel, _Head]:
    """A model holding only a head, built once per rule set, size and contract (or slot). A
    model's first group of runs copies it in one step and shares its variables (a variable
    is its index in the model; the head's indices start at 0 in both) and its sums of them:
    about 45 variables and their total for a typical run of four, hundreds of each for a
    minimum contract's runs, the costliest part of building a typical model."""
    template = _CpModel()
    return template, add(template, *layout)


def _empty(model: cp_model.CpModel) -> bool:
    return not (len(model.proto.variables) or len(model.proto.constraints))


def _run_windows(model: cp_model.CpModel, problem: Problem, spec: MeldSpec,
                 how_many: int, same_suit: SameSuitRuns) -> tuple[_WindowHead, RunWindows]:
    rules, name, size = problem.rules, f"run{spec.size}", spec.size
    longest = min(rules.max_run_length, len(problem.positions)) if problem.minimum else size
    if tightened(problem):
        # In a go-out round the melds hold exactly ``target`` places and every other meld of
        # the contract at least its size: no run is longer than what they leave, and the longer
        # windows are not made at all. The model's one row over all places says as much, but
        # its LP spread a run over fractions of long windows (ill-buy-it round 8: 264 windows
        # for a run of at most 5 there; docs/benchmarks.md has the time saved).
        assert problem.target is not None, "a tightened model is a go-out round's"
        longest = max(size, min(longest, problem.target - sum(s.size for s in problem.contract) + size))
    apart = same_suit.missing_ranks_between
    top = 1 if apart is not None else how_many  # gap, gap-2: no overlap at all
    flagged = ((same_suit == SameSuitRuns.NO_TOUCH or apart is not None)
               and len(problem.run_specs) > 1)
    head = _head(model, _add_window_head, problem.positions, size, longest, how_many, top, flagged)
    uses: dict[tuple[Card, int], cp_model.IntVar] = {}
    counts, positions = problem.counts, problem.positions
    exact = head.exact
    for card in problem.naturals:
        copies = counts[card]
        for p, label, covering in head.use_sites(card, positions, name):
            # Each run covering this card's position may hold one copy of it.
            use = model.new_int_var(0, min(how_many, copies), label)
            if exact:
                model.add(use <= covering)
            else:  # dozens of windows of every length over p
                indices, minus_ones = cast(tuple[list[int], list[int]], covering)
                _add_long_linear(model, [*indices, use.index], [*minus_ones, 1], _NO_LOWER, 0)
            uses[card, p] = use
    total_wild_cards = sum(counts[c] for c in problem.wild_kinds)
    wilds = model.new_int_var(0, min(total_wild_cards, longest * how_many), f"{name}.wilds")
    per_window = None if problem.runs_by_window else _window_wilds(model, problem, name, head, uses, wilds,
                                                                   how_many, top)
    group = RunWindows(spec, how_many, dict(head.count), dict(head.present), uses, wilds, head.exact,
                       per_window, head.places, head.places_terms)
    _add_nothing_missing_below_zero(model, group.missing_terms())
    return head, group


def _held_stretches(held: set[int], size: int) -> list[tuple[int, int]]:
    """Every stretch (first, last) of ``size`` or more consecutive positions in ``held``."""
    stretches = []
    for first in sorted(held):
        last = first + size - 1
        while all(p in held for p in range(first, last + 1)):
            stretches.append((first, last))
            last += 1
    return stretches


def _window_wilds(model: cp_model.CpModel, problem: Problem, name: str, head: _WindowHead,
                  uses: dict[tuple[Card, int], cp_model.IntVar], wilds: cp_model.IntVar,
                  how_many: int, top: int) -> WindowWilds:
    """One wild card a run, for runs counted per window: conditions (1) and (2) of
    ``WindowWilds``, on the windows inside the stretches of positions the hand holds."""
    rules = problem.rules
    if rules.deuces_always_wild and rules.max_wilds_per_meld == 0:
        for (_, first, last), count in head.count.items():
            if first <= DEUCE <= last:
                model.add(count == 0)  # the 2's place takes a wild card, which the limit forbids
    if not problem.wild_kinds or rules.max_wilds_per_meld == 0:
        model.add(wilds == 0)
        return WindowWilds({}, None)
    held: dict[Suit, dict[int, cp_model.IntVar]] = {}
    for (card, p), use in uses.items():
        assert card.suit is not None
        held.setdefault(card.suit, {})[p] = use
    shortest = min(last - first + 1 for _, first, last in head.count)
    stretches = {suit: _held_stretches(set(at), shortest) for suit, at in held.items()}
    # Rows written straight into the proto (``_add_long_linear``): the window counts come first
    # in index order, then the uses, then the variables made here.
    inside, outside_runs = _wilds_inside(model, name, head, stretches, top)
    wild_cards = sum(problem.counts[card] for card in problem.wild_kinds)
    outside = model.new_int_var(0, min(wild_cards, how_many), f"{name}.wilds[outside]")
    _add_long_linear(model, [*outside_runs, outside.index], [-1] * len(outside_runs) + [1], _NO_LOWER, 0)  # (1), pooled
    model.add(wilds == outside + _sum(list(inside.values())))
    _wilds_within_stretches(model, head, held, stretches, inside)
    return WindowWilds(inside, outside)


def _wilds_inside(model: cp_model.CpModel, name: str, head: _WindowHead,
                  stretches: dict[Suit, list[tuple[int, int]]],
                  top: int) -> tuple[dict[Window, cp_model.IntVar], list[int]]:
    """Condition (1) of ``WindowWilds`` on each window inside a held stretch: its wild cards, at
    most its runs. With the indices of the other windows' counts, whose wild cards are pooled."""
    inside: dict[Window, cp_model.IntVar] = {}
    outside_runs: list[int] = []  # the indices of the counts of windows not inside
    for suit in SUITS:  # in window order, as the head made them
        suit_stretches = stretches.get(suit)
        if not suit_stretches:  # every window of the suit is outside
            outside_runs += [count.index for count, _, _ in head.of_suit[suit]]
            continue
        for count, first, last in head.of_suit[suit]:
            if any(a <= first and last <= b for a, b in suit_stretches):
                window = suit, first, last
                inside[window] = model.new_int_var(0, top, f"{name}.wilds[{suit.value}{first}-{last}]")
                model.add(inside[window] <= count)  # (1)
            else:
                outside_runs.append(count.index)
    return inside, outside_runs


def _wilds_within_stretches(model: cp_model.CpModel, head: _WindowHead, held: dict[Suit, dict[int, cp_model.IntVar]],
                            stretches: dict[Suit, list[tuple[int, int]]],
                            inside: dict[Window, cp_model.IntVar]) -> None:
    """Condition (2) of ``WindowWilds``, a row a held stretch: the naturals and wild cards of the
    runs inside it fit the places the runs over it have there."""
    for suit, stretches_of_suit in stretches.items():
        for a, b in stretches_of_suit:
            over = [(count.index, min(last, b) - max(first, a) + 1) for count, first, last in head.of_suit[suit]
                    if first <= b and last >= a]
            held_here = sorted(held[suit][p].index for p in range(a, b + 1))
            within = [w.index for (s, first, last), w in inside.items() if s == suit and a <= first and last <= b]
            row = [index for index, _ in over] + held_here + within
            _add_long_linear(model, row, [-n for _, n in over] + [1] * (len(held_here) + len(within)),
                             _NO_LOWER, 0)  # (2)


def _same_suit_policy_windows(model: cp_model.CpModel, heads: tuple[_WindowHead, ...],
                              policy: SameSuitRuns) -> None:
    """The same-suit rule between windows that hold runs (exact contracts). It depends on the
    windows alone: between shared heads, the constraints are appended from a copy made once."""
    if policy == SameSuitRuns.FREE:
        return
    if heads and all(head.shared for head in heads):
        model.proto.merge_from(_same_suit_block(heads, policy).proto)  # appends its constraints
    else:
        _add_same_suit_policy_windows(model, heads, policy)


@functools.lru_cache(maxsize=256)
def _same_suit_block(heads: tuple[_WindowHead, ...], policy: SameSuitRuns) -> cp_model.CpModel:
    """The same-suit constraints between shared heads, in a model of their own (no variables:
    they name the heads' variables, which have the same indices in every model sharing them)."""
    block = _CpModel()
    _add_same_suit_policy_windows(block, heads, policy)
    return block


def _add_same_suit_policy_windows(model: cp_model.CpModel, groups: tuple[_WindowHead, ...],
                                  policy: SameSuitRuns) -> None:
    placed = [(w, group.present[w]) for group in groups for w in group.present]
    if policy == SameSuitRuns.DISTINCT_SUITS:
        for suit in SUITS:
            model.add(sum(g.count[w] for g in groups for w in g.count if w[0] == suit) <= 1)
        return
    # Only same-suit pairs can clash: a window touches those that start right after its last
    # position; where the policy asks for missing ranks between runs it also clashes with those
    # that start within it or within that many ranks after it. Each pair once.
    starting: dict[tuple[Suit, int], list[tuple[int, cp_model.IntVar]]] = {}
    for j, ((suit, first, _), b) in enumerate(placed):
        starting.setdefault((suit, first), []).append((j, b))
    between = policy.missing_ranks_between
    for i, ((suit, first_a, last_a), a) in enumerate(placed):
        starts = range(last_a + 1, last_a + 2) if between is None else range(first_a, last_a + between + 1)
        for start in starts:
            for j, b in starting.get((suit, start), []):
                if start != first_a or j > i:
                    model.add(a + b <= 1)


SlotHead = tuple[dict[Suit, cp_model.IntVar], dict[int, cp_model.IntVar], dict[int, cp_model.IntVar],
                 dict[int, Expr]]  # a run slot's suit, start, end and covers


def _add_slot_head(model: cp_model.CpModel, positions: tuple[int, ...], size: int, longest: int,
                   minimum: bool, name: str) -> SlotHead:
    """A run slot's suit and where it lies, the same for every hand (a template's is shared by
    the models that copy it: nothing changes these dicts once made)."""
    first, last = positions[0], positions[-1]
    suit = {s: model.new_bool_var(f"{name}.suit[{s.value}]") for s in SUITS}
    model.add_exactly_one(suit.values())
    start = {p: model.new_bool_var(f"{name}.start[{p}]") for p in positions if p + size - 1 <= last}
    model.add_exactly_one(start.values())
    if minimum:
        end = {p: model.new_bool_var(f"{name}.end[{p}]") for p in positions if p - size + 1 >= first}
        model.add_exactly_one(end.values())
        start_at = sum(p * v for p, v in start.items())
        end_at = sum(p * v for p, v in end.items())
        model.add(end_at - start_at + 1 >= size)
        model.add(end_at - start_at + 1 <= longest)
        covers = {p: sum(v for s, v in start.items() if s <= p) - sum(v for e, v in end.items() if e < p)
                  for p in positions}
    else:
        end = {}
        covers = {p: sum(v for s, v in start.items() if p - size < s <= p) for p in positions}
    return suit, start, end, covers


def _run_slot(model: cp_model.CpModel, problem: Problem, spec: MeldSpec, index: int,
              strict_deck: bool) -> RunSlot:
    rules, positions, name = problem.rules, problem.positions, f"run{index}"
    longest = min(rules.max_run_length, len(positions)) if problem.minimum else spec.size
    suit, start, end, covers = _head(model, _add_slot_head, positions, spec.size, longest, problem.minimum, name)

    uses: dict[tuple[Card, int], cp_model.IntVar] = {}
    for card in problem.naturals:
        assert card.suit is not None
        for p, label in _use_sites(card, positions, name):
            use = model.new_bool_var(label)
            model.add_implication(use, suit[card.suit])
            uses[card, p] = use
    uses_at: dict[int, list[cp_model.IntVar]] = {}
    for (_, p), use in uses.items():
        uses_at.setdefault(p, []).append(use)
    for p in positions:
        if p in uses_at:  # at most one card per position, and only on positions the run covers
            model.add(sum(uses_at[p]) <= covers[p])

    total_wild_cards = sum(problem.counts[c] for c in problem.wild_kinds)
    wilds = model.new_int_var(0, min(total_wild_cards, longest), f"{name}.wilds")
    missing_jokers = None
    wild_limit: Expr = wilds
    if strict_deck:
        spare_jokers = problem.spare(JOKER)
        missing_jokers = model.new_int_var(0, min(spare_jokers, longest), f"{name}.missing_jokers")
        wild_limit = wilds + missing_jokers
    slot = RunSlot(spec, suit, start, end, covers, uses, wilds, missing_jokers)
    model.add(slot.missing() >= 0)
    if rules.max_wilds_per_meld is not None:
        model.add(wild_limit <= rules.max_wilds_per_meld)
        if rules.deuces_always_wild and DEUCE in covers:
            # No natural card can take the 2's place, so a run over it holds a wild card there
            # (one of the hand's, counted in ``wilds``, or a missing 2 or joker, which is wild too).
            model.add(covers[DEUCE] <= rules.max_wilds_per_meld)
    if not rules.wilds_may_outnumber_naturals:
        model.add(2 * wild_limit <= slot.length())
    return slot


def _run_key(slot: RunSlot) -> Expr:
    return 16 * sum(i * slot.suit[s] for i, s in enumerate(SUITS)) + sum(p * v for p, v in slot.start.items())


def _same_suit_policy(model: cp_model.CpModel, runs: list[RunSlot], policy: SameSuitRuns) -> None:
    if policy == SameSuitRuns.FREE:
        return
    for i, one in enumerate(runs):
        for other in runs[i + 1:]:
            if policy == SameSuitRuns.DISTINCT_SUITS:
                for s in SUITS:
                    model.add(one.suit[s] + other.suit[s] <= 1)
                continue
            same_suit = model.new_bool_var("same_suit")  # 1: forced when both runs share a suit
            for s in SUITS:
                model.add(same_suit >= one.suit[s] + other.suit[s] - 1)
            # b may not start right after a ends (one long run), nor, under gap-2, one rank later.
            too_near = policy.missing_ranks_between or 1
            for a, b in ((one, other), (other, one)):
                for p in a.covers:
                    for q in range(p + 1, p + 1 + too_near):
                        if q in b.start:
                            a_ends_at_p = a.end.get(p, 0) if a.end else _ends_at(a, p)
                            model.add(same_suit + a_ends_at_p + b.start[q] <= 2)
            if policy.missing_ranks_between is not None:
                for p in one.covers:
                    model.add(same_suit + one.covers[p] + other.covers[p] <= 2)


def _ends_at(slot: RunSlot, position: int) -> Expr:
    """For a fixed-length run: 1 when its last position is ``position``."""
    size = slot.spec.size
    return slot.start.get(position - size + 1, 0)


def tightened(problem: Problem) -> bool:
    """Whether the problem's model has the tighter relaxation (a go-out round's, unless its
    options say otherwise: ``SolverOptions.tight_go_out``)."""
    return problem.target is not None and problem.options.tight_go_out


def sets_hold_naturals_only_when_laid(model: cp_model.CpModel, problem: Problem, sets: list[SetGroup]) -> None:
    """The sets of a rank hold a natural of the hand only when a set of that rank is laid:
    ``use <= copies * count``. Every lay-down meets it (a count is a whole number, and no set
    holds more copies than the hand has); but the sets' rows (``cards >= size * count``) let
    the LP lay two thirds of a set of a rank the hand holds two of, meld both naturals and miss
    two thirds of a card, and its bound stayed far from the truth. The outs' gap-site question
    adds them in the other rounds too (``outs._collect_gap_sites``)."""
    for group in sets:
        for card, use in group.uses.items():
            assert card.rank is not None
            model.add(use <= problem.counts[card] * group.count[card.rank])


def _set_group(model: cp_model.CpModel, problem: Problem, spec: MeldSpec, how_many: int,
               strict_deck: bool, all_ranks: bool) -> SetGroup:
    rules, name = problem.rules, f"{spec.kind.value}{spec.size}"
    ranks = _offered_set_ranks(problem, all_ranks)
    total_wild_cards = sum(problem.counts[c] for c in problem.wild_kinds)
    spare_jokers = problem.spare(JOKER)
    big = spec.size * how_many + len(problem.hand)  # no group of sets can hold more cards
    # Missing cards only ever make up a shortfall; but in a go-out round, where the melds' size
    # is fixed, a drawn card may be what makes a set longer.
    missing_top = spec.size * how_many if problem.target is None else big

    count: dict[Rank, cp_model.IntVar] = {}
    uses: dict[Card, cp_model.IntVar] = {}
    wilds: dict[Rank, cp_model.IntVar] = {}
    missing: dict[Rank, cp_model.IntVar] = {}
    missing_jokers: dict[Rank, cp_model.IntVar] = {}
    top = 1 if rules.distinct_set_ranks else how_many
    naturals_of: dict[Rank, list[Card]] = {}  # the hand's naturals by rank, in card order
    for card in problem.naturals:
        assert card.rank is not None
        naturals_of.setdefault(card.rank, []).append(card)
    if problem.counted_by_window:
        return _pooled_set_group(model, problem, spec, how_many, ranks, naturals_of, top)
    for r in ranks:
        count[r] = model.new_int_var(0, top, _set_label(name, "count", r))
        of_rank = []
        for card in naturals_of.get(r, ()):
            uses[card] = model.new_int_var(0, problem.counts[card], _set_label(name, "use", card))
            of_rank.append(uses[card])
        wilds[r] = model.new_int_var(0, total_wild_cards, _set_label(name, "wilds", r))
        missing[r] = model.new_int_var(0, missing_top, _set_label(name, "missing", r))
        wild_like: Expr = wilds[r]
        if strict_deck:
            missing_jokers[r] = model.new_int_var(0, spare_jokers, _set_label(name, "missing_jokers", r))
            wild_like = wilds[r] + missing_jokers[r]
        _set_rows(model, problem, spec, count[r], sum(of_rank) + missing[r], wild_like, missing[r], big)
    model.add(_sum(list(count.values())) == how_many)
    return SetGroup(spec, count, uses, wilds, missing, missing_jokers)


def _offered_set_ranks(problem: Problem, all_ranks: bool) -> Sequence[Rank]:
    """The ranks sets may take: all (``all_ranks``), else the hand's and a few it lacks."""
    held_ranks = {card.rank for card in problem.naturals}
    # Where 2s are always wild no set has a natural 2: a set of 2s would be wild cards only,
    # which a set of any other rank holds as well.
    set_ranks = _SET_RANKS_NO_TWO if problem.rules.deuces_always_wild else _SET_RANKS
    # Ranks the hand lacks are all alike here; a few of them stand for the rest (enough to
    # give every set its own rank when the rules ask for distinct ranks).
    absent = [r for r in set_ranks if r not in held_ranks][:len(problem.contract)]
    return set_ranks if all_ranks else [r for r in set_ranks if r in held_ranks or r in absent]


def _pooled_set_group(model: cp_model.CpModel, problem: Problem, spec: MeldSpec, how_many: int,
                      ranks: Sequence[Rank], naturals_of: dict[Rank, list[Card]], top: int) -> SetGroup:
    """Exact sizes and no wild limits: any gap of any set may take any wild card, so only the
    naturals are counted per rank, and the wild cards of all the sets together."""
    name = f"{spec.kind.value}{spec.size}"
    count: dict[Rank, cp_model.IntVar] = {}
    uses: dict[Card, cp_model.IntVar] = {}
    counts, size = problem.counts, spec.size
    for r in ranks:
        count[r] = count_r = model.new_int_var(0, top, _set_label(name, "count", r))
        if r in naturals_of:
            of_rank = []
            for card in naturals_of[r]:
                uses[card] = use = model.new_int_var(0, counts[card], _set_label(name, "use", card))
                of_rank.append(use)
            model.add(_sum(of_rank) <= size * count_r)
    # The counts' total, a long row written as ``model.add`` writes it.
    count_indices = [count_r.index for count_r in count.values()]
    _add_long_linear(model, count_indices, [1] * len(count_indices), how_many, how_many)
    total_wild_cards = sum(counts[c] for c in problem.wild_kinds)
    pooled = model.new_int_var(0, min(total_wild_cards, spec.size * how_many), f"{name}.wilds")
    group = SetGroup(spec, count, uses, {}, {}, {}, pooled)
    _add_nothing_missing_below_zero(model, group.missing_terms())
    return group


def _set_rows(model: cp_model.CpModel, problem: Problem, spec: MeldSpec, count: cp_model.IntVar, naturals: Expr,
              wild_like: Expr, missing: cp_model.IntVar, big: int) -> None:
    """The rows of one rank's sets: ``count`` sets of the contract's size (at least, in a
    minimum contract) holding ``naturals`` (the hand's and missing ones) and ``wild_like``
    cards (the hand's wild cards and missing jokers), within the rule set's wild limits."""
    rules = problem.rules
    cards = naturals + wild_like
    if problem.minimum:
        model.add(cards >= spec.size * count)
        model.add(cards <= big * count)
        model.add(missing <= (spec.size if problem.target is None else big) * count)
    else:
        model.add(cards == spec.size * count)
    if rules.max_wilds_per_meld is not None:
        model.add(wild_like <= rules.max_wilds_per_meld * count)
    if not rules.wilds_may_outnumber_naturals:
        # Necessary and sufficient for dealing the rank's cards into sets that each hold
        # no more wild cards than natural ones (see _deal_sets).
        if problem.minimum:
            model.add(wild_like <= naturals)
            model.add(naturals >= (spec.size + 1) // 2 * count)
        else:
            model.add(wild_like <= spec.size // 2 * count)


_SET_RANKS = tuple(Rank)
_SET_RANKS_NO_TWO = tuple(r for r in Rank if r != Rank.TWO)


@functools.lru_cache(maxsize=1024)
def _set_label(group: str, what: str, named: Card | Rank) -> str:
    """A set group's variable name (``set3.use[7H]``, ``set3.count[7]``), the same in every
    model: made once."""
    return f"{group}.{what}[{named.token}]"


def _strict_deck_limits(model: cp_model.CpModel, problem: Problem, runs: list[RunSlot],
                        sets: list[SetGroup]) -> None:
    """Missing cards must exist: per card, no more missing copies than the deck has left."""
    spare_jokers = problem.spare(JOKER)
    model.add(sum(s.missing_jokers for s in runs if s.missing_jokers is not None)
              + sum(sum(g.missing_jokers.values()) for g in sets) <= spare_jokers)
    # In runs, place wild-like cards (the hand's wilds, missing jokers) position by position;
    # every other gap is a missing natural of that suit and position.
    missing_at: dict[tuple[Suit, int], list[Expr]] = {}
    for index, slot in enumerate(runs):
        assert slot.missing_jokers is not None
        slot.wild_at = {p: model.new_bool_var(f"run{index}.wild_at[{p}]") for p in slot.covers}
        model.add(sum(slot.wild_at.values()) == slot.wilds + slot.missing_jokers)
        limited = problem.rules.max_wilds_per_meld is not None or not problem.rules.wilds_may_outnumber_naturals
        if problem.rules.deuces_always_wild and limited and DEUCE in slot.covers:
            # A missing 2 there would be one more wild card than the limits count: a wild goes there.
            model.add(slot.wild_at[DEUCE] >= slot.covers[DEUCE])
        for p, covered in slot.covers.items():
            gap = covered - sum(u for (c, q), u in slot.uses.items() if q == p) - slot.wild_at[p]
            model.add(gap >= 0)
            for s in SUITS:
                # 1: slot is in suit s and misses the natural at p.
                missed = model.new_bool_var(f"run{index}.missed[{s.value},{p}]")
                model.add(missed >= gap + slot.suit[s] - 1)
                missing_at.setdefault((s, p), []).append(missed)
    for rank in Rank:
        run_missing_of_rank: list[Expr] = []
        for s in SUITS:
            card = Card(rank, s)
            spare = problem.spare(card)
            here = [v for p in ((LOW_ACE, HIGH_ACE) if rank == Rank.ACE else (int(rank),))
                    for v in missing_at.get((s, p), [])]
            if here:
                model.add(sum(here) <= spare)
            run_missing_of_rank += here
        spare_of_rank = sum(problem.spare(Card(rank, s)) for s in SUITS)
        model.add(sum(run_missing_of_rank) + sum(g.missing[rank] for g in sets if rank in g.missing)
                  <= spare_of_rank)


def runs_may_share_a_contract(policy: SameSuitRuns, run: tuple[Suit, int, int], others: tuple[RunShape, ...]) -> bool:
    suit, first, size = run
    last = first + size - 1
    for other_suit, other_first, other_size, _ in others:
        if other_suit != suit or policy == SameSuitRuns.FREE:
            continue
        other_last = other_first + other_size - 1
        touching = last + 1 == other_first or other_last + 1 == first
        between = policy.missing_ranks_between
        apart = between is not None and (last + between < other_first or other_last + between < first)
        if policy == SameSuitRuns.DISTINCT_SUITS or touching or (between is not None and not apart):
            return False
    return True
