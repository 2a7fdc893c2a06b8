"""Outs: the cards whose addition brings a hand closer to its contract."""

from __future__ import annotations

import itertools
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace

from ortools.sat.python import cp_model

from analyzer.cards import ALL_CARD_KINDS, JOKER, Card, Rank, Suit, natural
from analyzer.melds import card_at, run_places
from analyzer.result import LayDown, PlacedMeld
from analyzer.rules import DeckRule, MeldKind, MeldSpec, Rules
from analyzer.solver.lay_down import (
    best_lay_down,
)
from analyzer.solver.model import (
    SUITS,
    Expr,
    Model,
    Problem,
    RunShape,
    Window,
    build_model,
    make_problem,
    runs_may_share_a_contract,
    sets_hold_naturals_only_when_laid,
    tightened,
)
from analyzer.solver.translate import (
    DeckTooSmall,
    RunSkeleton,
    SetSkeleton,
    Solution,
    Spare,
    new_solver,
    skeleton,
    translate_solution,
    wilds_used,
)
from analyzer.solver.work import OutsCutShort

# ---- outs: the cards that bring a hand closer -------------------------------------------------

LEAST_SOLVE_TIME = 0.001  # seconds: CP-SAT needs a time limit above 0


def _left(ends: float) -> float:
    """Seconds left until ``ends`` (a ``time.monotonic()`` moment), for the next solve."""
    return max(LEAST_SOLVE_TIME, ends - time.monotonic())


def _spent(ends: float) -> bool:
    return time.monotonic() >= ends


class _Unproven(Exception):
    """A solve stopped at its time or work limit before it could say yes or no (CP-SAT's
    UNKNOWN): its no would be a guess, and a guessed no would drop outs without a word."""


def find_outs(hand: tuple[Card, ...], rules: Rules, round_number: int, deck: DeckRule,
              time_limit: float, before_draw: bool = False, solved: LayDown | None = None,
              within: frozenset[Card] | None = None,
              known: KnownArrangements | None = None) -> tuple[LayDown, frozenset[Card]]:
    """The hand's lay-down answer and its *outs*: the distinct cards (naturals and the joker)
    whose addition lowers ``cards_away``. Empty when the hand can lay down, or never can.

    In a go-out round (counted in draws) a hand before the draw has as outs the cards whose
    draw lowers its distance: the hand with the card, as a hand after the draw, is closer. They
    are the missing cards of the best arrangements of the same size, one card more than the
    hand. (``before_draw=False`` there compares the hand with the hand plus the card, each as a
    hand after the draw, as ``analyzer.round_solver.outs_by_resolving`` does.)

    A card is an out exactly when some lay-down with the fewest missing cards has it among
    the missing ones (adding it then saves one; adding any card saves at most one). So the
    outs are the union of the missing cards over all best arrangements, collected by asking
    CP-SAT, again and again, for a best arrangement with as many not-yet-seen outs as it can.

    ``solved``: the hand's lay-down, if already solved (``solve_lay_down`` of the same hand,
    round and deck, nothing seen). Proven, it is the answer a solve here would give (the same
    model, the same parameters): no solve repeats it, and the outs are asked of a model built
    for them (a discard table solves each row's lay-down, then the outs of the best rows).

    ``within``: cards known to hold every out, if the caller knows such a bound (outside a
    go-out round, the outs of a hand one card larger and as far away: a card bringing this
    hand closer brings that one closer too). No card outside it is asked about, and the search
    ends once every card in it is an out; the outs are the same.

    ``known``: arrangements found for other hands of the same round and deck (the hands of one
    discard table), which may be best arrangements of this one too: this call reads outs off
    them, and adds those it finds.

    Raises ``OutsCutShort``, with the outs found so far, when the search stopped before it
    proved it had them all (at the time limit, or on a solve stopped by its time or work limit).
    """
    problem = make_problem(hand, rules, round_number, deck, before_draw)
    ends = time.monotonic() + time_limit  # the time limit bounds every solve below together
    built: Model | None
    if solved is not None and solved.proven_optimal:
        lay_down, built = solved, None
    else:
        lay_down, built = best_lay_down(problem, time_limit)
    if not lay_down.cards_away:
        return lay_down, frozenset()
    if problem.counted_by_window:
        # The lay-down's model, unless it came from one without the same-suit rule (``solve``)
        # or none was solved; the deck's limits as the lay-down needed them (a model that
        # ignores them restarts with them when an arrangement asks too much: ``_outs_by_union``).
        if built is None or not built.same_suit_rule:
            built = build_model(problem, built is not None and built.strict_deck)
        outs, complete = _outs_by_union(problem, lay_down, built, ends, within, known)
    elif problem.runs_by_window and (problem.target is None or problem.target > len(problem.hand)):
        # No per-meld wild limits: the window-counted model of the lay-down, asked for gap sites
        # (the lay-down's own, unless it fell back to the strict model, which takes slots, or
        # came from a model without the same-suit rule, or none was solved).
        # Not for a go-out hand after the draw: hand + card melds one card more there.
        window_model = (built if built is not None and not built.strict_deck and built.same_suit_rule
                        else build_model(problem, strict_deck=False))
        outs, complete = _outs_by_union(problem, lay_down, window_model, ends, within, known)
    else:
        # Per-meld wild limits (the Shanghai family): one model of the hand that names every
        # missing card (tried: a strict model with a site per card) proves more slowly than
        # asking which extra card brings the hand closer, of candidates a bound keeps few.
        outs, complete = _outs_by_resolving(problem, lay_down, ends, within, known)
    if not complete:
        raise OutsCutShort((lay_down, frozenset(outs)))
    return lay_down, frozenset(outs)


def _outs_by_union(problem: Problem, lay_down: LayDown, built: Model, ends: float,
                   within: frozenset[Card] | None = None,
                   known: KnownArrangements | None = None) -> tuple[set[Card], bool]:
    """Outs for window-counted runs (no per-meld wild limits), where any gap may take any wild
    card: exact contracts, and minimum contracts' relaxed model (may-i, eveleigh).

    In a best arrangement (``cards_away`` missing), a card is missing-able exactly where the
    arrangement has a *gap* it fits: a run position of its suit and rank, or a place in a set
    of its rank. (Whatever fills that gap, a wild card or another missing card, can trade
    places with it, since some other gap holds a missing card.) So the outs are the cards of
    the gaps of all best arrangements, plus the wild cards, which fit any gap, while the deck
    has one left. The loop collects gap sites until no best arrangement shows a new one; the
    gaps of best arrangements already known (the hand's witness, and those found for the other
    hands of a discard table, ``known``) are outs without asking, so the loop asks about fewer.

    The model ignores the deck's limits on missing cards (a stricter model costs a third more
    time); each arrangement it returns is checked against the deck, and if one fails the
    search restarts with the strict model. A "no new site" answer of the looser model holds
    for the strict one too.

    With the outs, whether the search proved it has them all (``_collect_gap_sites``).
    """
    assert lay_down.cards_away
    # A wild card (the joker, a wild 2) fits any gap.
    outs = {card for card in ALL_CARD_KINDS if problem.rules.is_wild(card) and problem.spare(card)}
    # The lay-down's own witness is a best arrangement: its gaps are where wilds or missing cards sit.
    outs |= _read_outs(problem, lay_down.with_missing, lay_down.missing)
    if known is not None:
        outs |= known.outs_of(problem, lay_down.cards_away)
        known.add(problem, lay_down.with_missing, lay_down.missing)
    try:
        # The lay-down's own model, asked a new question.
        return _collect_gap_sites(problem, lay_down.cards_away, ends, outs, built, within, known)
    except DeckTooSmall:
        if not problem.counted_by_window:  # a minimum contract's strict model takes slots
            return _outs_by_resolving(problem, lay_down, ends, within, known)
        strict = build_model(problem, strict_deck=True)
        return _collect_gap_sites(problem, lay_down.cards_away, ends, outs, strict, within)


def _collect_gap_sites(problem: Problem, cards_away: int, ends: float, outs: set[Card],
                       built: Model, within: frozenset[Card] | None = None,
                       known: KnownArrangements | None = None) -> tuple[set[Card], bool]:
    """``outs`` and the cards of the gap sites of best arrangements, found one arrangement at a
    time; and whether the last answer proved that no best arrangement shows another (False:
    the time ran out, or a solve stopped before it could prove that). A site whose cards are
    outs already or outside ``within`` (``find_outs``) shows nothing new."""
    outs = set(outs)
    if within is not None and within <= outs:
        return outs, True
    strict_deck = built.cover is not None
    model = built.model
    model.add(built.missing_total == cards_away)
    open_windows = _open_windows(problem, built, cards_away)
    if not tightened(problem):  # a go-out round's model has these rows already
        # Redundant for an arrangement, but without them the LP lays two thirds of a set of a
        # rank the hand holds two of, and its bound on the gap sites stays far above the truth:
        # CP-SAT branched for each "no new site" proof (with ``_open_windows`` and the sets'
        # site bound below, far less: docs/benchmarks.md).
        sets_hold_naturals_only_when_laid(model, problem, built.sets)

    sites = _run_gap_sites(problem, built, outs, open_windows) + _set_gap_sites(problem, built, outs)
    while not _spent(ends):
        fresh = [site for site, cards in sites if not _only_outs(cards, outs, within)]
        if not fresh:
            return outs, True
        model.maximize(sum(fresh))
        solver = new_solver(_left(ends))
        status = solver.solve(model)
        if status == cp_model.INFEASIBLE:
            return outs, True
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return outs, False  # stopped at its limit before finding any arrangement: unproven
        found = [cards for site, cards in sites if solver.value(site) and not _only_outs(cards, outs, within)]
        if not found:
            # A best arrangement with no new site proves none has one only if it is optimal
            # (FEASIBLE: stopped at its limit before proving the maximum is 0).
            return outs, status == cp_model.OPTIMAL
        if not strict_deck:
            # Raises if the deck cannot supply it. (The lay-down's own reading: for a minimum
            # contract, ``translate_by_window`` would count each meld at its contract size.)
            arrangement = translate_solution(problem, built, solver, True, False)
            if known is not None:
                known.add(problem, arrangement.melds, arrangement.missing)
        for cards in found:
            outs.update(cards)
        # Best arrangements often come in families (the same run one window over, the same set
        # of another rank): walk them in Python before asking CP-SAT again.
        runs, sets = skeleton(built, solver)
        outs |= _neighbour_outs(problem, runs, _placed_sets(built, solver, sets), wilds_used(built, solver))
    return outs, False  # past the time limit: the outs found so far


def _only_outs(cards: list[Card], outs: set[Card], within: frozenset[Card] | None) -> bool:
    """Whether a gap site's cards can add no out: each is an out already or outside ``within``."""
    return all(card in outs or within is not None and card not in within for card in cards)


# A gap site: a run position, or a rank for sets, with the cards that fit it; its variable is 1
# when the arrangement has a gap there.
_GapSite = tuple[cp_model.IntVar, list[Card]]


def _run_gap_sites(problem: Problem, built: Model, outs: set[Card], open_windows: set[Window]) -> list[_GapSite]:
    """A site per run position that some run on an open window covers, whose card the deck
    has and is not an out yet: 1 only when a run holds a gap there."""
    model = built.model
    # Per group of runs, the counts of the open windows over each (suit, position).
    open_over: list[dict[tuple[Suit, int], list[cp_model.IntVar]]] = []
    for g in built.windows:
        over: dict[tuple[Suit, int], list[cp_model.IntVar]] = {}
        for (s, first, last), c in g.count.items():
            if (s, first, last) in open_windows:
                for q in range(first, last + 1):
                    over.setdefault((s, q), []).append(c)
        open_over.append(over)

    def run_gap(suit: Suit, p: int) -> Expr:
        card = card_at(p, suit)
        covering = [over.get((suit, p), []) for over in open_over]
        if not any(covering):
            return 0  # no run of a best arrangement covers the place: no gap site
        return sum(sum(counts) - g.uses.get((card, p), 0) for g, counts in zip(built.windows, covering))

    sites: list[_GapSite] = []
    for suit in SUITS:
        for p in problem.positions:
            card = card_at(p, suit)
            gap = run_gap(suit, p)
            if problem.spare(card) and card not in outs and not isinstance(gap, int):
                site = model.new_bool_var(f"gap[{suit.value}{p}]")
                model.add(site <= gap)
                sites.append((site, [card]))
    return sites


def _set_gap_sites(problem: Problem, built: Model, outs: set[Card]) -> list[_GapSite]:
    """A site per rank (the ranks the hand lacks share one) whose cards the deck has and are
    not all outs yet: 1 only when a set of the rank has a place no natural of the hand takes."""
    model = built.model

    def set_gap(rank: Rank) -> Expr:
        """Places in sets of the rank that no natural of the hand takes."""
        return sum(g.spec.size * g.count[rank] - sum(u for c, u in g.uses.items() if c.rank == rank)
                   if g.pooled_wilds is not None else g.wilds[rank] + g.missing[rank]
                   for g in built.sets if rank in g.count)

    sites: list[_GapSite] = []
    held_ranks = {card.rank for card in problem.naturals}
    for rank in Rank:
        # The model offers sets of a few ranks the hand lacks, standing for all of them.
        ranks = [rank] if rank in held_ranks else [r for r in Rank if r not in held_ranks]
        fitting = [natural(r, s) for r in ranks for s in SUITS if problem.spare(natural(r, s))]
        gap = set_gap(rank)
        if fitting and not set(fitting) <= outs and not isinstance(gap, int):
            site = model.new_bool_var(f"gap[{rank.token}]")
            model.add(site <= gap)
            # Redundant for an arrangement, but it keeps the LP from showing a fraction of a
            # set's gap for a fraction of a set laid (``sets_hold_naturals_only_when_laid``).
            model.add(site <= sum(g.count[rank] for g in built.sets if rank in g.count))
            sites.append((site, fitting))
    return sites


def _open_windows(problem: Problem, built: Model, cards_away: int) -> set[Window]:
    """The run windows a best arrangement may lay a run on; the others are ruled out in the
    model (``count == 0``).

    A run's places the hand's naturals do not fill are gaps, and every gap holds one of the
    hand's wild cards or a missing card: so a run on a window holds at most ``cards_away``
    plus the hand's wild cards in gaps, and a window with more places than that beyond those
    where the hand holds a natural of its suit carries no run of a best arrangement. Under a
    minimum contract (go-out rounds, may-i, eveleigh) the windows run up to the longest run,
    hundreds of them (ill-buy-it round 8: 264 for its one run of four or more), most of them
    far too long for the hand; each gap site's sum runs over every window covering its place,
    and CP-SAT's LP and cuts over those dense rows made each solve slow. (In a go-out round
    the windows longer than the target leaves are not made at all: ``model.tightened``.) The
    rule holds for every solve of this question, so it is added once: the same arrangements
    stay possible, and the outs are the same."""
    gap_room = cards_away + sum(problem.counts[card] for card in problem.wild_kinds)
    open_windows: set[Window] = set()
    for group in built.windows:
        held: dict[Suit, set[int]] = {}
        for card, p in group.uses:
            assert card.suit is not None
            held.setdefault(card.suit, set()).add(p)
        for window, count in group.count.items():
            suit, first, last = window
            places = last - first + 1
            naturals = sum(1 for p in held.get(suit, ()) if first <= p <= last)
            if places - naturals > gap_room:
                built.model.add(count == 0)
            else:
                open_windows.add(window)
    return open_windows


def _placed_sets(built: Model, solver: cp_model.CpSolver, sets: list[SetSkeleton]) -> list[_Set]:
    """The sets of a window-counted solution for the neighbourhood walk, each with its places.
    With exact sizes, each set on its own at its contract size. Under a minimum contract the
    model counts only the places of all the sets of one rank together (their naturals, wild
    cards and missing cards), so those sets go as one block of that many places: moved to
    another rank together, as they are, they stay as legal and as long."""
    placed: list[_Set] = []
    # ``skeleton`` lists them group by group, rank by rank: the groups they come from, in turn.
    groups = [group for group in built.sets for count in group.count.values() if solver.value(count)]
    for group, (spec, rank, how_many, naturals) in zip(groups, sets, strict=True):
        if group.pooled_wilds is not None:
            placed += [(rank, spec.size, tuple(naturals[i::how_many])) for i in range(how_many)]
        else:
            places = len(naturals) + solver.value(group.wilds[rank]) + solver.value(group.missing[rank])
            placed.append((rank, places, tuple(naturals)))
    return placed


def _outs_by_resolving(problem: Problem, lay_down: LayDown, ends: float,
                       within: frozenset[Card] | None = None,
                       known: KnownArrangements | None = None) -> tuple[set[Card], bool]:
    """For rule sets whose runs take slots: which cards make hand + card closer, asked of one
    model where the extra card is a decision (``ExtraCard``): find a card that does, rule it
    out, ask again; the last solve, infeasible, proves that no card left does.

    Which cards it need not ask about, and why: docs/advice.md, "Outs asked card by card"; nor
    about a card outside ``within`` (``find_outs``).

    With the outs, whether the search proved it has them all (False: the time ran out, or a
    solve stopped at its time or work limit before it could say no)."""
    cards_away = lay_down.cards_away
    assert cards_away
    counted_as_missing = problem.target is None or problem.target > len(problem.hand)
    outs = set()
    if counted_as_missing:
        outs = _read_outs(problem, lay_down.with_missing, lay_down.missing)
        if known is not None:
            outs |= known.outs_of(problem, cards_away)
            known.add(problem, lay_down.with_missing, lay_down.missing)
    bound = MissingBound(problem) if counted_as_missing else None
    candidates = [card for card in ALL_CARD_KINDS if card not in outs and problem.spare(card)
                  and (within is None or card in within)
                  and not (bound and not bound.could_be_missing(card, cards_away))]
    if not candidates:
        return outs, True
    if _spent(ends):
        return outs, False
    extra = ExtraCard(problem, candidates, cards_away, melded=counted_as_missing)
    while extra.open:
        if _spent(ends):
            return outs, False
        try:
            card, solution = extra.closer(ends)
            if card is None:
                return outs, True  # proven: no candidate left brings the hand closer
            if solution is None:  # the deck could not supply the arrangement found: ask of this card alone
                solution = _closer_than(extra.with_card(card), cards_away, ends, card if counted_as_missing else None)
        except _Unproven:
            return outs, False  # the search would go on past a guessed no: it stops here
        if solution is not None:
            outs.add(card)
            if counted_as_missing:
                outs |= _read_outs(problem, solution.melds, solution.missing + (card,))
                if known is not None:
                    known.add(problem, solution.melds, solution.missing + (card,))
        extra.rule_out(outs | {card})
    return outs, True


class ExtraCard:
    """One model of the hand plus one card of the solver's choosing among ``candidates``,
    asking for fewer than ``cards_away`` missing cards (and, ``melded``, that the melds hold a
    copy of the chosen card).

    It is the model of a hand holding one more copy of every candidate, each copy usable only
    when its card is the one chosen; the deck is ignored (an answer whose arrangement the deck
    cannot supply is re-asked of that card alone, with the strict model). A no is final: it
    holds for each candidate's own model, and for its strict one."""

    def __init__(self, problem: Problem, candidates: list[Card], cards_away: int, melded: bool) -> None:
        self.problem = problem
        union = make_problem(problem.hand + tuple(candidates), problem.rules, problem.round_number, problem.deck,
                             options=problem.options)
        # hand + card is a hand after the draw (``make_problem`` of it): in a go-out round its
        # melds hold one card more than the hand.
        union = replace(union, target=None if problem.target is None else len(problem.hand) + 1)
        self.built = build_model(union, strict_deck=False)
        model = self.built.model
        model.clear_objective()
        model.add(self.built.missing_total <= cards_away - 1)
        self.chosen = {card: model.new_bool_var(f"extra[{card}]") for card in candidates}
        model.add_exactly_one(self.chosen.values())
        for card, chosen in self.chosen.items():
            copies = _copies_melded(self.built, card)
            model.add(copies <= problem.counts.get(card, 0) + chosen)
            if melded:
                model.add(copies >= chosen)
        self.open = set(candidates)

    def with_card(self, card: Card) -> Problem:
        problem = self.problem
        return make_problem(problem.hand + (card,), problem.rules, problem.round_number, problem.deck,
                            options=problem.options)

    def closer(self, ends: float) -> tuple[Card | None, Solution | None]:
        """A candidate whose hand + card is closer, with its arrangement (None when the deck
        cannot supply it); (None, None) when no candidate left is, proven. Raises ``_Unproven``
        when the solve stopped at its limit before it could tell."""
        solver = new_solver(_left(ends))
        # The LP that helps an optimising solve find and prove the best lay-down costs more
        # than it saves on this yes/no question over many cards (docs/benchmarks.md).
        solver.parameters.linearization_level = 1
        status = solver.solve(self.built.model)
        if status == cp_model.INFEASIBLE:
            return None, None
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            raise _Unproven
        card = next(c for c, chosen in self.chosen.items() if solver.value(chosen))
        try:
            return card, translate_solution(self.with_card(card), self.built, solver, False, False)
        except DeckTooSmall:
            return card, None

    def rule_out(self, cards: set[Card]) -> None:
        for card in cards & self.open:
            self.built.model.add(self.chosen[card] == 0)
        self.open -= cards


class KnownArrangements:
    """Arrangements found for some hands of one rule set, round and deck, kept for the others:
    an arrangement is one of any hand holding the cards it takes from a hand, with the same
    missing cards, if the deck has them beyond that hand (and, in a go-out round, the same
    number of cards in the melds). One whose missing cards are as few as a hand's cards away
    is a best arrangement of that hand, so its missing cards are outs of it (``find_outs``),
    and so are those one trade away, or in its gaps where any gap may take any wild card
    (``_read_outs``). The hands of a discard table differ
    by one card, so what one row's solves find often serves the next. Hands are worked out
    on two threads (``RoundSolver.prefetch_outs``): adding and reading take a lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # (rules, round, deck, the melds' size in a go-out round), the hand's cards the melds
        # take, the melds, the missing cards.
        self._found: list[tuple[tuple[object, ...], Counter[Card], tuple[PlacedMeld, ...], tuple[Card, ...]]] = []

    @staticmethod
    def _where(problem: Problem) -> tuple[object, ...]:
        return problem.rules, problem.round_number, problem.deck, problem.target

    def add(self, problem: Problem, melds: tuple[PlacedMeld, ...], missing: tuple[Card, ...]) -> None:
        taken = Counter(card for meld in melds for card in meld.cards) - Counter(missing)
        with self._lock:
            self._found.append((self._where(problem), taken, melds, missing))

    def outs_of(self, problem: Problem, cards_away: int) -> set[Card]:
        where, held = self._where(problem), Counter(problem.hand)
        with self._lock:
            found = list(self._found)
        outs: set[Card] = set()
        for place, taken, melds, missing in found:
            if (place == where and len(missing) == cards_away and not taken - held
                    and all(problem.spare(card) >= n for card, n in Counter(missing).items())):
                outs |= _read_outs(problem, melds, missing)
        return outs


def _read_outs(problem: Problem, melds: tuple[PlacedMeld, ...], missing: tuple[Card, ...]) -> set[Card]:
    """The outs one best arrangement of the hand (``melds``, holding the ``missing`` cards)
    shows: its missing cards, those one trade away (``_swapped_outs``), and where no meld
    limits its wild cards (``Problem.runs_by_window``), the cards of the places its wild cards
    fill (``_wild_places``); where each meld keeps its own wild cards (slot-modelled runs: the
    Shanghai family), the gaps of the arrangements one meld moved (``_moved_meld_outs``)."""
    outs = set(missing) | _swapped_outs(problem, melds, missing)
    if problem.runs_by_window:
        outs |= _wild_places(problem, melds)
    else:
        outs |= _moved_meld_outs(problem, melds, missing)
    return outs


def _wild_places(problem: Problem, melds: tuple[PlacedMeld, ...]) -> set[Card]:
    """The naturals that fit the places a best arrangement's wild cards fill: a run's place,
    or any suit of a set's rank, where the deck has a copy beyond the hand's. Where any gap
    may take any wild card, one of those wild cards can move to a missing card's place, and
    the natural then goes missing in its place instead (``_outs_by_union``)."""
    outs: set[Card] = set()
    for meld in melds:
        for card, meaning in zip(meld.cards, meld.stands_for):
            if card != meaning:
                assert meaning.rank is not None
                fits = (meaning,) if meld.kind == MeldKind.RUN else tuple(Card(meaning.rank, s) for s in SUITS)
                outs.update(c for c in fits if problem.spare(c))
    return outs


def _swapped_outs(problem: Problem, melds: tuple[PlacedMeld, ...], missing: tuple[Card, ...]) -> set[Card]:
    """More outs read off one best arrangement of the hand (``melds``, holding the ``missing``
    cards), whose missing cards are outs: the missing cards of the arrangements one trade away,
    which keep every meld's place and size, and its wild cards or lose one:
    - in a set, a missing natural traded for the same rank in another suit, or a missing wild
      card for a natural of the set's rank;
    - in a run, a missing wild card traded for the natural it stands for, or a missing natural
      traded with a wild card of the same run (the wild card moves to the missing natural's
      place, the natural of its old place goes missing).
    A swap is kept only when the deck has a copy of the new missing card beyond the hand's and
    the other missing cards'; the new missing card is never wild (no meld gains a wild card).
    Each such arrangement is as legal and as short as the first, so its missing cards are outs
    too (``find_outs``)."""
    counted = Counter(missing)
    rules = problem.rules
    outs: set[Card] = set()

    def trade(gone: Card, new: Card) -> None:
        if new not in outs and not rules.is_wild(new) and problem.spare(new) >= counted[new] + (new != gone):
            outs.add(new)

    for meld in melds:
        placed = list(zip(meld.cards, meld.stands_for))
        missing_here = [card for card, _ in placed if counted[card]]
        if meld.kind != MeldKind.RUN:
            rank = meld.stands_for[0].rank
            for gone in missing_here:
                for suit in SUITS:
                    trade(gone, Card(rank, suit))
            continue
        for card, meaning in placed:
            if card != meaning:  # a wild card: its place may hold the natural instead
                for gone in missing_here:
                    if gone == card or gone != meaning and not rules.is_wild(gone):
                        trade(gone, meaning)
    return outs


def _closer_than(problem: Problem, cards_away: int, ends: float, melded: Card | None = None) -> Solution | None:
    """An arrangement of ``problem`` with fewer than ``cards_away`` missing cards, if any. The
    model that ignores the deck answers first (a no is final); a yes it cannot show the deck
    supports goes to the strict model. ``melded``: a card the arrangement must meld (one that
    could only be closer by melding the card added), which proves a no sooner. Raises
    ``_Unproven`` when a solve stopped at its limit before it could tell."""
    for strict_deck in (False, True):
        built = build_model(problem, strict_deck=strict_deck)
        built.model.add(built.missing_total <= cards_away - 1)
        if melded is not None:
            built.model.add(_copies_melded(built, melded) >= 1)
        built.model.clear_objective()
        solver = new_solver(_left(ends))
        status = solver.solve(built.model)
        if status == cp_model.INFEASIBLE:
            return None
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            raise _Unproven
        try:
            return translate_solution(problem, built, solver, False, strict_deck)
        except DeckTooSmall:
            continue
    return None


def _copies_melded(built: Model, card: Card) -> Expr:
    """Copies of ``card`` the melds hold, as a natural or as a wild card."""
    in_runs = sum(use for slot in built.runs for (c, _), use in slot.uses.items() if c == card)
    in_windows = sum(use for group in built.windows for (c, _), use in group.uses.items() if c == card)
    in_sets = sum(group.uses[card] for group in built.sets if card in group.uses)
    return in_runs + in_windows + in_sets + built.wild_used.get(card, 0)


class MissingBound:
    """A necessary condition for a card to be missing in an arrangement with ``cards_away``
    missing cards: a lower bound on the missing cards of any arrangement holding it, which
    counts each meld of the contract on its own.

    A meld's *gap* is the fewest places the hand's naturals leave open in it (a run: in the
    best window of its contract size, in any suit; a set: the rank the hand holds most of);
    a longer meld leaves at least as many open, less the naturals beyond that window. The
    meld holding the card has the card's place open, whatever the hand holds. Each open place
    takes a missing card or one of the hand's wild cards, no more wild cards in a meld than the
    rules allow, and not the card's own place. Counting each meld on its own lets two melds
    claim the same natural, and ignores the same-suit rule and the deck, so the bound is never
    above the truth. A card the hand holds is missing only beside every held copy, melded
    (``_melds_holding_copies``): in a contract of runs, in as many more runs over its place,
    each counted with its gap in a window holding it."""

    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        self.wilds = sum(problem.counts[c] for c in problem.wild_kinds)
        self.held: dict[Suit | None, set[int]] = {}  # run positions the hand's naturals take, per suit
        self.of_rank: Counter[Rank | None] = Counter()  # the hand's naturals per rank
        for card in problem.naturals:
            self.held.setdefault(card.suit, set()).update(run_places(card, problem.rules))
            self.of_rank[card.rank] += problem.counts[card]
        self.gaps = [self._gap(spec) for spec in problem.contract]

    def _windows(self, size: int) -> list[range]:
        positions = self.problem.positions
        return [range(first, first + size) for first in positions if first + size - 1 in positions]

    def _gap(self, spec: MeldSpec) -> int:
        if spec.kind != MeldKind.RUN:
            return max(0, spec.size - max(self.of_rank.values(), default=0))
        return min((spec.size - len(held.intersection(window))
                    for held in self.held.values() for window in self._windows(spec.size)), default=spec.size)

    def _gap_with(self, spec: MeldSpec, card: Card) -> int | None:
        """The gap of a meld of this kind that holds ``card`` as a missing card (None: none can)."""
        if spec.kind != MeldKind.RUN:
            return spec.size - min(spec.size - 1, self.of_rank[card.rank])
        held = self.held.get(card.suit, set())
        return min((spec.size - len(held.intersection(window) - {p})
                    for p in run_places(card, self.problem.rules)
                    for window in self._windows(spec.size) if p in window), default=None)

    def _wild_room(self, gap: int) -> int:
        limit = self.problem.rules.max_wilds_per_meld
        return gap if limit is None else min(limit, gap)

    def _gap_holding(self, spec: MeldSpec, card: Card) -> int | None:
        """The gap of a run of this kind that holds one of the hand's copies of ``card`` (None:
        none can); the card has one run position."""
        (p,) = run_places(card, self.problem.rules)
        held = self.held.get(card.suit, set())
        return min((spec.size - len(held.intersection(window))
                    for window in self._windows(spec.size) if p in window), default=None)

    def _melds_holding_copies(self, card: Card) -> int | None:
        """When an arrangement that misses ``card`` must also meld every copy the hand holds,
        in runs of the card's suit that all cover its place, how many of those runs that takes
        (one copy a run); None when nothing so strict follows.

        A best arrangement misses a card the hand holds only if it melds every copy the hand
        holds: were one left over, it could take the missing copy's place, one missing card
        fewer, the melds as large and as legal (in a go-out round, as large as they must be).
        That needs the hand's melds free to take one more of its cards (no ``meld_at_most``);
        and it says where the copies go only when no set or pair could take them (a contract of
        runs) and the card has one run position (an ace low and high could lie in one run)."""
        problem = self.problem
        held = problem.counts.get(card, 0)
        if (not held or problem.meld_at_most is not None
                or any(spec.kind != MeldKind.RUN for spec in problem.contract)
                or len(run_places(card, problem.rules)) != 1):
            return None
        return held

    def could_be_missing(self, card: Card, cards_away: int) -> bool:
        if self.problem.rules.is_wild(card):
            return True
        copies = self._melds_holding_copies(card)
        for index, spec in enumerate(self.problem.contract):
            gap = self._gap_with(spec, card)
            if gap is None:
                continue
            others = self.gaps[:index] + self.gaps[index + 1:]
            if copies is None:
                choices = [others]
            else:
                # The missing copy and the hand's copies lie in as many runs of the card's suit,
                # all over its place: runs that overlap, where the same-suit rule allows it.
                (p,) = run_places(card, self.problem.rules)
                assert card.suit is not None
                if not runs_may_share_a_contract(self.problem.rules.same_suit_runs, (card.suit, p, 1),
                                                 ((card.suit, p, 1, ()),)):
                    continue  # the same-suit rule lets no two runs overlap: it cannot be missing
                rest = [i for i in range(len(self.problem.contract)) if i != index]
                choices = []
                for holding in itertools.combinations(rest, copies):
                    gaps = [self._gap_holding(self.problem.contract[i], card) if i in holding else self.gaps[i]
                            for i in rest]
                    if all(g is not None for g in gaps):
                        choices.append([g for g in gaps if g is not None])
            for chosen in choices:
                room = self._wild_room(gap - 1) + sum(self._wild_room(g) for g in chosen)
                if gap + sum(chosen) - min(self.wilds, room) <= cards_away:
                    return True
        return False


# ---- outs: best arrangements next to a known one -----------------------------------------------

# An arrangement for the neighbourhood walk: runs as ``RunShape``, sets as (rank, places,
# naturals), each set on its own, or under a minimum contract the sets of one rank as one block.
_Set = tuple[Rank, int, tuple[Card, ...]]
_NEIGHBOURHOOD_DEPTH = 1  # moves away from the arrangement CP-SAT found; it finds whatever lies beyond


def _neighbour_outs(problem: Problem, runs: list[RunSkeleton], start_sets: list[_Set],
                    hand_wilds: list[Card]) -> set[Card]:
    """Outs shown by best arrangements reachable from this one by moving one meld at a time:
    a run to another window, a set (``_placed_sets``) to another rank, keeping its places and
    as many of the hand's naturals, so that the melds hold as many cards (in a go-out round,
    the melds' size) with as many missing. Each arrangement visited must pass the same-suit
    rule and the deck (``_missing_cards``)."""
    start_runs = tuple(sorted((suit, positions[0], len(positions), tuple(sorted(naturals.items())))
                              for suit, positions, naturals in runs))
    hand = Counter(c for c in problem.hand if c in problem.naturals) - Counter(hand_wilds)
    layer = [(start_runs, tuple(sorted(start_sets)))]
    seen = set(layer)
    outs: set[Card] = set()
    for depth in range(_NEIGHBOURHOOD_DEPTH + 1):
        next_layer = []
        for arrangement in layer:
            if depth and _missing_cards(problem, *arrangement, len(hand_wilds)) is None:
                continue
            outs |= _gap_cards(problem, *arrangement)
            if depth < _NEIGHBOURHOOD_DEPTH:
                for neighbour in _moves(problem, hand, *arrangement):
                    if neighbour not in seen:
                        seen.add(neighbour)
                        next_layer.append(neighbour)
        layer = next_layer
    return outs


def _moves(problem: Problem, hand: Counter[Card], runs: tuple[RunShape, ...],
           sets: tuple[_Set, ...]) -> list[tuple[tuple[RunShape, ...], tuple[_Set, ...]]]:
    used = Counter(c for *_, naturals in runs for _, c in naturals) + Counter(c for *_, naturals in sets for c in naturals)
    found = []
    for i, (suit, first, size, naturals) in enumerate(runs):
        free = hand - used + Counter(c for _, c in naturals)
        others = runs[:i] + runs[i + 1:]
        for new_suit in SUITS:
            for new_first in problem.positions:
                if new_first + size - 1 not in problem.positions or (new_suit, new_first) == (suit, first):
                    continue
                taken: Counter[Card] = Counter()
                placed = []
                for p in range(new_first, new_first + size):
                    card = card_at(p, new_suit)
                    if free[card] > taken[card]:
                        taken[card] += 1
                        placed.append((p, card))
                if len(placed) == len(naturals) and runs_may_share_a_contract(
                        problem.rules.same_suit_runs, (new_suit, new_first, size), others):
                    moved = tuple(sorted(others + ((new_suit, new_first, size, tuple(placed)),)))
                    found.append((moved, sets))
    for j, (rank, size, set_naturals) in enumerate(sets):
        free = hand - used + Counter(set_naturals)
        others_sets = sets[:j] + sets[j + 1:]
        for new_rank in Rank:
            if new_rank == rank or (problem.rules.distinct_set_ranks and any(r == new_rank for r, *_ in others_sets)):
                continue
            of_rank = [c for c in sorted(free.elements()) if c.rank == new_rank][:size]
            if len(of_rank) == len(set_naturals):
                found.append((runs, tuple(sorted(others_sets + ((new_rank, size, tuple(of_rank)),)))))
    return found


def _gap_cards(problem: Problem, runs: tuple[RunShape, ...], sets: tuple[_Set, ...]) -> set[Card]:
    cards = set()
    for suit, first, size, naturals in runs:
        held = {p for p, _ in naturals}
        cards |= {card_at(p, suit) for p in range(first, first + size) if p not in held}
    for rank, size, set_naturals in sets:
        if len(set_naturals) < size:
            cards |= {natural(rank, s) for s in SUITS}
    return {card for card in cards if problem.spare(card)}


def _missing_cards(problem: Problem, runs: tuple[RunShape, ...], sets: tuple[_Set, ...], wilds: int) -> list[Card] | None:
    """The missing cards an arrangement needs once the hand's wilds fill the scarcest gaps,
    or None when the deck (with its jokers) cannot supply them."""
    spare = Spare(problem)
    run_gaps = [card_at(p, suit) for suit, first, size, naturals in runs
                for p in range(first, first + size) if p not in {q for q, _ in naturals}]
    set_gaps = [rank for rank, size, naturals in sets for _ in range(size - len(naturals))]
    gaps: list[list[Card]] = [[card] for card in run_gaps] + [[natural(r, s) for s in SUITS] for r in set_gaps]
    gaps.sort(key=lambda fits: max(spare[c] for c in fits))
    missing = []
    for fits in gaps[wilds:]:
        card = max(fits, key=lambda c: spare[c])
        if spare[card] <= 0:
            card = JOKER
            if spare[card] <= 0:
                return None
        spare[card] -= 1
        missing.append(card)
    return missing


# ---- outs: one meld moved, each meld keeping its own wild cards ---------------------------------


def _moved_meld_outs(problem: Problem, melds: tuple[PlacedMeld, ...], missing: tuple[Card, ...]) -> set[Card]:
    """Outs shown by the arrangements one move from a best one (``melds``, holding the
    ``missing`` cards) where each meld keeps its own wild cards, as per-meld wild limits ask
    (the Shanghai family): one meld moved, a run to another suit or window, a set to another
    rank, keeping its size, its wild cards (the hand's and missing ones) and as many of the
    hand's naturals as before; the other melds stay as they are.
    Why each is a best arrangement too: docs/advice.md, "One meld moved"."""
    rules = problem.rules
    spare = Spare(problem)
    all_missing = Counter(missing)
    naturals_in, absent_in = _naturals_by_meld(rules, melds, missing)
    hand = Counter(card for card in problem.hand if not rules.is_wild(card))
    runs: list[RunShape | None] = []  # the runs' suits and places, for the same-suit rule
    for meld in melds:
        suit = meld.stands_for[0].suit
        runs.append((suit, meld.run_places()[0], len(meld.cards), ()) if suit and meld.kind == MeldKind.RUN else None)
    set_ranks = [meld.stands_for[0].rank if meld.kind != MeldKind.RUN else None for meld in melds]
    outs: set[Card] = set()
    for index, meld in enumerate(melds):
        absent = absent_in[index]
        if not absent or any(rules.is_wild(card) and card == meaning
                             for card, meaning in zip(meld.cards, meld.stands_for)):
            continue  # no missing natural to move about, or a wild 2 counted as a natural
        free = Counter(hand)  # the hand's naturals the other melds leave
        for j, taken in enumerate(naturals_in):
            if j != index:
                free -= taken
        others_missing = all_missing - absent

        def available(card: Card, others_missing: Counter[Card] = others_missing) -> int:
            """Copies the deck has for the moved meld, beyond the hand's and the other missing cards."""
            return spare[card] - others_missing[card]

        naturals = sum(naturals_in[index].values())
        moved = _Moved(len(meld.cards), naturals, len(meld.cards) - naturals - sum(absent.values()), free, available)
        shape = runs[index]
        if shape is not None:
            other_runs = tuple(run for j, run in enumerate(runs) if j != index and run is not None)
            outs |= _moved_run_outs(problem, moved, shape, other_runs)
        else:
            outs |= _moved_set_outs(problem, moved, set_ranks[index], set_ranks)
    return outs


def _naturals_by_meld(rules: Rules, melds: tuple[PlacedMeld, ...],
                      missing: tuple[Card, ...]) -> tuple[list[Counter[Card]], list[Counter[Card]]]:
    """Per meld: the hand's naturals in it, and its missing naturals. (Copies of a card are
    alike, so which meld's copy counts as the missing one does not matter.)"""
    unassigned = Counter(missing)
    naturals_in: list[Counter[Card]] = []
    absent_in: list[Counter[Card]] = []
    for meld in melds:
        held, absent = Counter[Card](), Counter[Card]()
        for card in meld.cards:
            if rules.is_wild(card):
                continue  # a wild card, the hand's or missing, stays with its meld
            if unassigned[card]:
                unassigned[card] -= 1
                absent[card] += 1
            else:
                held[card] += 1
        naturals_in.append(held)
        absent_in.append(absent)
    return naturals_in, absent_in


@dataclass(frozen=True)
class _Moved:
    """The meld being moved: its size, the hand's naturals and the wild cards it keeps, the
    hand's naturals the other melds leave (``free``), and the copies of a card the deck has for
    it beyond the hand's and the other melds' missing cards (``available``)."""

    size: int
    naturals: int
    wilds: int
    free: Counter[Card]
    available: Callable[[Card], int]


def _moved_run_outs(problem: Problem, moved: _Moved, shape: RunShape, other_runs: tuple[RunShape, ...]) -> set[Card]:
    """The outs of a run moved to another suit or window, under the ace rule and the same-suit
    rule, holding as many of the hand's naturals."""
    size, free = moved.size, moved.free
    outs: set[Card] = set()
    for suit in SUITS:
        for first in problem.positions:
            if (first + size - 1 not in problem.positions or (suit, first) == shape[:2]
                    or not runs_may_share_a_contract(problem.rules.same_suit_runs, (suit, first, size), other_runs)):
                continue
            taken, gaps = Counter[Card](), []
            for p in range(first, first + size):
                card = card_at(p, suit)
                if free[card] > taken[card]:
                    taken[card] += 1
                else:
                    gaps.append(card)
            if size - len(gaps) == moved.naturals:
                outs |= _run_gap_outs(gaps, moved.wilds, moved.available)
    return outs


def _moved_set_outs(problem: Problem, moved: _Moved, rank: Rank | None,
                    set_ranks: list[Rank | None]) -> set[Card]:
    """The outs of a set moved to another rank (one no other set has, under distinct set
    ranks) with as many of the hand's naturals, when the deck has its missing cards."""
    rules, available = problem.rules, moved.available
    outs: set[Card] = set()
    for new_rank in Rank:
        if new_rank == rank or (rules.distinct_set_ranks and new_rank in set_ranks):
            continue
        fitting = [Card(new_rank, suit) for suit in SUITS]
        if sum(moved.free[card] for card in fitting) != moved.naturals:
            continue
        absent_count = moved.size - moved.naturals - moved.wilds
        if sum(max(0, available(card)) for card in fitting) >= absent_count:
            outs.update(card for card in fitting if available(card) > 0)
    return outs


def _run_gap_outs(gaps: list[Card], wilds: int, available: Callable[[Card], int]) -> set[Card]:
    """The gap cards of a moved run that can be missing: for each, its wild cards fill the
    other gaps the deck has fewest of, and the deck must have what is left missing."""
    outs = set()
    for index, card in enumerate(gaps):
        if available(card) <= 0:
            continue
        others = sorted(gaps[:index] + gaps[index + 1:], key=available)
        absent = Counter(others[wilds:]) + Counter([card])
        if all(available(c) >= n for c, n in absent.items()):
            outs.add(card)
    return outs
