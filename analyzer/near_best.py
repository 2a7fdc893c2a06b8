"""Plays near the best: how many distinct plays of a turn keep within a few points of the best.

A puzzle's difficulty grows with the number of arrangements close to the best: a hand with one
way to lay down is easier to get right than one with a dozen that differ by a few points.
``near_best_plays`` counts them, up to a cap.

A *play* is a turn after the draw that lays down: the round's contract melded, then the discard
(none when the rules let the player go out by melding every card, and never in a go-out round),
and the penalty points of the cards kept when the turn ends. Two plays are the same when a player
cannot tell them apart: the same melds as multisets of cards, each run on the same places (so
every wild card stands for the same card, though which of two wild cards fills which gap of one
run is not told apart) and each set of the same rank (a set of wild cards only shows no rank: its
cards alone tell it apart), and the same discard. The solver's
symmetric assignments of one play (its model counts, its choice of claimed suits) are one play.

How: CP-SAT stays the engine. The solver's model of the whole hand (``analyzer.solver.model``,
with no missing cards) gets a discard to choose and the points kept as its objective; its
optimum is the best play's points (the same as ``analyze`` after the draw). Then, bounded by the
best plus ``margin``, it is solved again and again, each solution cut off by a no-good on the
model's meld variables, until it has no more or ``cap`` plays are found. One model solution
fixes the melds' places and which cards they use, but not which wild card goes to which meld nor
how the naturals of one rank divide between two sets of it: every such arrangement of the same
cards is tried (``_arrangements``) and kept when the independent validator accepts it.

Limits: in minimum contracts (melds may be longer) two sets of one rank take the sizes the
solver gave them; another split of sizes of the same cards is not counted apart.

    >>> near = near_best_plays("7H 8H 9H 10H JK 5C 5D 5S", "progressive", 2, margin=0)
    >>> near.best_points, near.count
    (0, 10)
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ortools.sat.python import cp_model

from analyzer import DEFAULT_TIME_LIMIT
from analyzer.arguments import (
    OptionError,
    optional_whole_number,
    rules_in_use,
    time_limit_in_seconds,
    whole_number,
)
from analyzer.cards import Card, Rank, Suit, sorted_cards, tokens
from analyzer.hand import read_hand
from analyzer.result import PlacedMeld
from analyzer.round_solver import Deadline
from analyzer.rules import DeckRule, DiscardToGoOut, MeldKind, Rules
from analyzer.solver.model import build_model, make_problem
from analyzer.solver.translate import new_solver, translate_solution
from analyzer.validate import validate_lay_down

NEAR_MARGIN = 10  # points: a play keeping at most this many more than the best is near it
NEAR_CAP = 20  # plays counted at most
# Model solutions tried per play counted: solutions that only repeat plays already found (the
# model's symmetric assignments) are cut off one by one; this bounds them.
SOLUTIONS_PER_PLAY = 8

# A meld as a player sees it: kind, rank or (suit, first, last place), and its cards.
MeldKey = tuple[Any, ...]
PlayKey = tuple[tuple[MeldKey, ...], str]  # the discard's token, "" for none


@dataclass(frozen=True)
class NearPlay:
    """One play near the best: the melds, the discard (None: none), the cards kept."""

    melds: tuple[PlacedMeld, ...]
    discard: Card | None
    kept: tuple[Card, ...]
    points: int  # penalty points of the cards kept when the turn ends

    def to_dict(self) -> dict[str, Any]:
        return {
            "melds": [meld.to_dict() for meld in self.melds],
            "discard": None if self.discard is None else self.discard.token,
            "kept": tokens(self.kept),
            "points": self.points,
        }


@dataclass(frozen=True)
class NearBest:
    """The distinct plays within ``margin`` points of the best, up to ``cap`` of them."""

    best_points: int | None  # the best play's points when the turn ends; None: no lay-down
    margin: int
    cap: int
    plays: tuple[NearPlay, ...]  # best first
    complete: bool  # every play within the margin is here, fewer than the cap (False: the cap or the time stopped it)

    @property
    def count(self) -> int:
        return len(self.plays)

    def to_dict(self) -> dict[str, Any]:
        return {
            "best_points": self.best_points,
            "margin": self.margin,
            "cap": self.cap,
            "count": self.count,
            "complete": self.complete,
            "plays": [play.to_dict() for play in self.plays],
        }


def near_best_plays(
    hand: str | Iterable[Card],
    rules: str | Rules = "progressive",
    round_number: int = 1,
    players: int | None = None,
    *,
    margin: int = NEAR_MARGIN,
    cap: int = NEAR_CAP,
    time_limit: float = DEFAULT_TIME_LIMIT,
) -> NearBest:
    """The distinct plays of ``hand`` after the draw (module docstring) keeping at most the best
    play's points plus ``margin``, best first, at most ``cap`` of them.

    Raises ``HandError``, ``RulesError`` or ``OptionError`` (``ValueError``) for input a user can
    get wrong (a negative margin, a cap below 1), ``TypeError`` for an argument of the wrong type,
    as ``analyze`` does."""
    rule_set = rules_in_use(rules)
    round_number = whole_number(round_number, "round_number")
    players = optional_whole_number(players, "players")
    margin = whole_number(margin, "margin")
    cap = whole_number(cap, "cap")
    if margin < 0 or cap < 1:
        raise OptionError(f"the margin is 0 points or more and the cap 1 play or more, not {margin} and {cap}")
    time_limit = time_limit_in_seconds(time_limit)
    rule_set.round(round_number)
    deck = rule_set.deck_for(players)
    cards = read_hand(hand, rule_set, players)
    return _near_best(sorted_cards(cards), rule_set, round_number, deck, margin, cap,
                      Deadline(time_limit))


def _near_best(cards: tuple[Card, ...], rules: Rules, round_number: int, deck: DeckRule, margin: int,
               cap: int, deadline: Deadline) -> NearBest:
    go_out = rules.round(round_number).go_out
    problem = make_problem(cards, rules, round_number, deck)  # a go-out round: every card melded
    built = build_model(problem, strict_deck=False)
    model = built.model
    model.add(built.missing_total == 0)
    melded = _melded_copies(built)
    held = Counter(cards)
    thrown = _discard_rows(model, rules, held, melded) if not go_out else {}
    total = sum(rules.points_of(card) for card in cards)
    kept_points = total - sum(rules.points_of(card) * copies for card, copies in melded.items()) \
        - sum(rules.points_of(card) * var for card, var in thrown.items())
    model.minimize(kept_points)

    solver = _enumerating_solver(deadline)
    status = solver.solve(model)
    if status == cp_model.INFEASIBLE:
        return NearBest(None, margin, cap, (), True)
    if status != cp_model.OPTIMAL:
        return NearBest(None, margin, cap, (), False)
    best = int(solver.value(kept_points))
    model.clear_objective()  # now any play within the bound: the search is quicker without it
    model.add(kept_points <= best + margin)
    deciding = _deciding_variables(built, thrown)

    found: dict[PlayKey, NearPlay] = {}
    complete = False
    for _ in range(SOLUTIONS_PER_PLAY * cap):
        if len(found) >= cap or deadline.expired:
            break
        solver = _enumerating_solver(deadline)
        # No objective now: a weaker LP relaxation finds a play sooner (measured: half the time).
        solver.parameters.linearization_level = 0
        status = solver.solve(model)
        if status == cp_model.INFEASIBLE:
            complete = True
            break
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            break
        solution = translate_solution(problem, built, solver, True, False)
        discard = next((card for card, var in thrown.items() if solver.value(var)), None)
        _add_plays(found, solution.melds, discard, cards, rules, round_number)
        # Cut off this model solution: some variable deciding the melds or the discard differs.
        model.add_bool_or([_differs(model, var, bounds, solver.value(var)) for var, bounds in deciding])
    plays = sorted(found.items(), key=lambda item: (item[1].points, item[0]))[:cap]
    complete = complete and len(found) < cap
    return NearBest(best, margin, cap, tuple(play for _, play in plays), complete)


def _discard_rows(model: cp_model.CpModel, rules: Rules, held: Counter[Card],
                  melded: dict[Card, Any]) -> dict[Card, cp_model.IntVar]:
    """The discard: one card kind the melds leave over, as the rule set's ``discard_to_go_out``
    asks (1: this card is thrown)."""
    size = held.total()
    melded_count = sum(melded.values())
    thrown = {card: model.new_bool_var(f"discard[{card}]") for card in held}
    for card, var in thrown.items():
        model.add(melded.get(card, 0) + var <= held[card])
    discards = sum(thrown.values())
    if rules.discard_to_go_out == DiscardToGoOut.REQUIRED:
        model.add(discards == 1)
    else:
        model.add(discards <= 1)
        model.add(melded_count + size * discards >= size)  # no discard: every card melded
    if rules.discard_to_go_out == DiscardToGoOut.NEVER:
        model.add(melded_count + size * discards <= 2 * size - 2)  # a discard: a card kept
    return thrown


def _add_plays(found: dict[PlayKey, NearPlay], melds_found: tuple[PlacedMeld, ...], discard: Card | None,
               cards: tuple[Card, ...], rules: Rules, round_number: int) -> None:
    """Each legal arrangement of one model solution's melds (``_arrangements``) not found yet,
    with its discard, into ``found``."""
    held = Counter(cards)
    for melds in _arrangements(melds_found, rules):
        key = _play_key(melds, discard, rules)
        if key in found:
            continue
        laid = Counter(card for meld in melds for card in meld.cards)
        leftover = sorted_cards((held - laid).elements())
        if validate_lay_down(cards, rules, round_number, melds, leftover):
            continue
        kept = list(leftover)
        if discard is not None:
            kept.remove(discard)
        points = sum(rules.points_of(card) for card in kept)
        found[key] = NearPlay(melds, discard, sorted_cards(kept), points)


def _enumerating_solver(deadline: Deadline) -> cp_model.CpSolver:
    """``new_solver`` as it was when the shipped puzzles were rated: which plays the capped
    enumeration below reaches depends on the order CP-SAT finds them in, and a puzzle's rating
    counts them (``puzzles.verify`` re-derives it). Without SAT inprocessing and CG cuts
    (``new_solver``) a kolsov lay-down puzzle of the bank counted 6 near-best plays, not 10."""
    solver = new_solver(max(0.001, deadline.left()))
    solver.parameters.use_sat_inprocessing = True
    solver.parameters.add_cg_cuts = True
    return solver


def _melded_copies(built: Any) -> dict[Card, Any]:
    """Copies of each card of the hand the melds take (an expression per card)."""
    uses: dict[Card, list[Any]] = {}
    for group in [*built.runs, *built.windows, *built.sets]:
        for key, var in group.uses.items():
            card = key[0] if isinstance(key, tuple) else key
            uses.setdefault(card, []).append(var)
    for card, var in built.wild_used.items():
        uses.setdefault(card, []).append(var)
    return {card: sum(vars_) for card, vars_ in uses.items()}


# The fields of the solver's run slots, run windows and set groups that say where the melds lie
# and which cards they take (``present`` and the like are implied by them, or free).
DECIDING_FIELDS = frozenset({"suit", "start", "end", "count", "uses", "wilds", "pooled_wilds"})


def _deciding_variables(built: Any, thrown: dict[Card, Any]) -> list[tuple[Any, tuple[int, int]]]:
    """The model's variables that say where the melds lie and which cards they take
    (``DECIDING_FIELDS``, and the wild cards used), and the discard, each with its bounds; those
    with one value only left out."""
    found: dict[int, Any] = {}

    def collect(value: Any) -> None:
        if isinstance(value, cp_model.IntVar):
            found.setdefault(value.index, value)
        elif isinstance(value, dict):
            for item in value.values():
                collect(item)
        elif isinstance(value, (list, tuple)):
            for item in value:
                collect(item)

    for group in [*built.runs, *built.windows, *built.sets]:
        for field in dataclasses.fields(group):
            if field.name in DECIDING_FIELDS:
                collect(getattr(group, field.name))
    collect(built.wild_used)
    collect(thrown)
    domains = model_domains(built.model)
    return [(found[index], domains[index]) for index in sorted(found) if domains[index][0] < domains[index][1]]


def model_domains(model: cp_model.CpModel) -> list[tuple[int, int]]:
    """Each variable's lowest and highest value, by index."""
    return [(bounds[0], bounds[-1]) for bounds in (list(variable.domain) for variable in model.proto.variables)]


def _differs(model: cp_model.CpModel, var: Any, bounds: tuple[int, int], value: int) -> Any:
    """A literal that holds only when ``var`` is not ``value``: the variable itself (or its
    negation) for a 0-1 variable, else a new one."""
    low, high = bounds
    if (low, high) == (0, 1):
        return var.negated() if value else var
    literal = model.new_bool_var("")
    if value == low:
        model.add(var >= value + 1).only_enforce_if(literal)
    elif value == high:
        model.add(var <= value - 1).only_enforce_if(literal)
    else:
        model.add(var != value).only_enforce_if(literal)
    return literal


# ---- the arrangements of one solution's cards ----------------------------------------------


def _arrangements(melds: Sequence[PlacedMeld], rules: Rules) -> Iterator[tuple[PlacedMeld, ...]]:
    """Every way to lay the same cards in melds of the same shapes (each run on its places, each
    set of its rank and size): which wild card goes where, how a rank's naturals divide between
    sets of it. Some break a rule (a wild card too many in one meld): the validator decides."""
    shapes = [_shape(meld) for meld in melds]
    pool = Counter(card for meld in melds for card in meld.cards)
    seen: set[tuple[MeldKey, ...]] = set()
    for laid in _fill(shapes, 0, pool, rules):
        key = tuple(sorted(_meld_key(meld, rules) for meld in laid))
        if key not in seen:
            seen.add(key)
            yield tuple(laid)


Shape = tuple[Any, ...]  # (RUN kind, suit, places) or (set kind, rank, size)


def _shape(meld: PlacedMeld) -> Shape:
    if meld.kind == MeldKind.RUN:
        suit = meld.stands_for[0].suit
        return (meld.kind, suit, tuple(meld.run_places()))
    rank = next(meaning.rank for meaning in meld.stands_for)
    return (meld.kind, rank, len(meld.cards))


def _place_card(place: int, suit: Suit) -> Card:
    return Card(Rank.ACE if place in (1, 14) else Rank(place), suit)


def _fill(shapes: list[Shape], index: int, pool: Counter[Card], rules: Rules) -> Iterator[list[PlacedMeld]]:
    if index == len(shapes):
        if not +pool:
            yield []
        return
    kind, what, extent = shapes[index]
    for meld in (_runs(what, extent, pool, rules) if kind == MeldKind.RUN else _sets(kind, what, extent, pool, rules)):
        rest = pool - Counter(meld.cards)
        for others in _fill(shapes, index + 1, rest, rules):
            yield [meld, *others]


def _runs(suit: Suit, places: tuple[int, ...], pool: Counter[Card], rules: Rules) -> Iterator[PlacedMeld]:
    """Runs on ``places`` from the pool: each place its own card or a wild card (a multiset of
    wild cards per run: which gap each fills is not told apart)."""
    own = [_place_card(place, suit) for place in places]
    wild_kinds = [card for card in pool if rules.is_wild(card) and pool[card] > 0]
    wild_count = sum(pool[card] for card in wild_kinds)
    choices = [(True, False) if pool[card] > 0 else (False,) for card in own]
    for natural_flags in itertools.product(*choices):
        gaps = natural_flags.count(False)
        if gaps > wild_count:
            continue
        naturals = Counter(card for card, natural in zip(own, natural_flags) if natural)
        if any(pool[card] < copies for card, copies in naturals.items()):
            continue
        rest = pool - naturals
        for wilds in itertools.combinations_with_replacement(wild_kinds, gaps):
            if any(rest[card] < copies for card, copies in Counter(wilds).items()):
                continue
            fill = iter(wilds)
            cards = tuple(card if natural else next(fill) for card, natural in zip(own, natural_flags))
            yield PlacedMeld(MeldKind.RUN, cards, tuple(own))


def _sets(kind: MeldKind, rank: Rank, size: int, pool: Counter[Card], rules: Rules) -> Iterator[PlacedMeld]:
    """Sets of ``rank`` and ``size`` from the pool: its naturals of the rank and wild cards."""
    usable = sorted((card for card in pool if pool[card] > 0 and (card.rank == rank or rules.is_wild(card))),
                    key=Card.sort_key)
    for chosen in itertools.combinations_with_replacement(usable, size):
        if any(pool[card] < copies for card, copies in Counter(chosen).items()):
            continue
        naturals = [card for card in chosen if card.rank == rank]
        wilds = [card for card in chosen if card.rank != rank]
        free = [suit for suit in Suit if Card(rank, suit) not in naturals] or list(Suit)
        claimed = [Card(rank, free[i % len(free)]) for i in range(len(wilds))]
        yield PlacedMeld(kind, tuple(naturals + wilds), tuple(naturals + claimed))


def _meld_key(meld: PlacedMeld, rules: Rules) -> MeldKey:
    cards = tuple(sorted(card.sort_key() for card in meld.cards))
    if meld.kind == MeldKind.RUN:
        places, suit = meld.run_places(), meld.stands_for[0].suit
        assert suit is not None, "a run's cards stand for cards of its suit"
        return (meld.kind.value, suit.value, places[0], places[-1], cards)
    if all(rules.is_wild(card) for card in meld.cards):
        # Wild cards only (three jokers; three 2s where 2s are wild): the table shows the same
        # cards whatever rank they are called, so the rank does not tell two plays apart.
        return (meld.kind.value, 0, cards)
    return (meld.kind.value, int(meld.stands_for[0].rank or 0), cards)


def _play_key(melds: Sequence[PlacedMeld], discard: Card | None, rules: Rules) -> PlayKey:
    return tuple(sorted(_meld_key(meld, rules) for meld in melds)), "" if discard is None else discard.token
