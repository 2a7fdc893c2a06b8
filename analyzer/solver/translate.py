"""Solving the model, and reading its answer back as melds of cards: where each natural goes,
which wild card fills which gap, which cards are missing."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass

from ortools.sat.python import cp_model, cp_model_helper

from analyzer.cards import JOKER, Card, Rank, Suit, natural, sorted_cards
from analyzer.melds import DEUCE, HIGH_ACE, LOW_ACE, RUN_CARDS, card_at
from analyzer.result import PlacedMeld
from analyzer.rules import MeldKind, MeldSpec, Rules, SameSuitRuns
from analyzer.solver.model import (
    SUITS,
    Model,
    Problem,
    RunShape,
    RunWindows,
    SetGroup,
    Window,
    WindowWilds,
    build_model,
    runs_may_share_a_contract,
)
from analyzer.solver.work import work_limit

# ---- solving ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Solution:
    """What the solver decided, in card terms."""

    melds: tuple[PlacedMeld, ...]
    missing: tuple[Card, ...]
    proven_optimal: bool


class NoLayDown(Exception):
    """No number of extra cards gives a legal lay-down (``proven``: CP-SAT proved it)."""

    def __init__(self, proven: bool) -> None:
        super().__init__("no lay-down")
        self.proven = proven


def new_solver(time_limit: float) -> cp_model.CpSolver:
    solver = cp_model.CpSolver()
    solver.parameters.copy_from(_settings())
    solver.parameters.max_time_in_seconds = time_limit
    work = work_limit()  # analyzer/solver/work.py: answers the clock cannot change
    if work is not None:
        solver.parameters.max_deterministic_time = work
    return solver


@functools.cache
def _settings() -> cp_model_helper.SatParameters:
    """Every solve's parameters but its limits, set once and copied into each new solver in one
    step (setting them one by one was a hundredth of a typical lay-down)."""
    parameters = cp_model_helper.SatParameters()
    parameters.num_workers = 1  # deterministic, and models are small
    parameters.random_seed = 0
    # Ctrl-C belongs to the caller (analyzer/command.py; KeyboardInterrupt in the API): CP-SAT's
    # own SIGINT handler would end a search as if its time ran out, and it leaves SIGINT at the
    # default action afterwards, so that the next Ctrl-C kills a Python caller without a word.
    parameters.catch_sigint_signal = False
    # These models are small: CP-SAT's presolve, probing and symmetry search cost more than
    # they save (measured with benchmarks.solver), and a stronger LP relaxation pays for itself.
    parameters.cp_model_presolve = False
    parameters.cp_model_probing_level = 0
    parameters.symmetry_level = 0
    parameters.linearization_level = 2
    # SAT inprocessing (clause cleanup, vivification, probing at restarts) and Chvatal-Gomory cuts
    # cost these models more than they prune (docs/benchmarks.md).
    parameters.use_sat_inprocessing = False
    parameters.add_cg_cuts = False
    return parameters


# The rule between runs of one suit (no touching, a gap, distinct suits) is left out of the
# first model (``SolverOptions.same_suit_rule_lazily``): it seldom binds, and without it the
# model has no presence flag per run window and no row per pair of windows that may not lie
# together (docs/benchmarks.md). The relaxed model's best answer is the whole model's whenever
# the runs it lays keep the rule; when they do not, the whole model is solved.
LEAST_SOLVE_TIME = 0.001  # seconds: what the second solve gets once the first spent the limit


def solve(problem: Problem, time_limit: float, strict_deck: bool = False) -> tuple[Solution, Model]:
    """Solve (once, or twice when the same-suit rule is taken up lazily and the first answer
    breaks it, both within ``time_limit``); the model that gave the answer comes back too, for
    callers that ask more of it (outs: ``Model.same_suit_rule`` says whether it holds the rule).
    A first solve that finds no answer in time ends it: ``NoLayDown``, unproven."""
    policy = problem.rules.same_suit_runs
    if problem.options.same_suit_rule_lazily and policy != SameSuitRuns.FREE and len(problem.run_specs) > 1:
        ends = time.monotonic() + time_limit
        relaxed = build_model(problem, strict_deck, same_suit_rule=False)
        try:
            solution = _solve_model(problem, relaxed, time_limit, strict_deck)
        except DeckTooSmall:  # this answer asks for cards the deck lacks: the whole model's may not
            pass
        else:
            if runs_keep_the_same_suit_rule(solution.melds, policy):
                return solution, relaxed
        time_limit = max(LEAST_SOLVE_TIME, ends - time.monotonic())
    built = build_model(problem, strict_deck)
    return _solve_model(problem, built, time_limit, strict_deck), built


def _solve_model(problem: Problem, built: Model, time_limit: float, strict_deck: bool) -> Solution:
    """Solve ``built`` once and read its answer as melds of cards."""
    solver = new_solver(time_limit)
    status = solver.solve(built.model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        raise NoLayDown(proven=status == cp_model.INFEASIBLE)
    return translate_solution(problem, built, solver, status == cp_model.OPTIMAL, strict_deck)


def run_suit(run: PlacedMeld) -> Suit:
    suit = run.stands_for[0].suit
    assert suit is not None
    return suit


def run_position(run: PlacedMeld, index: int) -> int:
    """Position (1..14) of a run's ``index``-th card; an ace is high when it follows a king."""
    rank = run.stands_for[index].rank
    assert rank is not None
    if rank != Rank.ACE:
        return int(rank)
    return HIGH_ACE if index > 0 or (len(run.cards) > 1 and run.stands_for[1].rank != Rank.TWO) else LOW_ACE


def runs_keep_the_same_suit_rule(melds: tuple[PlacedMeld, ...], policy: SameSuitRuns) -> bool:
    """Whether the runs among ``melds`` may all lie in one contract under ``policy``."""
    shapes: list[RunShape] = [(run_suit(meld), run_position(meld, 0), len(meld.cards), ())
                              for meld in melds if meld.kind == MeldKind.RUN]
    return all(runs_may_share_a_contract(policy, shape[:3], tuple(shapes[i + 1:]))
               for i, shape in enumerate(shapes))


class Spare(dict[Card, int]):
    """Copies of each card the deck has beyond the hand's, worked out when first asked."""

    def __init__(self, problem: Problem) -> None:
        super().__init__()
        self.problem = problem

    def __missing__(self, card: Card) -> int:
        self[card] = self.problem.spare(card)
        return self[card]


class DeckTooSmall(Exception):
    """The relaxed model asked for a missing card the deck no longer has."""


def var_values(solver: cp_model.CpSolver) -> Callable[[cp_model.IntVar], int]:
    """A variable's value in the solver's solution, read off the response by the variable's
    index: a quarter of the cost of ``solver.value`` (for variables only, not expressions),
    which reading a window-counted answer asks about 50 times a hand."""
    solution = solver.response_proto.solution
    return lambda var: solution[var.index]


def wilds_used(built: Model, solver: cp_model.CpSolver) -> list[Card]:
    """The wild cards the melds use, jokers first, then wild 2s in card order."""
    value = var_values(solver)
    pool: list[Card] = []
    for card in sorted(built.wild_used, key=lambda c: (not c.is_joker, c.sort_key())):
        pool += [card] * value(built.wild_used[card])
    return pool


_OF_RANK: dict[Rank, tuple[Card, ...]] = {rank: tuple(natural(rank, s) for s in SUITS) for rank in Rank}


def _set_melds(kind: MeldKind, size: int, rank: Rank, how_many: int, naturals: list[Card],
               wilds: list[Card], rules: Rules) -> list[PlacedMeld]:
    melds = []
    for naturals_i, wilds_i in _deal_sets(naturals, wilds, how_many, size, rules):
        # A wild card in a set claims the rank in a suit the set does not show yet.
        unused = [card for card in _OF_RANK[rank] if card not in naturals_i] or list(_OF_RANK[rank])
        claimed = tuple(unused[i % len(unused)] for i in range(len(wilds_i)))
        melds.append(PlacedMeld(kind, tuple(naturals_i + wilds_i), tuple(naturals_i) + claimed))
    return melds


RunSkeleton = tuple[Suit, list[int], dict[int, Card]]  # suit, positions, the hand's naturals by position
SetSkeleton = tuple[MeldSpec, Rank, int, list[Card]]  # spec, rank, how many sets, their naturals


def _run_skeleton(built: Model, solver: cp_model.CpSolver) -> list[RunSkeleton]:
    """Where window-counted runs lie and which of the hand's naturals they hold."""
    return [run for run, _ in _window_runs(built, solver)]


def _window_runs(built: Model, solver: cp_model.CpSolver) -> list[tuple[RunSkeleton, int | None]]:
    """Where window-counted runs lie, which of the hand's naturals they hold, and under per-meld
    wild limits how many of the hand's wild cards each takes (None: any gap takes any)."""
    value = var_values(solver)
    runs: list[tuple[RunSkeleton, int | None]] = []
    for group in built.windows:
        laid = _laid_windows(group, solver)
        if group.per_window is not None:
            runs += _limited_runs(group, value, laid)
            continue
        natural_at = _naturals_on_runs(group, value, laid, {})
        runs += [((suit, list(range(first, last + 1)), naturals), None)
                 for (suit, first, last), naturals in zip(laid, natural_at)]
    return runs


def _laid_windows(group: RunWindows, solver: cp_model.CpSolver) -> list[Window]:
    """The windows the group's runs lie on, each as many times as runs lie there, in window
    order. The counts are read straight off the response, as ``var_values`` reads a variable,
    without a call a window, and only until the group's runs are all found: the counts add up
    to them (``_add_window_head``), and there are about 45 windows for runs of four."""
    solution = solver.response_proto.solution
    laid: list[Window] = []
    to_find = group.how_many
    for window, v in group.count.items():
        runs_here = solution[v.index]
        if runs_here:
            laid += [window] * runs_here
            to_find -= runs_here
            if to_find <= 0:
                break
    return laid


def _limited_runs(group: RunWindows, value: Callable[[cp_model.IntVar], int],
                  laid: list[Window]) -> list[tuple[RunSkeleton, int | None]]:
    """The runs of a group limited to one wild card a run, as ``WindowWilds`` deals them: which
    runs take a wild card (``_runs_taking_wilds``), the place each keeps for it
    (``_wild_places``), then each natural to a run over its place left free."""
    per_window = group.per_window
    assert per_window is not None
    taking = _runs_taking_wilds(per_window, value, laid)
    natural_count = {(card.suit, p): value(use) for (card, p), use in group.uses.items()}
    wild_place = _wild_places(per_window, natural_count, laid, taking)
    natural_at = _naturals_on_runs(group, value, laid, wild_place)
    return [((suit, list(range(first, last + 1)), naturals), int(takes))
            for (suit, first, last), naturals, takes in zip(laid, natural_at, taking)]


def _runs_taking_wilds(per_window: WindowWilds, value: Callable[[cp_model.IntVar], int],
                       laid: list[Window]) -> list[bool]:
    """For each laid run, whether it takes one of the hand's wild cards: as many runs of each
    window inside a held stretch as the model says, then runs reaching outside for the pooled
    rest."""
    taking = [False] * len(laid)
    for window, v in per_window.inside.items():
        for i in [i for i, w in enumerate(laid) if w == window][:value(v)]:
            taking[i] = True
    pooled = value(per_window.outside) if per_window.outside is not None else 0
    for i, window in enumerate(laid):
        if pooled and window not in per_window.inside:
            taking[i], pooled = True, pooled - 1
    assert not pooled, "the pooled wild cards have runs reaching outside the held stretches"
    return taking


def _wild_places(per_window: WindowWilds, natural_count: dict[tuple[Suit | None, int], int], laid: list[Window],
                 taking: list[bool]) -> dict[int, int]:
    """Run -> the place kept for its wild card, for the runs taking one on a window inside a
    held stretch: positions in order, each run ending first served first, at most the free
    places of a position (its runs less its naturals). A window reaching outside has a free
    place where the hand holds no natural, so needs none kept."""
    wild_place: dict[int, int] = {}
    for suit in SUITS:
        waiting = sorted((i for i, (s, _, _) in enumerate(laid)
                          if s == suit and taking[i] and laid[i] in per_window.inside), key=lambda i: laid[i][2])
        for p in range(LOW_ACE, HIGH_ACE + 1):
            runs_over = sum(1 for s, first, last in laid if s == suit and first <= p <= last)
            free = runs_over - natural_count.get((suit, p), 0)
            for i in [i for i in waiting if laid[i][1] <= p][:max(0, free)]:
                wild_place[i] = p
                waiting.remove(i)
            assert all(laid[i][2] > p for i in waiting), "Hall's condition holds (WindowWilds)"
    return wild_place


def _naturals_on_runs(group: RunWindows, value: Callable[[cp_model.IntVar], int], laid: list[Window],
                      wild_place: dict[int, int]) -> list[dict[int, Card]]:
    """The hand's naturals of each laid run by position: each copy the model uses to the first
    run over its place with the place free (not yet taken, not kept for a wild card)."""
    natural_at: list[dict[int, Card]] = [{} for _ in laid]
    for (card, p), use in group.uses.items():
        copies = value(use)
        for i, (suit, first, last) in enumerate(laid):
            if (copies and suit == card.suit and first <= p <= last and p not in natural_at[i]
                    and wild_place.get(i) != p):
                natural_at[i][p] = card
                copies -= 1
        assert copies == 0, "a free place on a laid run for every copy the model uses"
    return natural_at


def skeleton(built: Model, solver: cp_model.CpSolver) -> tuple[list[RunSkeleton], list[SetSkeleton]]:
    """Where a window-counted solution lays its melds and which of the hand's naturals they hold."""
    value = var_values(solver)
    runs = _run_skeleton(built, solver)
    sets: list[SetSkeleton] = []
    for set_group in built.sets:
        for rank, count_var in set_group.count.items():
            how_many = value(count_var)
            if how_many:
                sets.append((set_group.spec, rank, how_many,
                             [c for c, u in set_group.uses.items() if c.rank == rank for _ in range(value(u))]))
    return runs, sets


Gap = tuple[int, int | None]  # (run index, position) in runs, (set index, None) in sets


def translate_by_window(problem: Problem, built: Model, solver: cp_model.CpSolver, optimal: bool) -> Solution:
    """Window-counted runs and rank-counted sets back into melds. First the naturals where the
    model put them; then every gap gets a wild card of the hand or a missing card."""
    runs, sets = skeleton(built, solver)
    gaps: list[Gap] = [(i, p) for i, (_, positions, naturals) in enumerate(runs)
                       for p in positions if p not in naturals]
    gaps += [(j, None) for j, (spec, _, how_many, naturals) in enumerate(sets)
             for _ in range(spec.size * how_many - len(naturals))]
    filling, missing = _fill_gaps(problem, built, solver, gaps,
                                  [(card_at(p, runs[index][0]),) if p is not None else _OF_RANK[sets[index][1]]
                                   for index, p in gaps])
    melds = _filled_melds(problem.rules, runs, sets, gaps, filling)
    return Solution(tuple(melds), sorted_cards(missing), optimal)


def _fill_gaps(problem: Problem, built: Model, solver: cp_model.CpSolver, gaps: list[Gap],
               fitting: list[tuple[Card, ...]]) -> tuple[dict[int, Card], list[Card]]:
    """Gap number -> its card, and the missing cards among them. ``fitting``: per gap, the
    missing naturals that could fill it. In a strict deck the missing naturals the model counted
    go first (``_counted_missing``); then the hand's wild cards go where a missing natural
    would be scarcest, and the other gaps get missing naturals, most plentiful first, or jokers."""
    spare = Spare(problem)

    def natural_for(number: int) -> list[Card]:
        """Missing naturals that could fill gap ``number``, most plentiful first."""
        return sorted(fitting[number], key=lambda c: -spare[c])

    filling: dict[int, Card] = {}
    missing: list[Card] = []
    hand_wilds = wilds_used(built, solver)
    if built.cover is not None:
        filling = _counted_missing(built, solver, gaps, natural_for)
        missing = list(filling.values())
        open_gaps = [n for n in range(len(gaps)) if n not in filling]
    else:
        open_gaps = sorted(range(len(gaps)), key=lambda n: (max(map(spare.__getitem__, fitting[n])), n))
    for number in open_gaps:
        if hand_wilds:
            filling[number] = hand_wilds.pop(0)
            continue
        choices = [c for c in natural_for(number) if spare[c] > 0] if built.cover is None else []
        card = choices[0] if choices else JOKER
        if spare[card] <= 0:
            raise DeckTooSmall(card)
        spare[card] -= 1
        filling[number] = card
        missing.append(card)
    assert not hand_wilds, "every wild card the model used has a place"
    return filling, missing


def _counted_missing(built: Model, solver: cp_model.CpSolver, gaps: list[Gap],
                     natural_for: Callable[[int], list[Card]]) -> dict[int, Card]:
    """Strict deck: gap number -> missing natural, as many copies of each natural in runs and
    in sets as the model counted (``DeckCover``), in gap order."""
    assert built.cover is not None
    value = var_values(solver)
    budget = {(c, True): value(v) for c, v in built.cover.in_runs.items()}
    budget.update({(c, False): value(v) for c, v in built.cover.in_sets.items()})
    filling: dict[int, Card] = {}
    for number, gap in enumerate(gaps):
        for card in natural_for(number):
            if budget.get((card, gap[1] is not None), 0) > 0:
                budget[card, gap[1] is not None] -= 1
                filling[number] = card
                break
    return filling


def _filled_melds(rules: Rules, runs: list[RunSkeleton], sets: list[SetSkeleton], gaps: list[Gap],
                  filling: dict[int, Card]) -> list[PlacedMeld]:
    """The melds of the skeleton with each gap's card in place."""
    melds: list[PlacedMeld] = []
    filled_runs: dict[tuple[int, int], Card] = {}
    set_fillers: dict[int, list[Card]] = {}
    for number, (index, p) in enumerate(gaps):
        if p is not None:
            filled_runs[index, p] = filling[number]
        else:
            set_fillers.setdefault(index, []).append(filling[number])
    for i, (suit, positions, natural_at) in enumerate(runs):
        cards = tuple(natural_at[p] if p in natural_at else filled_runs[i, p] for p in positions)
        melds.append(PlacedMeld(MeldKind.RUN, cards, tuple(map(RUN_CARDS[suit].__getitem__, positions))))
    for j, (spec, rank, how_many, naturals) in enumerate(sets):
        fillers = set_fillers.get(j, [])
        natural_fill = [c for c in fillers if not rules.is_wild(c) and c.rank == rank]
        wild_fill = [c for c in fillers if c not in natural_fill]
        melds += _set_melds(spec.kind, spec.size, rank, how_many, naturals + natural_fill, wild_fill, rules)
    return melds


def translate_solution(problem: Problem, built: Model, solver: cp_model.CpSolver, optimal: bool,
               strict_deck: bool) -> Solution:
    if problem.counted_by_window:
        return translate_by_window(problem, built, solver, optimal)
    value = var_values(solver)
    placer = _SlotPlacer(problem, wilds_used(built, solver))
    run_wilds = sum(value(group.wilds) for group in built.windows if group.per_window is None)
    for (suit, positions, naturals), wild_count in _window_runs(built, solver):
        if wild_count is None:  # no per-meld limits: any gap takes any wild card
            wild_count = min(run_wilds, len(positions) - len(naturals))
            run_wilds -= wild_count
        placer.run(suit, positions, naturals, wild_count)
    for slot in built.runs:
        suit = next(s for s, v in slot.suit.items() if value(v))
        covered = [p for p in problem.positions if solver.value(slot.covers[p])]
        natural_at = {p: card for (card, p), u in slot.uses.items() if value(u)}
        wild_gaps = [p for p in covered if value(slot.wild_at[p])] if strict_deck else None
        placer.run(suit, covered, natural_at, value(slot.wilds), wild_gaps)
    for group in built.sets:
        placer.sets(group, value)
    assert not placer.wild_pool, "every wild card the model used has a place"
    return Solution(tuple(placer.melds), sorted_cards(placer.missing), optimal)


class _SlotPlacer:
    """The melds of a slot model's answer, built one by one: the hand's wild cards the model
    used, taken in order, and missing cards while the deck can spare them."""

    def __init__(self, problem: Problem, wild_pool: list[Card]) -> None:
        self.rules = problem.rules
        self.spare = Spare(problem)
        self.wild_pool = wild_pool
        self.missing: list[Card] = []
        self.melds: list[PlacedMeld] = []

    def missing_card(self, card: Card) -> Card:
        if self.spare[card] <= 0:
            raise DeckTooSmall(card)
        self.spare[card] -= 1
        self.missing.append(card)
        return card

    def run(self, suit: Suit, covered: list[int], natural_at: dict[int, Card], hand_wilds: int,
            wild_gaps: list[int] | None = None) -> None:
        """One run: naturals where the model put them, the hand's wilds in ``hand_wilds`` gaps
        (``wild_gaps`` when the model chose them, else where a missing card is scarcest) and
        missing cards in the rest."""
        gaps = [p for p in covered if p not in natural_at]
        if wild_gaps is None:
            # Where 2s are always wild the 2's place takes a wild first: a missing 2 there would
            # be one more wild card than the model's per-meld limits counted.
            wild_gaps = sorted(gaps, key=lambda p: (not (self.rules.deuces_always_wild and p == DEUCE),
                                                    self.spare[card_at(p, suit)], p))[:hand_wilds]
        cards, stands_for = [], []
        for p in covered:
            meaning = card_at(p, suit)
            if p in natural_at:
                card = natural_at[p]
            elif p in wild_gaps:
                if hand_wilds:
                    card, hand_wilds = self.wild_pool.pop(0), hand_wilds - 1
                else:
                    card = self.missing_card(JOKER)
            else:
                card = self.missing_card(meaning)
            cards.append(card)
            stands_for.append(meaning)
        self.melds.append(PlacedMeld(MeldKind.RUN, tuple(cards), tuple(stands_for)))

    def sets(self, group: SetGroup, value: Callable[[cp_model.IntVar], int]) -> None:
        """The sets of one contract size: per rank, its naturals, the missing naturals the model
        counted (the most plentiful), the hand's wild cards and missing jokers."""
        for rank, count_var in group.count.items():
            how_many = value(count_var)
            if not how_many:
                continue
            naturals = [card for card, u in group.uses.items()
                        if card.rank == rank for _ in range(value(u))]
            hand_wilds = value(group.wilds[rank])
            missing_naturals = value(group.missing[rank])
            for _ in range(missing_naturals):
                naturals.append(self.missing_card(max(_OF_RANK[rank], key=lambda c: self.spare[c])))
            wilds = [self.wild_pool.pop(0) for _ in range(hand_wilds)]
            if rank in group.missing_jokers:
                wilds += [self.missing_card(JOKER) for _ in range(value(group.missing_jokers[rank]))]
            self.melds += _set_melds(group.spec.kind, group.spec.size, rank, how_many, naturals, wilds, self.rules)


def _deal_sets(naturals: list[Card], wilds: list[Card], how_many: int, size: int, rules: Rules) -> list[tuple[list[Card], list[Card]]]:
    """Deal one rank's cards into ``how_many`` sets: naturals evenly, then wild cards first to the
    sets short of ``size``, then evenly where the per-meld limits leave room."""
    hands: list[tuple[list[Card], list[Card]]] = [([], []) for _ in range(how_many)]
    for i, card in enumerate(naturals):
        hands[i % how_many][0].append(card)
    limit = rules.max_wilds_per_meld

    def room(hand: tuple[list[Card], list[Card]]) -> bool:
        ok = limit is None or len(hand[1]) < limit
        return ok and (rules.wilds_may_outnumber_naturals or len(hand[1]) < len(hand[0]))

    pool = list(wilds)
    for hand in hands:  # make up each set to its size
        while pool and len(hand[0]) + len(hand[1]) < size:
            hand[1].append(pool.pop(0))
    while pool:  # the rest (minimum contracts only) where there is room
        target = min((h for h in hands if room(h)), key=lambda h: len(h[1]), default=hands[0])
        target[1].append(pool.pop(0))
    return hands
