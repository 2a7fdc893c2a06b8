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

from analyzer.cards import ALL_CARD_KINDS, JOKER, Card, Rank, Suit, sorted_cards
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

    @property
    def runs_by_window(self) -> bool:
        """No per-meld wild limits: runs can be counted per window, any gap taking any wild."""
        return self.rules.max_wilds_per_meld is None and self.rules.wilds_may_outnumber_naturals

    @property
    def counted_by_window(self) -> bool:
        """Exact contracts without per-meld wild limits: runs are counted per window and sets per
        rank, and any gap may take any wild card. Otherwise every run gets its own slot."""
        rules = self.rules
        return (not self.minimum and rules.max_wilds_per_meld is None
                and rules.wilds_may_outnumber_naturals)

    def spare(self, card: Card) -> int:
        """Copies of ``card`` the deck holds beyond the hand's: what a missing card can be."""
        return max(0, deck_copies(card, self.deck) - self.counts.get(card, 0))


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


Window = tuple[Suit, int, int]  # a run's suit, first and last position


@dataclass
class RunWindows:
    """Runs of one contract size, counted per window (suit, first and last position), with the
    hand's naturals counted per position: no slots, so no symmetric copies of one solution.
    Used when no per-meld wild limits apply, so that any gap may take any wild card."""

    spec: MeldSpec
    how_many: int
    count: dict[Window, cp_model.IntVar]  # runs laid on this window
    present: dict[Window, cp_model.IntVar]  # 1: at least one run on this window
    uses: dict[tuple[Card, int], cp_model.IntVar]  # copies of a natural the runs hold at position p
    wilds: cp_model.IntVar  # the hand's wild cards in these runs

    def places(self) -> cp_model.LinearExprT:
        """Positions of all runs laid: each is a natural, a wild card or a gap."""
        if all(last - first + 1 == self.spec.size for _, first, last in self.count):
            return self.spec.size * self.how_many  # exact sizes: a constant, which CP-SAT prefers
        return sum((last - first + 1) * c for (_, first, last), c in self.count.items())

    def missing(self) -> cp_model.LinearExprT:
        return self.places() - sum(self.uses.values()) - self.wilds


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
class DeckCover:
    """Strict deck model for window-counted contracts: which missing cards fill the gaps."""

    in_runs: dict[Card, cp_model.IntVar]  # missing copies of a natural in runs
    in_sets: dict[Card, cp_model.IntVar]  # missing copies of a natural in sets
    jokers: cp_model.LinearExprT  # missing cards that are jokers (the other gaps)


@dataclass
class Model:
    model: cp_model.CpModel
    runs: list[RunSlot]
    windows: list[RunWindows]
    sets: list[SetGroup]
    wild_used: dict[Card, cp_model.IntVar]  # how many of each wild card melds use as a wild
    missing_total: cp_model.LinearExprT
    points_melded: cp_model.LinearExprT
    cover: DeckCover | None = None


# ---- building the model ------------------------------------------------------------------------


class _CpModel(cp_model.CpModel):
    """``CpModel`` without the camelCase aliases it attaches to every new instance: that costs
    half a millisecond a model, a fifth of a typical analysis (profiled with cProfile)."""

    def __init__(self) -> None:
        cp_model_helper.CpBaseModel.__init__(self, None)



def build_model(problem: Problem, strict_deck: bool, all_ranks: bool = False) -> Model:
    """The model. ``strict_deck``: missing cards must exist in the deck. ``all_ranks``: offer
    sets of every rank, not only the hand's and a few stand-ins (needed to list outs)."""
    model = _CpModel()
    rules = problem.rules
    by_window = problem.counted_by_window
    # Runs are counted per window unless per-meld wild limits need each run on its own, or
    # the strict deck model of a minimum contract places wild cards position by position.
    windows_for_runs = by_window or (problem.runs_by_window and not strict_deck)
    runs = [] if windows_for_runs else [_run_slot(model, problem, spec, index, strict_deck)
                                        for index, spec in enumerate(problem.run_specs)]
    windows = [_run_windows(model, problem, spec, how_many)
               for spec, how_many in Counter(problem.run_specs).items()] if windows_for_runs else []
    sets = [_set_group(model, problem, spec, count, strict_deck and not by_window, all_ranks)
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

    cover = None
    if strict_deck and by_window:
        cover = _deck_cover(model, problem, windows, sets)
    elif strict_deck:
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
    return Model(model, runs, windows, sets, wild_used, missing_total, points_melded, cover)


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
                    for g in windows for p in _positions_of(card, problem.rules))
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


def _run_windows(model: cp_model.CpModel, problem: Problem, spec: MeldSpec, how_many: int) -> RunWindows:
    rules, name, size = problem.rules, f"run{spec.size}", spec.size
    longest = min(rules.max_run_length, len(problem.positions)) if problem.minimum else size
    windows = [(suit, first, last) for suit in SUITS for first in problem.positions for last in problem.positions
               if size <= last - first + 1 <= longest]
    top = 1 if rules.same_suit_runs == SameSuitRuns.GAP else how_many  # gap: no overlap at all
    count = {w: model.new_int_var(0, top, f"{name}.count[{w[0].value}{w[1]}-{w[2]}]") for w in windows}
    model.add(sum(count.values()) == how_many)
    present = {}
    if rules.same_suit_runs in (SameSuitRuns.NO_TOUCH, SameSuitRuns.GAP) and len(problem.run_specs) > 1:
        for w, c in count.items():
            present[w] = model.new_bool_var(f"{name}.present[{w[0].value}{w[1]}-{w[2]}]")
            model.add(c <= top * present[w])
    covering: dict[tuple[Suit, int], list[cp_model.IntVar]] = {}  # runs covering (suit, position)
    for (suit, first, last), c in count.items():
        for p in range(first, last + 1):
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
    wilds = model.new_int_var(0, min(total_wild_cards, longest * how_many), f"{name}.wilds")
    group = RunWindows(spec, how_many, count, present, uses, wilds)
    model.add(group.missing() >= 0)
    return group


def _same_suit_policy_windows(model: cp_model.CpModel, groups: list[RunWindows], policy: SameSuitRuns) -> None:
    """The same-suit rule between windows that hold runs (exact contracts)."""
    if policy == SameSuitRuns.FREE:
        return
    placed = [(w, group.present[w]) for group in groups for w in group.present]
    if policy == SameSuitRuns.DISTINCT_SUITS:
        for suit in SUITS:
            model.add(sum(g.count[w] for g in groups for w in g.count if w[0] == suit) <= 1)
        return
    for i, ((suit_a, first_a, last_a), a) in enumerate(placed):
        for (suit_b, first_b, last_b), b in placed[i + 1:]:
            if suit_a != suit_b:
                continue
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
               strict_deck: bool, all_ranks: bool) -> SetGroup:
    rules, name = problem.rules, f"{spec.kind.value}{spec.size}"
    held_ranks = {card.rank for card in problem.naturals}
    # Ranks the hand lacks are all alike here; a few of them stand for the rest (enough to
    # give every set its own rank when the rules ask for distinct ranks).
    absent = [r for r in Rank if r not in held_ranks][:len(problem.contract)]
    ranks = list(Rank) if all_ranks else [r for r in Rank if r in held_ranks or r in absent]
    total_wild_cards = sum(problem.counts[c] for c in problem.wild_kinds)
    spare_jokers = max(0, problem.deck.jokers - problem.counts.get(JOKER, 0))
    big = spec.size * how_many + len(problem.hand)  # no group of sets can hold more cards

    count: dict[Rank, cp_model.IntVar] = {}
    uses: dict[Card, cp_model.IntVar] = {}
    wilds: dict[Rank, cp_model.IntVar] = {}
    missing: dict[Rank, cp_model.IntVar] = {}
    missing_jokers: dict[Rank, cp_model.IntVar] = {}
    top = 1 if rules.distinct_set_ranks else how_many
    if problem.counted_by_window:
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


def _solver(time_limit: float) -> cp_model.CpSolver:
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
    return solver


def solve(problem: Problem, time_limit: float, strict_deck: bool = False) -> tuple[Solution, Model]:
    """Solve once; the model comes back too, for callers that ask more of it (outs)."""
    built = build_model(problem, strict_deck)
    solver = _solver(time_limit)
    status = solver.solve(built.model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        raise NoLayDown(proven=status == cp_model.INFEASIBLE)
    return _translate(problem, built, solver, status == cp_model.OPTIMAL, strict_deck), built


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


def _hand_wilds(built: Model, solver: cp_model.CpSolver) -> list[Card]:
    """The wild cards the melds use, jokers first, then wild 2s in card order."""
    pool: list[Card] = []
    for card in sorted(built.wild_used, key=lambda c: (not c.is_joker, c.sort_key())):
        pool += [card] * solver.value(built.wild_used[card])
    return pool


def _set_melds(kind: MeldKind, size: int, rank: Rank, how_many: int, naturals: list[Card],
               wilds: list[Card], rules: Rules) -> list[PlacedMeld]:
    melds = []
    for naturals_i, wilds_i in _deal_sets(naturals, wilds, how_many, size, rules):
        # A wild card in a set claims the rank in a suit the set does not show yet.
        unused = [s for s in SUITS if Card(rank, s) not in naturals_i] or list(SUITS)
        claimed = tuple(Card(rank, unused[i % len(unused)]) for i in range(len(wilds_i)))
        melds.append(PlacedMeld(kind, tuple(naturals_i + wilds_i), tuple(naturals_i) + claimed))
    return melds


RunSkeleton = tuple[Suit, list[int], dict[int, Card]]  # suit, positions, the hand's naturals by position
SetSkeleton = tuple[MeldSpec, Rank, int, list[Card]]  # spec, rank, how many sets, their naturals


def _run_skeleton(built: Model, solver: cp_model.CpSolver) -> list[RunSkeleton]:
    """Where window-counted runs lie and which of the hand's naturals they hold."""
    value = solver.value
    runs: list[RunSkeleton] = []
    for group in built.windows:
        laid = [window for window, v in group.count.items() for _ in range(value(v))]
        natural_at: list[dict[int, Card]] = [{} for _ in laid]
        for (card, p), use in group.uses.items():
            copies = value(use)
            for i, (suit, first, last) in enumerate(laid):
                if copies and suit == card.suit and first <= p <= last and p not in natural_at[i]:
                    natural_at[i][p] = card
                    copies -= 1
            assert copies == 0, "the model only uses copies that some laid run covers"
        runs += [(suit, list(range(first, last + 1)), naturals)
                 for (suit, first, last), naturals in zip(laid, natural_at)]
    return runs


def _skeleton(built: Model, solver: cp_model.CpSolver) -> tuple[list[RunSkeleton], list[SetSkeleton]]:
    """Where a window-counted solution lays its melds and which of the hand's naturals they hold."""
    value = solver.value
    runs = _run_skeleton(built, solver)
    sets: list[SetSkeleton] = []
    for set_group in built.sets:
        for rank, count_var in set_group.count.items():
            if value(count_var):
                sets.append((set_group.spec, rank, value(count_var),
                             [c for c, u in set_group.uses.items() if c.rank == rank for _ in range(value(u))]))
    return runs, sets


def _translate_by_window(problem: Problem, built: Model, solver: cp_model.CpSolver, optimal: bool) -> Solution:
    """Window-counted runs and rank-counted sets back into melds. First the naturals where the
    model put them; then every gap gets a wild card of the hand or a missing card."""
    runs, sets = _skeleton(built, solver)
    # The gaps: (run index, position) in runs, (set index, None) in sets.
    gaps: list[tuple[int, int | None]] = [(i, p) for i, (_, positions, naturals) in enumerate(runs)
                                          for p in positions if p not in naturals]
    gaps += [(j, None) for j, (spec, _, how_many, naturals) in enumerate(sets)
             for _ in range(spec.size * how_many - len(naturals))]
    spare = _Spare(problem)

    def natural_for(gap: tuple[int, int | None]) -> list[Card]:
        """Missing naturals that could fill the gap, most plentiful first."""
        index, p = gap
        if p is not None:
            return [Card(_position_rank(p), runs[index][0])]
        return sorted((Card(sets[index][1], s) for s in SUITS), key=lambda c: -spare[c])

    filling: dict[int, Card] = {}  # gap number -> card
    missing: list[Card] = []
    hand_wilds = _hand_wilds(built, solver)
    if built.cover is not None:
        # Strict deck: the model says how many missing copies of each natural go to runs and sets.
        budget = {(c, True): solver.value(v) for c, v in built.cover.in_runs.items()}
        budget.update({(c, False): solver.value(v) for c, v in built.cover.in_sets.items()})
        for number, gap in enumerate(gaps):
            for card in natural_for(gap):
                if budget.get((card, gap[1] is not None), 0) > 0:
                    budget[card, gap[1] is not None] -= 1
                    filling[number] = card
                    missing.append(card)
                    break
        open_gaps = [n for n in range(len(gaps)) if n not in filling]
    else:
        # Put the hand's wild cards where a missing natural would be scarcest.
        open_gaps = sorted(range(len(gaps)), key=lambda n: (max(spare[c] for c in natural_for(gaps[n])), n))
    for number in open_gaps:
        if hand_wilds:
            filling[number] = hand_wilds.pop(0)
            continue
        choices = [c for c in natural_for(gaps[number]) if spare[c] > 0] if built.cover is None else []
        card = choices[0] if choices else JOKER
        if spare[card] <= 0:
            raise _DeckTooSmall(card)
        spare[card] -= 1
        filling[number] = card
        missing.append(card)
    assert not hand_wilds, "every wild card the model used has a place"

    melds: list[PlacedMeld] = []
    filled_runs: dict[tuple[int, int], Card] = {}
    set_fillers: dict[int, list[Card]] = {}
    for number, (index, p) in enumerate(gaps):
        if p is not None:
            filled_runs[index, p] = filling[number]
        else:
            set_fillers.setdefault(index, []).append(filling[number])
    for i, (suit, positions, naturals) in enumerate(runs):
        cards = tuple(naturals[p] if p in naturals else filled_runs[i, p] for p in positions)
        melds.append(PlacedMeld(MeldKind.RUN, cards, tuple(Card(_position_rank(p), suit) for p in positions)))
    for j, (spec, rank, how_many, naturals) in enumerate(sets):
        fillers = set_fillers.get(j, [])
        natural_fill = [c for c in fillers if not problem.rules.is_wild(c) and c.rank == rank]
        wild_fill = [c for c in fillers if c not in natural_fill]
        melds += _set_melds(spec.kind, spec.size, rank, how_many, naturals + natural_fill, wild_fill, problem.rules)
    return Solution(tuple(melds), sorted_cards(missing), optimal)


def _translate(problem: Problem, built: Model, solver: cp_model.CpSolver, optimal: bool,
               strict_deck: bool) -> Solution:
    if problem.counted_by_window:
        return _translate_by_window(problem, built, solver, optimal)
    rules = problem.rules
    wild_pool = _hand_wilds(built, solver)
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

    run_wilds = sum(solver.value(group.wilds) for group in built.windows)
    for suit, positions, naturals in _run_skeleton(built, solver):
        hand_wilds = min(run_wilds, len(positions) - len(naturals))  # no per-meld limits here
        run_wilds -= hand_wilds
        place_run(suit, positions, naturals, hand_wilds)
    for slot in built.runs:
        suit = next(s for s, v in slot.suit.items() if solver.value(v))
        covered = [p for p in problem.positions if solver.value(slot.covers[p])]
        natural_at = {p: card for (card, p), u in slot.uses.items() if solver.value(u)}
        wild_gaps = [p for p in covered if solver.value(slot.wild_at[p])] if strict_deck else None
        place_run(suit, covered, natural_at, solver.value(slot.wilds), wild_gaps)

    for group in built.sets:
        for rank, count_var in group.count.items():
            how_many = solver.value(count_var)
            if not how_many:
                continue
            naturals = [card for card, u in group.uses.items()
                        if card.rank == rank for _ in range(solver.value(u))]
            hand_wilds = solver.value(group.wilds[rank])
            missing_naturals = solver.value(group.missing[rank])
            for _ in range(missing_naturals):
                naturals.append(missing_card(max((Card(rank, s) for s in SUITS), key=lambda c: spare[c])))
            wilds = [wild_pool.pop(0) for _ in range(hand_wilds)]
            if rank in group.missing_jokers:
                wilds += [missing_card(JOKER) for _ in range(solver.value(group.missing_jokers[rank]))]
            melds += _set_melds(group.spec.kind, group.spec.size, rank, how_many, naturals, wilds, rules)
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
    return _lay_down(make_problem(hand, rules, round_number, deck), time_limit)[0]


def _lay_down(problem: Problem, time_limit: float) -> tuple[LayDown, Model | None]:
    rules, round_number = problem.rules, problem.round_number
    total_points = sum(problem.points(card) for card in problem.hand)
    base = dict(rules=rules.name, round=round_number, contract=problem.contract, go_out=problem.go_out,
                hand=problem.hand)
    try:
        try:
            solution, built = solve(problem, time_limit)
        except _DeckTooSmall:
            solution, built = solve(problem, time_limit, strict_deck=True)
    except NoLayDown as none:
        return LayDown(**base, can_lay_down=False, melds=(), leftover=problem.hand,
                       leftover_points=total_points, cards_away=None, missing=(), with_missing=(),
                       proven_optimal=none.proven), None
    kept = Counter(problem.hand) + Counter(solution.missing)
    for meld in solution.melds:
        kept.subtract(meld.cards)
    ordered = tuple(sorted(_tidy_runs(solution.melds, +kept, problem), key=_meld_order))
    if solution.missing:
        return LayDown(**base, can_lay_down=False, melds=(), leftover=problem.hand,
                       leftover_points=total_points, cards_away=len(solution.missing),
                       missing=solution.missing, with_missing=ordered,
                       proven_optimal=solution.proven_optimal), built
    left = Counter(problem.hand)
    for meld in ordered:
        left.subtract(meld.cards)
    leftover = sorted_cards(left.elements())
    return LayDown(**base, can_lay_down=True, melds=ordered, leftover=leftover,
                   leftover_points=sum(problem.points(card) for card in leftover), cards_away=0,
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
        suit = _suit_of(meld)
        positions = [_run_position(meld, i) for i in range(len(meld.cards))]
        naturals = {p: card for p, card, meaning in zip(positions, meld.cards, meld.stands_for) if card == meaning}
        wilds = [card for card, meaning in zip(meld.cards, meld.stands_for) if card != meaning]
        others: tuple[_Run, ...] = tuple((_suit_of(m), _run_position(m, 0), len(m.cards), ()) for j, m in enumerate(tidy)
                       if j != index and m.kind == MeldKind.RUN)
        best = meld
        for first in problem.positions:
            last = first + len(positions) - 1
            if last not in problem.positions or not all(first <= p <= last for p in naturals):
                continue
            if not _runs_may_share_a_contract(problem.rules.same_suit_runs, (suit, first, len(positions)), others):
                continue
            fill = iter(wilds)
            cards = tuple(naturals[p] if p in naturals else next(fill) for p in range(first, last + 1))
            run = PlacedMeld(MeldKind.RUN, cards, tuple(Card(_position_rank(p), suit) for p in range(first, last + 1)))
            if held(run) < held(best):
                best = run
        tidy[index] = best
    return tidy


def _suit_of(run: PlacedMeld) -> Suit:
    suit = run.stands_for[0].suit
    assert suit is not None
    return suit


def _run_position(run: PlacedMeld, index: int) -> int:
    """Position (1..14) of a run's ``index``-th card; an ace is high when it follows a king."""
    rank = run.stands_for[index].rank
    assert rank is not None
    if rank != Rank.ACE:
        return int(rank)
    return HIGH_ACE if index > 0 or (len(run.cards) > 1 and run.stands_for[1].rank != Rank.TWO) else LOW_ACE


def _meld_order(meld: PlacedMeld) -> tuple[int, tuple[tuple[int, int], ...]]:
    """Sets before runs, as the contract reads; then by the cards they stand for."""
    kind_order = {MeldKind.SET: 0, MeldKind.PAIR: 1, MeldKind.RUN: 2}[meld.kind]
    return kind_order, tuple(card.sort_key() for card in meld.stands_for)


# ---- outs: the cards that bring a hand closer -------------------------------------------------


def find_outs(hand: tuple[Card, ...], rules: Rules, round_number: int, deck: DeckRule,
              time_limit: float) -> tuple[LayDown, frozenset[Card]]:
    """The hand's lay-down answer and its *outs*: the distinct cards (naturals and the joker)
    whose addition lowers ``cards_away``. Empty when the hand can lay down, or never can.

    A card is an out exactly when some lay-down with the fewest missing cards has it among
    the missing ones (adding it then saves one; adding any card saves at most one). So the
    outs are the union of the missing cards over all best arrangements, collected by asking
    CP-SAT, again and again, for a best arrangement with as many not-yet-seen outs as it can.
    """
    problem = make_problem(hand, rules, round_number, deck)
    lay_down, built = _lay_down(problem, time_limit)
    if not lay_down.cards_away:
        return lay_down, frozenset()
    if problem.counted_by_window:
        assert built is not None
        outs = _outs_by_union(problem, lay_down, built, time_limit)
    else:
        outs = _outs_by_resolving(problem, lay_down.cards_away, time_limit)
    return lay_down, frozenset(outs)


def _outs_by_union(problem: Problem, lay_down: LayDown, built: Model, time_limit: float) -> set[Card]:
    """Outs for window-counted contracts, where any gap may take any wild card.

    In a best arrangement (``cards_away`` missing), a card is missing-able exactly where the
    arrangement has a *gap* it fits: a run position of its suit and rank, or a place in a set
    of its rank. (Whatever fills that gap, a wild card or another missing card, can trade
    places with it, since some other gap holds a missing card.) So the outs are the cards of
    the gaps of all best arrangements, plus the wild cards, which fit any gap, while the deck
    has one left. The loop collects gap sites until no best arrangement shows a new one.

    The model ignores the deck's limits on missing cards (a stricter model costs a third more
    time); each arrangement it returns is checked against the deck, and if one fails the
    search restarts with the strict model. A "no new site" answer of the looser model holds
    for the strict one too.
    """
    assert lay_down.cards_away
    # A wild card (the joker, a wild 2) fits any gap.
    outs = {card for card in ALL_CARD_KINDS if problem.rules.is_wild(card) and problem.spare(card)}
    # The lay-down's own witness is a best arrangement: its gaps are where wilds or missing cards sit.
    for meld in lay_down.with_missing:
        for card, meaning in zip(meld.cards, meld.stands_for):
            if card != meaning:
                if meld.kind == MeldKind.RUN:
                    outs.update(c for c in (meaning,) if problem.spare(c))
                else:
                    outs.update(c for c in (Card(meaning.rank, s) for s in SUITS) if problem.spare(c))
    try:
        # The lay-down's own model, asked a new question.
        return _collect_gap_sites(problem, lay_down.cards_away, time_limit, outs, built)
    except _DeckTooSmall:
        strict = build_model(problem, strict_deck=True)
        return _collect_gap_sites(problem, lay_down.cards_away, time_limit, outs, strict)


def _collect_gap_sites(problem: Problem, cards_away: int, time_limit: float, outs: set[Card],
                       built: Model) -> set[Card]:
    outs = set(outs)
    strict_deck = built.cover is not None
    model = built.model
    model.add(built.missing_total == cards_away)

    def run_gap(suit: Suit, p: int) -> cp_model.LinearExprT:
        card = Card(_position_rank(p), suit)
        return sum(sum(c for (s, first, last), c in g.count.items() if s == suit and first <= p <= last)
                   - g.uses.get((card, p), 0) for g in built.windows)

    def set_gap(rank: Rank) -> cp_model.LinearExprT:
        return sum(g.spec.size * g.count[rank] - sum(u for c, u in g.uses.items() if c.rank == rank)
                   for g in built.sets if rank in g.count)

    # A gap site: a run position, or a rank for sets; 1 when the arrangement has a gap there.
    sites: list[tuple[cp_model.IntVar, list[Card]]] = []
    for suit in SUITS:
        for p in problem.positions:
            card = Card(_position_rank(p), suit)
            gap = run_gap(suit, p)
            if problem.spare(card) and card not in outs and not isinstance(gap, int):
                site = model.new_bool_var(f"gap[{suit.value}{p}]")
                model.add(site <= gap)
                sites.append((site, [card]))
    held_ranks = {card.rank for card in problem.naturals}
    for rank in Rank:
        # The model offers sets of a few ranks the hand lacks, standing for all of them.
        ranks = [rank] if rank in held_ranks else [r for r in Rank if r not in held_ranks]
        fitting = [Card(r, s) for r in ranks for s in SUITS if problem.spare(Card(r, s))]
        gap = set_gap(rank)
        if fitting and not set(fitting) <= outs and not isinstance(gap, int):
            site = model.new_bool_var(f"gap[{rank.token}]")
            model.add(site <= gap)
            sites.append((site, fitting))
    while True:
        fresh = [site for site, cards in sites if not set(cards) <= outs]
        if not fresh:
            return outs
        model.maximize(sum(fresh))
        solver = _solver(time_limit)
        if solver.solve(model) not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return outs
        found = [cards for site, cards in sites if solver.value(site) and not set(cards) <= outs]
        if not found:
            return outs
        if not strict_deck:
            _translate_by_window(problem, built, solver, True)  # raises if the deck cannot supply it
        for cards in found:
            outs.update(cards)
        # Best arrangements often come in families (the same run one window over, the same set
        # of another rank): walk them in Python before asking CP-SAT again.
        outs |= _neighbour_outs(problem, *_skeleton(built, solver), _hand_wilds(built, solver))


def _outs_by_resolving(problem: Problem, cards_away: int, time_limit: float) -> set[Card]:
    """For rule sets whose runs take slots: ask, card by card, whether hand + card is closer.
    Cards that could not even sit in a meld with ``cards_away - 1`` other missing cards are
    skipped without asking (``_could_fill_a_gap``)."""
    outs = set()
    for card in ALL_CARD_KINDS:
        if not problem.spare(card) or not _could_fill_a_gap(problem, card, cards_away):
            continue
        closer = make_problem(problem.hand + (card,), problem.rules, problem.round_number, problem.deck)
        if _closer_than(closer, cards_away, time_limit):
            outs.add(card)
    return outs


def _closer_than(problem: Problem, cards_away: int, time_limit: float) -> bool:
    """Can ``problem`` be laid down with fewer than ``cards_away`` missing cards? The model that
    ignores the deck answers first (a no is final); a yes it cannot show the deck supports goes
    to the strict model."""
    for strict_deck in (False, True):
        built = build_model(problem, strict_deck=strict_deck)
        built.model.add(built.missing_total <= cards_away - 1)
        built.model.clear_objective()
        solver = _solver(time_limit)
        if solver.solve(built.model) not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return False
        try:
            _translate(problem, built, solver, False, strict_deck)
            return True
        except _DeckTooSmall:
            continue
    return False


def _could_fill_a_gap(problem: Problem, card: Card, cards_away: int) -> bool:
    """A necessary condition for an out: some meld of the contract, placed where the card fits,
    can be completed from the hand's naturals, its wild cards and at most ``cards_away``
    missing cards (the card itself one of them). A longer run holds a window of the contract's
    size around the card that does as well, so windows of that size suffice."""
    if problem.rules.is_wild(card):
        return True
    assert card.rank is not None and card.suit is not None
    wilds = sum(problem.counts[c] for c in problem.wild_kinds)
    for spec in set(problem.contract):
        if spec.kind != MeldKind.RUN:
            of_rank = sum(n for c, n in problem.counts.items() if c.rank == card.rank and c in problem.naturals)
            if of_rank + wilds + cards_away >= spec.size:
                return True
            continue
        held = {p for c in problem.naturals if c.suit == card.suit for p in _positions_of(c, problem.rules)}
        for p in _positions_of(card, problem.rules):
            for first in range(p - spec.size + 1, p + 1):
                window = range(first, first + spec.size)
                if all(q in problem.positions for q in window) and \
                        len(held.intersection(window)) + wilds + cards_away >= spec.size:
                    return True
    return False


# ---- outs: best arrangements next to a known one -----------------------------------------------

# An arrangement for the neighbourhood walk: runs as (suit, first position, size, naturals by
# position), sets as (rank, size, naturals), each set on its own.
_Run = tuple[Suit, int, int, tuple[tuple[int, Card], ...]]
_Set = tuple[Rank, int, tuple[Card, ...]]
_NEIGHBOURHOOD_DEPTH = 1  # moves away from the arrangement CP-SAT found; it finds whatever lies beyond


def _neighbour_outs(problem: Problem, runs: list[RunSkeleton], sets: list[SetSkeleton],
                    hand_wilds: list[Card]) -> set[Card]:
    """Outs shown by best arrangements reachable from this one by moving one meld at a time:
    a run to another window, a set to another rank, keeping as many of the hand's naturals.
    Each arrangement visited must pass the same-suit rule and the deck (``_missing_cards``)."""
    start_runs = tuple(sorted((suit, positions[0], len(positions), tuple(sorted(naturals.items())))
                              for suit, positions, naturals in runs))
    start_sets: list[_Set] = []
    for spec, rank, how_many, naturals in sets:
        for i in range(how_many):
            start_sets.append((rank, spec.size, tuple(naturals[i::how_many])))
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


def _moves(problem: Problem, hand: Counter[Card], runs: tuple[_Run, ...],
           sets: tuple[_Set, ...]) -> list[tuple[tuple[_Run, ...], tuple[_Set, ...]]]:
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
                    card = Card(_position_rank(p), new_suit)
                    if free[card] > taken[card]:
                        taken[card] += 1
                        placed.append((p, card))
                if len(placed) == len(naturals) and _runs_may_share_a_contract(
                        problem.rules.same_suit_runs, (new_suit, new_first, size), others):
                    moved = tuple(sorted(others + ((new_suit, new_first, size, tuple(placed)),)))
                    found.append((moved, sets))
    for j, (rank, size, naturals) in enumerate(sets):
        free = hand - used + Counter(naturals)
        others_sets = sets[:j] + sets[j + 1:]
        for new_rank in Rank:
            if new_rank == rank or (problem.rules.distinct_set_ranks and any(r == new_rank for r, *_ in others_sets)):
                continue
            of_rank = [c for c in sorted(free.elements()) if c.rank == new_rank][:size]
            if len(of_rank) == len(naturals):
                found.append((runs, tuple(sorted(others_sets + ((new_rank, size, tuple(of_rank)),)))))
    return found


def _runs_may_share_a_contract(policy: SameSuitRuns, run: tuple[Suit, int, int], others: tuple[_Run, ...]) -> bool:
    suit, first, size = run
    last = first + size - 1
    for other_suit, other_first, other_size, _ in others:
        if other_suit != suit or policy == SameSuitRuns.FREE:
            continue
        other_last = other_first + other_size - 1
        touching = last + 1 == other_first or other_last + 1 == first
        overlapping = first <= other_last and other_first <= last
        if policy == SameSuitRuns.DISTINCT_SUITS or touching or (policy == SameSuitRuns.GAP and overlapping):
            return False
    return True


def _gap_cards(problem: Problem, runs: tuple[_Run, ...], sets: tuple[_Set, ...]) -> set[Card]:
    cards = set()
    for suit, first, size, naturals in runs:
        held = {p for p, _ in naturals}
        cards |= {Card(_position_rank(p), suit) for p in range(first, first + size) if p not in held}
    for rank, size, naturals in sets:
        if len(naturals) < size:
            cards |= {Card(rank, s) for s in SUITS}
    return {card for card in cards if problem.spare(card)}


def _missing_cards(problem: Problem, runs: tuple[_Run, ...], sets: tuple[_Set, ...], wilds: int) -> list[Card] | None:
    """The missing cards an arrangement needs once the hand's wilds fill the scarcest gaps,
    or None when the deck (with its jokers) cannot supply them."""
    spare = _Spare(problem)
    run_gaps = [Card(_position_rank(p), suit) for suit, first, size, naturals in runs
                for p in range(first, first + size) if p not in {q for q, _ in naturals}]
    set_gaps = [rank for rank, size, naturals in sets for _ in range(size - len(naturals))]
    gaps: list[list[Card]] = [[card] for card in run_gaps] + [[Card(r, s) for s in SUITS] for r in set_gaps]
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
