"""The lay-down solver: one CP-SAT model for the best lay-down of a contract, or the fewest
cards that would make it possible (docs/lay-down.md says exactly what is computed).

Model, in words. Every card the hand could use is counted, never placed one by one:

- *Run slots*: one per run of the contract, each with a suit, a first and a last position
  (1 = low ace ... 14 = high ace), and for each natural card of the hand whether the run uses it.
  Positions of the run that no natural fills are *gaps*, filled by the hand's wild cards or by
  *missing* cards (cards the hand does not have).
- *Set groups*: sets (and pairs) of one size are counted per rank: how many sets of rank r the
  contract takes, how many of the hand's naturals of rank r they use, how many wild cards and
  how many missing cards fill them. Counting by rank is exact: one rank's sets are then dealt out
  so each set keeps to the per-meld limits (``_deal_sets``).
- The objective is lexicographic, in one number: fewest missing cards first (that is "cards
  away"), then most penalty points melded, i.e. fewest leftover points.

A missing card is taken to be the natural card it stands for; the deck may not hold enough of
it when the hand already has copies. The first solve ignores that (it is rare); when the answer
needs more copies than the deck has, a second, stricter model places wild cards position by
position and counts missing copies per card and missing jokers.

CP-SAT types never leave this module.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ortools.sat.python import cp_model
from ortools.sat.python import cp_model_helper

from analyzer.cards import JOKER, Card, Rank, Suit, sorted_cards
from analyzer.hand import deck_copies
from analyzer.result import LayDown, PlacedMeld
from analyzer.rules import ContractMode, DeckRule, MeldKind, MeldSpec, Rules, SameSuitRuns

SUITS = tuple(Suit)
LOW_ACE, HIGH_ACE = 1, 14


def _position_rank(position: int) -> Rank:
    return Rank.ACE if position in (LOW_ACE, HIGH_ACE) else Rank(position)


def _positions_of(card: Card, rules: Rules) -> tuple[int, ...]:
    """Run positions a natural card can take: an ace low and/or high, other ranks their own."""
    assert card.rank is not None
    if card.rank != Rank.ACE:
        return (int(card.rank),)
    return tuple(p for p, allowed in ((LOW_ACE, rules.ace_low), (HIGH_ACE, rules.ace_high)) if allowed)


# ---- the problem, in plain data --------------------------------------------------------------


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
    naturals: tuple[Card, ...]  # distinct cards that can stand for themselves (wild 2s too)
    wild_kinds: tuple[Card, ...]  # distinct wild cards in the hand (the joker, wild 2s)
    positions: tuple[int, ...]  # run positions that exist under the ace rule

    @property
    def run_specs(self) -> list[MeldSpec]:
        return [spec for spec in self.contract if spec.kind == MeldKind.RUN]

    @property
    def set_groups(self) -> dict[MeldSpec, int]:
        """Set-like contract entries by (kind, size), with how many of each."""
        return dict(Counter(spec for spec in self.contract if spec.kind != MeldKind.RUN))

    def points(self, card: Card) -> int:
        return self.rules.points_of(card)


def make_problem(hand: tuple[Card, ...], rules: Rules, round_number: int, deck: DeckRule) -> Problem:
    rule = rules.round(round_number)
    counts = Counter(hand)
    distinct = sorted_cards(counts)
    return Problem(
        hand=sorted_cards(hand),
        rules=rules,
        round_number=round_number,
        deck=deck,
        contract=rule.contract,
        go_out=rule.go_out,
        minimum=rule.go_out or rules.contract_mode == ContractMode.MINIMUM,
        counts=dict(counts),
        naturals=tuple(card for card in distinct if not card.is_joker),
        wild_kinds=tuple(card for card in distinct if rules.is_wild(card)),
        positions=tuple(
            p for p in range(LOW_ACE, HIGH_ACE + 1)
            if (p != LOW_ACE or rules.ace_low) and (p != HIGH_ACE or rules.ace_high)
        ),
    )


# ---- variables, kept by meaning ------------------------------------------------------------


@dataclass
class RunSlot:
    spec: MeldSpec
    suit: dict[Suit, cp_model.IntVar]  # 1: the run is in this suit
    start: dict[int, cp_model.IntVar]  # 1: the run's first position is p
    end: dict[int, cp_model.IntVar]  # 1: the run's last position is p
    covers: dict[int, cp_model.LinearExprT]  # 1: position p is in the run (an expression)
    uses: dict[tuple[Card, int], cp_model.IntVar]  # 1: the run holds this natural at position p
    wilds: cp_model.IntVar  # the hand's wild cards in the run
    missing_jokers: cp_model.IntVar | None  # strict model: missing cards that must be jokers
    wild_at: dict[int, cp_model.IntVar] = field(default_factory=dict)  # strict: a wild at p

    def length(self) -> cp_model.LinearExprT:
        return sum(self.covers.values())

    def naturals_used(self) -> cp_model.LinearExprT:
        return sum(self.uses.values())

    def missing(self) -> cp_model.LinearExprT:
        """Gaps not filled by the hand's wild cards."""
        return self.length() - self.naturals_used() - self.wilds


@dataclass
class RunWindows:
    """Runs of one exact size, counted per window (suit, first position), with the hand's
    naturals counted per position: no slots, so no symmetric copies of one solution. Used for
    exact contracts without per-meld wild limits, where any gap may take any wild card."""

    spec: MeldSpec
    how_many: int
    count: dict[tuple[Suit, int], cp_model.IntVar]  # runs laid on window (suit, first position)
    present: dict[tuple[Suit, int], cp_model.IntVar]  # 1: at least one run on this window
    uses: dict[tuple[Card, int], cp_model.IntVar]  # copies of a natural the runs hold at position p
    wilds: cp_model.IntVar  # the hand's wild cards in these runs

    def missing(self) -> cp_model.LinearExprT:
        return self.spec.size * self.how_many - sum(self.uses.values()) - self.wilds


@dataclass
class SetGroup:
    spec: MeldSpec
    count: dict[Rank, cp_model.IntVar]  # how many sets of this size have rank r
    uses: dict[Card, cp_model.IntVar]  # how many of the hand's copies of a natural they hold
    wilds: dict[Rank, cp_model.IntVar]  # the hand's wild cards in the sets of rank r
    missing: dict[Rank, cp_model.IntVar]  # missing natural cards of rank r in them
    missing_jokers: dict[Rank, cp_model.IntVar]  # strict model: missing jokers in them
    pooled_wilds: cp_model.IntVar | None = None  # exact sizes, no wild limits: wilds for all ranks

    def wild_total(self) -> cp_model.LinearExprT:
        return self.pooled_wilds if self.pooled_wilds is not None else sum(self.wilds.values())

    def missing_total(self) -> cp_model.LinearExprT:
        if self.pooled_wilds is not None:
            uses = sum(self.uses.values())
            return self.spec.size * sum(self.count.values()) - uses - self.pooled_wilds
        return sum(self.missing.values()) + sum(self.missing_jokers.values())


@dataclass
class Model:
    model: cp_model.CpModel
    runs: list[RunSlot]
    windows: list[RunWindows]
    sets: list[SetGroup]
    wild_used: dict[Card, cp_model.IntVar]  # how many of each wild card melds use as a wild
    missing_total: cp_model.LinearExprT
    points_melded: cp_model.LinearExprT


# ---- building the model ------------------------------------------------------------------------


class _CpModel(cp_model.CpModel):
    """``CpModel`` without the camelCase aliases it attaches to every new instance: that costs
    half a millisecond a model, a fifth of a typical analysis (profiled with cProfile)."""

    def __init__(self) -> None:
        cp_model_helper.CpBaseModel.__init__(self, None)



def build_model(problem: Problem, strict_deck: bool) -> Model:
    model = _CpModel()
    rules = problem.rules
    # Exact contracts count runs per window; minimum and go-out contracts (runs of any length)
    # and the strict deck model use one slot per run.
    use_windows = (not problem.minimum and not strict_deck and rules.max_wilds_per_meld is None
                   and rules.wilds_may_outnumber_naturals)
    runs = [] if use_windows else [_run_slot(model, problem, spec, index, strict_deck)
                                   for index, spec in enumerate(problem.run_specs)]
    windows = [_run_windows(model, problem, spec, how_many)
               for spec, how_many in Counter(problem.run_specs).items()] if use_windows else []
    sets = [_set_group(model, problem, spec, count, strict_deck)
            for spec, count in problem.set_groups.items()]

    # Runs of one contract entry are interchangeable: keep them in (suit, start) order.
    for first, second in zip(runs, runs[1:]):
        if first.spec == second.spec:
            model.add(_run_key(first) <= _run_key(second))
    _same_suit_policy(model, runs, rules.same_suit_runs)
    _same_suit_policy_windows(model, windows, rules.same_suit_runs)
    if rules.distinct_set_ranks:
        for rank in Rank:
            model.add(sum(group.count[rank] for group in sets if rank in group.count) <= 1)

    # Wild cards: each one used at most once, as a wild or (a wild 2) as itself.
    wild_used = {card: model.new_int_var(0, problem.counts[card], f"wild_used[{card}]")
                 for card in problem.wild_kinds}
    model.add(sum(wild_used.values()) == sum(slot.wilds for slot in runs)
              + sum(group.wilds for group in windows) + sum(g.wild_total() for g in sets))

    # Natural cards: no more copies than the hand holds; all of them in a go-out round.
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
    for card in problem.naturals:
        used = sum(natural_uses[card]) + (wild_used[card] if card in wild_used else 0)
        if problem.go_out:
            model.add(used == problem.counts[card])
        else:
            model.add(used <= problem.counts[card])
    if problem.go_out and JOKER in wild_used:
        model.add(wild_used[JOKER] == problem.counts[JOKER])

    if strict_deck:
        _strict_deck_limits(model, problem, runs, sets)

    missing_total = (sum(slot.missing() for slot in runs) + sum(group.missing() for group in windows)
                     + sum(g.missing_total() for g in sets)
                     + sum(slot.missing_jokers for slot in runs if slot.missing_jokers is not None))
    points_melded = (
        sum(problem.points(card) * sum(uses) for card, uses in natural_uses.items())
        + sum(problem.points(card) * u for card, u in wild_used.items())
    )
    # One missing card outweighs every point the hand holds.
    missing_weight = sum(problem.points(card) for card in problem.hand) + 1
    model.minimize(missing_weight * missing_total - points_melded)
    return Model(model, runs, windows, sets, wild_used, missing_total, points_melded)


def _run_windows(model: cp_model.CpModel, problem: Problem, spec: MeldSpec, how_many: int) -> RunWindows:
    rules, name, size = problem.rules, f"run{spec.size}", spec.size
    windows = [(suit, first) for suit in SUITS for first in problem.positions
               if first + size - 1 in problem.positions]
    top = 1 if rules.same_suit_runs == SameSuitRuns.GAP else how_many  # gap: no overlap at all
    count = {w: model.new_int_var(0, top, f"{name}.count[{w[0].value}{w[1]}]") for w in windows}
    model.add(sum(count.values()) == how_many)
    present = {}
    if rules.same_suit_runs in (SameSuitRuns.NO_TOUCH, SameSuitRuns.GAP) and len(problem.run_specs) > 1:
        for w, c in count.items():
            present[w] = model.new_bool_var(f"{name}.present[{w[0].value}{w[1]}]")
            model.add(c <= top * present[w])
    covering: dict[tuple[Suit, int], list[cp_model.IntVar]] = {}  # runs covering (suit, position)
    for (suit, first), c in count.items():
        for p in range(first, first + size):
            covering.setdefault((suit, p), []).append(c)
    uses: dict[tuple[Card, int], cp_model.IntVar] = {}
    for card in problem.naturals:
        assert card.suit is not None
        for p in _positions_of(card, rules):
            # Each run covering this card's position may hold one copy of it.
            use = model.new_int_var(0, min(how_many, problem.counts[card]), f"{name}.use[{card},{p}]")
            model.add(use <= sum(covering[card.suit, p]))
            uses[card, p] = use
    total_wild_cards = sum(problem.counts[c] for c in problem.wild_kinds)
    wilds = model.new_int_var(0, min(total_wild_cards, size * how_many), f"{name}.wilds")
    group = RunWindows(spec, how_many, count, present, uses, wilds)
    model.add(group.missing() >= 0)
    return group


def _same_suit_policy_windows(model: cp_model.CpModel, groups: list[RunWindows], policy: SameSuitRuns) -> None:
    """The same-suit rule between windows that hold runs (exact contracts)."""
    if policy == SameSuitRuns.FREE:
        return
    placed = [(group.spec.size, w, group.present[w]) for group in groups for w in group.present]
    if policy == SameSuitRuns.DISTINCT_SUITS:
        for suit in SUITS:
            model.add(sum(g.count[w] for g in groups for w in g.count if w[0] == suit) <= 1)
        return
    for i, (size_a, (suit_a, first_a), a) in enumerate(placed):
        for size_b, (suit_b, first_b), b in placed[i + 1:]:
            if suit_a != suit_b:
                continue
            last_a, last_b = first_a + size_a - 1, first_b + size_b - 1
            touching = last_a + 1 == first_b or last_b + 1 == first_a
            overlapping = first_a <= last_b and first_b <= last_a
            if touching or (policy == SameSuitRuns.GAP and overlapping):
                model.add(a + b <= 1)


def _run_slot(model: cp_model.CpModel, problem: Problem, spec: MeldSpec, index: int,
              strict_deck: bool) -> RunSlot:
    rules, positions, name = problem.rules, problem.positions, f"run{index}"
    longest = min(rules.max_run_length, len(positions)) if problem.minimum else spec.size
    first, last = positions[0], positions[-1]
    suit = {s: model.new_bool_var(f"{name}.suit[{s.value}]") for s in SUITS}
    model.add_exactly_one(suit.values())
    start = {p: model.new_bool_var(f"{name}.start[{p}]") for p in positions if p + spec.size - 1 <= last}
    model.add_exactly_one(start.values())
    if problem.minimum:
        end = {p: model.new_bool_var(f"{name}.end[{p}]") for p in positions if p - spec.size + 1 >= first}
        model.add_exactly_one(end.values())
        start_at = sum(p * v for p, v in start.items())
        end_at = sum(p * v for p, v in end.items())
        model.add(end_at - start_at + 1 >= spec.size)
        model.add(end_at - start_at + 1 <= longest)
        covers = {p: sum(v for s, v in start.items() if s <= p) - sum(v for e, v in end.items() if e < p)
                  for p in positions}
    else:
        end = {}
        covers = {p: sum(v for s, v in start.items() if p - spec.size < s <= p) for p in positions}

    uses: dict[tuple[Card, int], cp_model.IntVar] = {}
    for card in problem.naturals:
        assert card.suit is not None
        for p in _positions_of(card, rules):
            use = model.new_bool_var(f"{name}.use[{card},{p}]")
            model.add_implication(use, suit[card.suit])
            uses[card, p] = use
    for p in positions:
        at_p = [u for (card, q), u in uses.items() if q == p]
        if at_p:  # at most one card per position, and only on positions the run covers
            model.add(sum(at_p) <= covers[p])

    total_wild_cards = sum(problem.counts[c] for c in problem.wild_kinds)
    wilds = model.new_int_var(0, min(total_wild_cards, longest), f"{name}.wilds")
    missing_jokers = None
    wild_limit: cp_model.LinearExprT = wilds
    if strict_deck:
        spare_jokers = max(0, problem.deck.jokers - problem.counts.get(JOKER, 0))
        missing_jokers = model.new_int_var(0, min(spare_jokers, longest), f"{name}.missing_jokers")
        wild_limit = wilds + missing_jokers
    slot = RunSlot(spec, suit, start, end, covers, uses, wilds, missing_jokers)
    model.add(slot.missing() >= 0)
    if rules.max_wilds_per_meld is not None:
        model.add(wild_limit <= rules.max_wilds_per_meld)
    if not rules.wilds_may_outnumber_naturals:
        model.add(2 * wild_limit <= slot.length())
    return slot


def _run_key(slot: RunSlot) -> cp_model.LinearExprT:
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
            for a, b in ((one, other), (other, one)):
                # a ends right before b starts: the two would read as one long run.
                for p in a.covers:
                    if p + 1 in b.start:
                        a_ends_at_p = a.end.get(p, 0) if a.end else _ends_at(a, p)
                        model.add(same_suit + a_ends_at_p + b.start[p + 1] <= 2)
            if policy == SameSuitRuns.GAP:
                for p in one.covers:
                    model.add(same_suit + one.covers[p] + other.covers[p] <= 2)


def _ends_at(slot: RunSlot, position: int) -> cp_model.LinearExprT:
    """For a fixed-length run: 1 when its last position is ``position``."""
    size = slot.spec.size
    return slot.start.get(position - size + 1, 0)


def _set_group(model: cp_model.CpModel, problem: Problem, spec: MeldSpec, how_many: int,
               strict_deck: bool) -> SetGroup:
    rules, name = problem.rules, f"{spec.kind.value}{spec.size}"
    held_ranks = {card.rank for card in problem.naturals}
    # Ranks the hand lacks are all alike here; a few of them stand for the rest (enough to
    # give every set its own rank when the rules ask for distinct ranks).
    absent = [r for r in Rank if r not in held_ranks][:len(problem.contract)]
    ranks = [r for r in Rank if r in held_ranks or r in absent]
    total_wild_cards = sum(problem.counts[c] for c in problem.wild_kinds)
    spare_jokers = max(0, problem.deck.jokers - problem.counts.get(JOKER, 0))
    big = spec.size * how_many + len(problem.hand)  # no group of sets can hold more cards

    count: dict[Rank, cp_model.IntVar] = {}
    uses: dict[Card, cp_model.IntVar] = {}
    wilds: dict[Rank, cp_model.IntVar] = {}
    missing: dict[Rank, cp_model.IntVar] = {}
    missing_jokers: dict[Rank, cp_model.IntVar] = {}
    top = 1 if rules.distinct_set_ranks else how_many
    if not problem.minimum and not strict_deck and rules.max_wilds_per_meld is None \
            and rules.wilds_may_outnumber_naturals:
        # Exact sizes and no wild limits: any gap of any set may take any wild card, so only
        # the naturals are counted per rank.
        for r in ranks:
            count[r] = model.new_int_var(0, top, f"{name}.count[{r.token}]")
            of_rank = []
            for card in problem.naturals:
                if card.rank == r:
                    uses[card] = model.new_int_var(0, problem.counts[card], f"{name}.use[{card}]")
                    of_rank.append(uses[card])
            if of_rank:
                model.add(sum(of_rank) <= spec.size * count[r])
        model.add(sum(count.values()) == how_many)
        pooled = model.new_int_var(0, min(total_wild_cards, spec.size * how_many), f"{name}.wilds")
        group = SetGroup(spec, count, uses, wilds, missing, missing_jokers, pooled)
        model.add(group.missing_total() >= 0)
        return group
    for r in ranks:
        count[r] = model.new_int_var(0, top, f"{name}.count[{r.token}]")
        for card in problem.naturals:
            if card.rank == r:
                uses[card] = model.new_int_var(0, problem.counts[card], f"{name}.use[{card}]")
        wilds[r] = model.new_int_var(0, total_wild_cards, f"{name}.wilds[{r.token}]")
        missing[r] = model.new_int_var(0, spec.size * how_many, f"{name}.missing[{r.token}]")
        wild_like: cp_model.LinearExprT = wilds[r]
        if strict_deck:
            missing_jokers[r] = model.new_int_var(0, spare_jokers, f"{name}.missing_jokers[{r.token}]")
            wild_like = wilds[r] + missing_jokers[r]
        naturals = sum(u for card, u in uses.items() if card.rank == r) + missing[r]
        cards = naturals + wild_like
        if problem.minimum:
            model.add(cards >= spec.size * count[r])
            model.add(cards <= big * count[r])
            # Missing cards only ever make up a shortfall.
            model.add(missing[r] <= spec.size * count[r])
        else:
            model.add(cards == spec.size * count[r])
        if rules.max_wilds_per_meld is not None:
            model.add(wild_like <= rules.max_wilds_per_meld * count[r])
        if not rules.wilds_may_outnumber_naturals:
            # Necessary and sufficient for dealing the rank's cards into sets that each hold
            # no more wild cards than natural ones (see _deal_sets).
            if problem.minimum:
                model.add(wild_like <= naturals)
                model.add(naturals >= (spec.size + 1) // 2 * count[r])
            else:
                model.add(wild_like <= spec.size // 2 * count[r])
    model.add(sum(count.values()) == how_many)
    return SetGroup(spec, count, uses, wilds, missing, missing_jokers)


def _strict_deck_limits(model: cp_model.CpModel, problem: Problem, runs: list[RunSlot],
                        sets: list[SetGroup]) -> None:
    """Missing cards must exist: per card, no more missing copies than the deck has left."""
    spare_jokers = max(0, problem.deck.jokers - problem.counts.get(JOKER, 0))
    model.add(sum(s.missing_jokers for s in runs if s.missing_jokers is not None)
              + sum(sum(g.missing_jokers.values()) for g in sets) <= spare_jokers)
    # In runs, place wild-like cards (the hand's wilds, missing jokers) position by position;
    # every other gap is a missing natural of that suit and position.
    missing_at: dict[tuple[Suit, int], list[cp_model.LinearExprT]] = {}
    for index, slot in enumerate(runs):
        assert slot.missing_jokers is not None
        slot.wild_at = {p: model.new_bool_var(f"run{index}.wild_at[{p}]") for p in slot.covers}
        model.add(sum(slot.wild_at.values()) == slot.wilds + slot.missing_jokers)
        for p, covered in slot.covers.items():
            gap = covered - sum(u for (c, q), u in slot.uses.items() if q == p) - slot.wild_at[p]
            model.add(gap >= 0)
            for s in SUITS:
                # 1: slot is in suit s and misses the natural at p.
                missed = model.new_bool_var(f"run{index}.missed[{s.value},{p}]")
                model.add(missed >= gap + slot.suit[s] - 1)
                missing_at.setdefault((s, p), []).append(missed)
    for rank in Rank:
        run_missing_of_rank: list[cp_model.LinearExprT] = []
        for s in SUITS:
            card = Card(rank, s)
            spare = max(0, deck_copies(card, problem.deck) - problem.counts.get(card, 0))
            here = [v for p in ((LOW_ACE, HIGH_ACE) if rank == Rank.ACE else (int(rank),))
                    for v in missing_at.get((s, p), [])]
            if here:
                model.add(sum(here) <= spare)
            run_missing_of_rank += here
        spare_of_rank = sum(max(0, deck_copies(Card(rank, s), problem.deck) - problem.counts.get(Card(rank, s), 0))
                            for s in SUITS)
        model.add(sum(run_missing_of_rank) + sum(g.missing[rank] for g in sets if rank in g.missing)
                  <= spare_of_rank)


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


def solve(problem: Problem, time_limit: float, strict_deck: bool = False) -> Solution:
    built = build_model(problem, strict_deck)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1  # deterministic, and models are small
    solver.parameters.random_seed = 0
    solver.parameters.max_time_in_seconds = time_limit
    # These models are small: CP-SAT's presolve, probing and symmetry search cost more than
    # they save (measured in analyzer.bench), and a stronger LP relaxation pays for itself.
    solver.parameters.cp_model_presolve = False
    solver.parameters.cp_model_probing_level = 0
    solver.parameters.symmetry_level = 0
    solver.parameters.linearization_level = 2
    status = solver.solve(built.model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        raise NoLayDown(proven=status == cp_model.INFEASIBLE)
    return _translate(problem, built, solver, status == cp_model.OPTIMAL, strict_deck)


class _Spare(dict[Card, int]):
    """Copies of each card the deck has beyond the hand's, worked out when first asked."""

    def __init__(self, problem: Problem) -> None:
        super().__init__()
        self.problem = problem

    def __missing__(self, card: Card) -> int:
        self[card] = max(0, deck_copies(card, self.problem.deck) - self.problem.counts.get(card, 0))
        return self[card]


class _DeckTooSmall(Exception):
    """The relaxed model asked for a missing card the deck no longer has."""


def _translate(problem: Problem, built: Model, solver: cp_model.CpSolver, optimal: bool,
               strict_deck: bool) -> Solution:
    rules = problem.rules
    # Hand out the wild cards melds use: jokers first, then wild 2s in card order.
    wild_pool: list[Card] = []
    for card in sorted(built.wild_used, key=lambda c: (not c.is_joker, c.sort_key())):
        wild_pool += [card] * solver.value(built.wild_used[card])
    spare = _Spare(problem)
    missing: list[Card] = []
    melds: list[PlacedMeld] = []

    def missing_card(card: Card) -> Card:
        if spare[card] <= 0:
            raise _DeckTooSmall(card)
        spare[card] -= 1
        missing.append(card)
        return card

    def place_run(suit: Suit, covered: list[int], natural_at: dict[int, Card], hand_wilds: int,
                  wild_gaps: list[int] | None = None) -> None:
        """One run: naturals where the model put them, the hand's wilds in ``hand_wilds`` gaps
        (``wild_gaps`` when the model chose them, else where a missing card is scarcest) and
        missing cards in the rest."""
        gaps = [p for p in covered if p not in natural_at]
        if wild_gaps is None:
            wild_gaps = sorted(gaps, key=lambda p: (spare[Card(_position_rank(p), suit)], p))[:hand_wilds]
        cards, stands_for = [], []
        for p in covered:
            meaning = Card(_position_rank(p), suit)
            if p in natural_at:
                card = natural_at[p]
            elif p in wild_gaps:
                if hand_wilds:
                    card, hand_wilds = wild_pool.pop(0), hand_wilds - 1
                else:
                    card = missing_card(JOKER)
            else:
                card = missing_card(meaning)
            cards.append(card)
            stands_for.append(meaning)
        melds.append(PlacedMeld(MeldKind.RUN, tuple(cards), tuple(stands_for)))

    for slot in built.runs:
        suit = next(s for s, v in slot.suit.items() if solver.value(v))
        covered = [p for p in problem.positions if solver.value(slot.covers[p])]
        natural_at = {p: card for (card, p), u in slot.uses.items() if solver.value(u)}
        wild_gaps = [p for p in covered if solver.value(slot.wild_at[p])] if strict_deck else None
        place_run(suit, covered, natural_at, solver.value(slot.wilds), wild_gaps)

    for group in built.windows:
        size = group.spec.size
        laid = [(suit, first) for (suit, first), v in group.count.items() for _ in range(solver.value(v))]
        natural_at: list[dict[int, Card]] = [{} for _ in laid]
        for (card, p), use in group.uses.items():
            copies = solver.value(use)
            for i, (suit, first) in enumerate(laid):
                if copies and suit == card.suit and first <= p < first + size and p not in natural_at[i]:
                    natural_at[i][p] = card
                    copies -= 1
            assert copies == 0, "the model only uses copies that some laid run covers"
        group_wilds = solver.value(group.wilds)
        for (suit, first), naturals in zip(laid, natural_at):
            hand_wilds = min(size - len(naturals), group_wilds)
            group_wilds -= hand_wilds
            place_run(suit, list(range(first, first + size)), naturals, hand_wilds)

    pooled_left = {id(g): solver.value(g.pooled_wilds) for g in built.sets if g.pooled_wilds is not None}
    for group in built.sets:
        for rank, count_var in group.count.items():
            how_many = solver.value(count_var)
            if not how_many:
                continue
            naturals = [card for card, u in group.uses.items()
                        if card.rank == rank for _ in range(solver.value(u))]
            if group.pooled_wilds is not None:
                gaps = group.spec.size * how_many - len(naturals)
                hand_wilds = min(gaps, pooled_left[id(group)])
                pooled_left[id(group)] -= hand_wilds
                missing_naturals = gaps - hand_wilds
            else:
                hand_wilds = solver.value(group.wilds[rank])
                missing_naturals = solver.value(group.missing[rank])
            for _ in range(missing_naturals):
                naturals.append(missing_card(max((Card(rank, s) for s in SUITS), key=lambda c: spare[c])))
            wilds = [wild_pool.pop(0) for _ in range(hand_wilds)]
            if rank in group.missing_jokers:
                wilds += [missing_card(JOKER) for _ in range(solver.value(group.missing_jokers[rank]))]
            for naturals_i, wilds_i in _deal_sets(naturals, wilds, how_many, group.spec.size, rules):
                # A wild card in a set claims the rank in a suit the set does not show yet.
                unused = [s for s in SUITS if Card(rank, s) not in naturals_i] or list(SUITS)
                claimed = tuple(Card(rank, unused[i % len(unused)]) for i in range(len(wilds_i)))
                melds.append(PlacedMeld(group.spec.kind, tuple(naturals_i + wilds_i),
                                        tuple(naturals_i) + claimed))
    assert not wild_pool, "every wild card the model used has a place"
    return Solution(tuple(melds), sorted_cards(missing), optimal)


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


# ---- the public entry point --------------------------------------------------------------------


def solve_lay_down(hand: tuple[Card, ...], rules: Rules, round_number: int, deck: DeckRule,
                   time_limit: float) -> LayDown:
    """Best lay-down, or cards away with a witness, for an already checked hand."""
    problem = make_problem(hand, rules, round_number, deck)
    total_points = sum(problem.points(card) for card in problem.hand)
    base = dict(rules=rules.name, round=round_number, contract=problem.contract, go_out=problem.go_out,
                hand=problem.hand)
    try:
        try:
            solution = solve(problem, time_limit)
        except _DeckTooSmall:
            solution = solve(problem, time_limit, strict_deck=True)
    except NoLayDown as none:
        return LayDown(**base, can_lay_down=False, melds=(), leftover=problem.hand,
                       leftover_points=total_points, cards_away=None, missing=(), with_missing=(),
                       proven_optimal=none.proven)
    ordered = tuple(sorted(solution.melds, key=_meld_order))
    if solution.missing:
        return LayDown(**base, can_lay_down=False, melds=(), leftover=problem.hand,
                       leftover_points=total_points, cards_away=len(solution.missing),
                       missing=solution.missing, with_missing=ordered,
                       proven_optimal=solution.proven_optimal)
    left = Counter(problem.hand)
    for meld in ordered:
        left.subtract(meld.cards)
    leftover = sorted_cards(left.elements())
    return LayDown(**base, can_lay_down=True, melds=ordered, leftover=leftover,
                   leftover_points=sum(problem.points(card) for card in leftover), cards_away=0,
                   missing=(), with_missing=(), proven_optimal=solution.proven_optimal)


def _meld_order(meld: PlacedMeld) -> tuple[int, tuple[tuple[int, int], ...]]:
    """Sets before runs, as the contract reads; then by the cards they stand for."""
    kind_order = {MeldKind.SET: 0, MeldKind.PAIR: 1, MeldKind.RUN: 2}[meld.kind]
    return kind_order, tuple(card.sort_key() for card in meld.stands_for)
