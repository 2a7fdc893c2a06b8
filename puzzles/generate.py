"""Puzzles from play: deal a real table, play the round forward, stop at a decision worth asking.

``generate(kind, rules, round, seed)`` is a pure function: the seed fixes the table (player
count, shuffle) and everything after it, so seed ranges are reproducible, resumable shards.
``derive(position)`` turns a position into a puzzle, or rejects it (None): it computes the
accepted answers with the analyser's public API, keeps only clear puzzles,
tags the themes and rates the difficulty. ``puzzles verify`` calls the same ``derive`` on a
stored position and compares.

Positions come from a ``Table`` of ``SimulatedPlayer``s (``analyzer.simulate``): every turn of
every seat that has not laid down is a candidate, from a seeded turn on:

- **lay-down**: the seat in turn, after its draw (the face-up card when its policy takes it,
  else the top of the stock), when it can lay down or looks ready (it could under the loose rules
  a hasty player reads) but cannot;
- **discard**: the seat in turn after its draw, not laid down;
- **buy**: the face-up discard the seat in turn declines, offered to the next seat (first in
  buying priority), when the rules let it buy: every real offer, whether or not the card helps
  (until generator puzzles-8 only one of the hand's outs, and nearly every answer was "buy").

``source="planted"`` builds a lay-down hand instead ("plant the contract and disturb it"): the
contract's melds dealt from the real deck, often in one suit, a card swapped for a joker, the
rest at random. Planted puzzles say so, and the bank keeps them to at most a quarter.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from analyzer import (
    OUTS_COUNT_WITHIN,
    Card,
    DiscardToGoOut,
    LayDown,
    MeldKind,
    Moment,
    PlacedMeld,
    Rank,
    Rules,
    SimulatedPlayer,
    Suit,
    Table,
    advise,
    analyze,
    card_at,
    deterministic_work,
    kept_at_least,
    near_best_plays,
    preset,
    wild_cards_short,
)
from puzzles.check import play_problems
from puzzles.hasty import GREEDY, STRATEGIES, hasty_play, loose_rules, mistake, plays
from puzzles.inplay import Standing, judge, standing_of
from puzzles.model import (
    BUY,
    CANNOT,
    KINDS,
    PASS,
    BuyAnalysis,
    BuyMargin,
    DiscardAnalysis,
    DiscardMargin,
    Kind,
    LayDownAnalysis,
    LayDownAnswer,
    LayDownMargin,
    Puzzle,
    meld_from_dict,
)
from puzzles.themes import UNRATED, tag

# The version of the generator a puzzle records: puzzles-2 rates lay-downs with the plays near the
# best too; puzzles-3 plays on a faster solver that settles ties between equally good
# arrangements otherwise (the one-wild-a-meld presets' runs counted per window, CP-SAT without
# SAT inprocessing or CG cuts), so simulated play, and with it the position a seed gives, a buy
# verdict's figures and the plays near the best found, may differ from puzzles-2's. The bank was
# carried over by ``puzzles.rederive``: puzzles whose answers derive again are kept with the new
# figures, the others retired, the shards topped up from later seeds. puzzles-4: a simulated
# player one card away no longer buys in a go-out round, and those rounds' going-out chances were
# measured again; and go-out rounds' lay-down model got a tighter relaxation (the same optima,
# other ties among equally good arrangements). The whole bank was carried over; only puzzles of
# go-out rounds derived otherwise. puzzles-5: the buy verdict's stocks are each played by a copy
# of the player with plans of its own (played two at a time), so a buy verdict's figures may
# differ from puzzles-4's; the positions, lay-downs and discards are the same. puzzles-6: the
# lay-down model leaves the same-suit rule between runs out until an answer breaks it
# (``SolverOptions.same_suit_rule_lazily``): the same optima, other ties among
# equally good arrangements. puzzles-7: the buy verdict compares the points against the table
# (the buyer's less the others' mean), the going-out tables measured again with the points a
# player still in holds; only the buy shards were carried over (lay-down and discard puzzles do
# not depend on the verdict and keep puzzles-6). puzzles-9: the advice's buy answer is to buy an
# out (the verdict lost to that rule in play), and a buy puzzle is accepted only where the
# simulated verdict agrees with it; the whole bank was carried over (only buy puzzles derived
# otherwise). puzzles-10: a hand whose contract is out of reach without buying (counted in draws,
# kolsov's last round) is answered "buy", as a hand some cards away short of the contract's cards
# was; the answer differs nowhere else (the whole bank carried over: one buy derived otherwise).
# puzzles-11: the simulated player buys, before laying down, a card that makes a set with the
# naturals of its rank held (contracts of two sets or more, outside go-out rounds), and a hand
# out of reach by its size buys any card (measured against greedy: docs/strength.md); its play
# makes the positions and is the buy verdict's model, so the going-out tables were measured
# again and the whole bank carried over. puzzles-12: where a last card may not be a discard
# (``discard_to_go_out = "never"``, shanghai-powe), the simulated player once down discards a card
# that fits nowhere rather than lay off every card and keep it (a table of such players went round
# until the turn cap); only that rule's play changed, so only its going-out entries were measured
# again and its shards carried over, with every lay-down shard (lay-downs do not depend on play);
# the other presets' buys and discards keep puzzles-11, derived by the same play. puzzles-13: a
# discard wins on unseen outs only one card away (``analyzer.OUTS_COUNT_WITHIN``), where the
# count is the chance of laying down next draw; two or more away it was not shown to win in play
# (docs/strength.md, "Why more unseen outs does not show in play"), so those puzzles were retired
# and only the discard shards carried over. puzzles-14: in a go-out round, more than that one
# draw from going out, the discard table ranks the nearest discards by the points kept before
# the unseen outs (docs/strength.md, "Far from going out"): a go-out round's discard puzzle may
# have another runner-up, so another margin, or be no longer clear; the discard shards of the
# presets with a go-out round carried over, and every lay-down shard for the generator's name.
# The seeds' random streams keep the first version's name.
GENERATOR = "puzzles-14"
STREAM = "puzzles-1"
# A puzzle is a pure function of its position: every solve is bounded by CP-SAT's deterministic
# time (analyzer/solver/work.py; a unit is 2-4 s of one core here, real hands take thousandths),
# and an answer it leaves unproven is rejected, the same way on every machine...
WORK = 5.0
# ...while seconds only guard against a runaway: an answer the analyser could not finish within
# them (``unfinished``, a buy verdict not ``finished``, a lay-down not proven) is rejected, never
# accepted with other figures. Real positions take well under a minute.
TIME_LIMIT = 600.0
MIN_PLAYERS, MAX_PLAYERS = 3, 5  # the table sizes puzzles are dealt for
# Positions derived per table at most: a discard table costs ~0.1-5 s, a buy two verdicts (seconds);
# a lay-down look costs milliseconds and is not capped (a table has fewer than 1000 turns).
LOOKS = {Kind.LAY_DOWN: 1000, Kind.DISCARD: 10, Kind.BUY: 3}
BUY_ROLLOUTS = 120  # the first verdict; the second runs twice as many under another seed
BUY_SEEDS = (0, 1)
OUTS_MARGIN = (3, 0.25)  # a discard wins on outs by at least max(3, 25% of the runner-up's)...
# ...and only ``OUTS_COUNT_WITHIN`` cards away (the analyser's): the outs are then the chance of
# laying down next draw.
# Plays near the best (``analyzer.near_best_plays``): those keeping at most this many points more
# than the best, counted up to the cap (the rating's term stops growing there).
NEAR_MARGIN = 10
NEAR_CAP = 10


class GenerationError(RuntimeError):
    """The analyser contradicts itself on a position (its solver and its validator disagree)."""


# ---- the entry point ---------------------------------------------------------------------------------


def generate(kind: str, rules: str, round_number: int, seed: int, *, source: str = "play") -> Puzzle | None:
    """The puzzle of ``kind`` this seed gives for the round of the preset ``rules``, or None when
    the seed's table reaches no clear one."""
    with deterministic_work(WORK):
        return _generate(kind, rules, round_number, seed, source)


def _generate(kind: str, rules: str, round_number: int, seed: int, source: str) -> Puzzle | None:
    if kind not in KINDS:
        raise ValueError(f"unknown puzzle kind {kind!r}; known: {', '.join(KINDS)}")
    kind = Kind(kind)
    rule_set = preset(rules)
    rule_set.round(round_number)
    rng = random.Random(f"{STREAM}/{kind}/{rule_set.name}/{round_number}/{seed}/{source}")
    players = rng.choice(table_sizes(rule_set))
    if source == "planted":
        if kind != Kind.LAY_DOWN:
            raise ValueError("only lay-down puzzles are planted")
        return _planted(rule_set, round_number, players, rng, seed)
    if source != "play":
        raise ValueError(f"a puzzle comes from 'play' or is 'planted', not {source!r}")
    if kind == Kind.BUY and rule_set.buys_in(round_number) == 0:
        return None
    table = Table.deal(rule_set, round_number, players, rng.randrange(2**32), work=WORK)
    start = rng.randrange(2 * players)  # the first table turn whose positions count
    looks = 0
    floors: dict[int, Floor] = {}
    while not table.finished:
        if table.turn >= start:
            position, known = _buy_position(table) if kind == Kind.BUY else _turn_position(table, kind, floors)
            if position is not None and _worth_a_look(position, known):
                position = dataclasses.replace(position, seed=seed, generator=GENERATOR)
                looks += 1
                puzzle = derive(position, known=known)
                if puzzle is not None:
                    return puzzle
                if looks >= LOOKS[kind]:
                    return None
        table.play_turn()
    return None


def table_sizes(rules: Rules) -> list[int]:
    """The player counts from 3 to 5 the rule set deals for (all of its counts if none)."""
    sizes = [
        n
        for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)
        if any(deck.min_players <= n <= deck.max_players for deck in rules.decks)
    ]
    return sizes or [deck.min_players for deck in rules.decks]


# ---- positions at the table --------------------------------------------------------------------------


# What the table knows of a lay-down hand after its draw: its solver's answer for the whole hand
# (``LayDown``), False when the player's quick test shows it cannot lay down, None: nothing.
Known = LayDown | Literal[False] | None
# A position, and what the table knows of its hand.
Found = tuple[Puzzle | None, Known]


# The fewest cards a hand was proven away from laying down (the solver's ``cards_away``), kept per
# seat: any later hand of that seat is at most one card nearer for each card it holds beyond it.
Floor = tuple[Counter[Card], int]


def _turn_position(table: Table, kind: Kind, floors: dict[int, Floor]) -> Found:
    """The seat in turn after its draw, when it has not laid down; for a lay-down, what the
    table's own solver knows of the hand after the draw (``Known``), or what ``floors`` prove
    without solving: that it cannot lay down."""
    seat = table.current
    if table.melds[seat]:
        return None, None
    pile = list(table.discards)
    view = table.view(seat)
    policy = table.policies[seat]
    state = None
    if kind == Kind.LAY_DOWN and isinstance(policy, SimulatedPlayer):
        # The player's own plan (memoised, the table asked it already): a hand more than two
        # cards away before its draw can neither lay down after it nor look ready.
        state = policy.start(view.hand)
        if state.away is not None and state.away > 2:
            return None, None
    if kind == Kind.DISCARD and isinstance(policy, SimulatedPlayer):
        # Two cards the plan does not use tie on cards away and outs nearly always (the table
        # ranks them by points only): no clear answer, so no costly discard table.
        state = policy.start(view.hand)
        junk = {card for card in state.unused if not table.rules.is_wild(card)}
        if len(junk) >= 2:
            return None, None
    if pile and table.offer_open and policy.wants_discard(view, pile[-1]):
        drawn = pile.pop()
    elif table.stock:
        drawn = table.stock[-1]
    else:
        return None, None
    known: Known = None
    go_out = table.rules.round(table.round_number).go_out
    if kind == Kind.LAY_DOWN and state is not None and not go_out:
        assert isinstance(policy, SimulatedPlayer)
        hand = Counter(view.hand + (drawn,))
        if state.away and away_at_least(floors.get(seat), hand) >= 1:
            known = False
        else:
            known = _known_after(policy, state, drawn)
            if known and known.proven_optimal and known.cards_away is not None:
                floors[seat] = (hand, known.cards_away)
    return Puzzle(
        kind=kind,
        rules=table.rules.name,
        round=table.round_number,
        players=table.players,
        moment=Moment.AFTER_DRAW,
        hand=_sorted(view.hand + (drawn,)),
        discard_pile=tuple(pile),
        table=tuple(tuple(melds) for melds in table.melds),
        seat=seat,
        turn=table.turns[seat] + 1,
        buys_used=table.buys_used[seat],
        bought_last=table.last_buyer == seat,
    ), known


def away_at_least(floor: Floor | None, hand: Counter[Card]) -> int:
    """The fewest cards ``hand`` can be away from laying down, from a hand proven ``away`` cards
    away (``floor``): a hand holding no card beyond those is as far at least (fewer cards never
    lay down sooner), and each card beyond them brings it one card nearer at most. Outside
    go-out rounds, where a lay-down's cards are a part of the hand and the rest is left over."""
    if floor is None:
        return 0
    cards, away = floor
    return away - sum((hand - cards).values())


def _known_after(player: SimulatedPlayer, state: Any, drawn: Card) -> Known:
    """What the table's player knows of the hand of ``state`` (before its draw) once it holds
    ``drawn``, outside go-out rounds: a card that cannot help (the player's quick test) leaves a
    hand that could not lay down as far as it was (False), and so does a hand short of wild
    cards for the contract (``wild_cards_short``: most hands two cards away, which the table
    would not solve, as it follows its plan there); else the whole hand's lay-down from the
    player's own solver, which the table asks the same question of when it plays the turn
    (memoised, so nothing is solved twice). It is the question ``derive`` would ask first (the
    same solver, bounded by the same deterministic work), so the answer is the same.

    False and a lay-down that cannot lay down lead ``_worth_a_look`` and ``derive`` the same way
    (both ask the hasty players, neither reads the cards away), and a solve skipped here is one
    the table makes for itself if it ever asks, with the same answer: no puzzle changes."""
    if state.away is None:
        return None
    if state.away > 0 and not player.may_help(state, drawn):
        return False
    hand = state.held + (drawn,)
    if state.away > 0 and wild_cards_short(hand, player.rules, player.round_number) > 0:
        return False  # the solver would say it cannot lay down: a solve the table seldom asks for
    return player.solver.lay_down(hand)


def _buy_position(table: Table) -> Found:
    """The face-up card the seat in turn declines, offered to the next seat."""
    if not (table.discards and table.offer_open) or table.players < 3:
        return None, None
    in_turn = table.current
    card = table.discards[-1]
    if table.policies[in_turn].wants_discard(table.view(in_turn), card):
        return None, None
    seat = (in_turn + 1) % table.players
    if table.melds[seat] or not table.may_buy(seat):
        return None, None
    return Puzzle(
        kind=Kind.BUY,
        rules=table.rules.name,
        round=table.round_number,
        players=table.players,
        moment=Moment.BEFORE_DRAW,
        hand=_sorted(table.hands[seat]),
        discard_pile=tuple(table.discards[:-1]),
        table=tuple(tuple(melds) for melds in table.melds),
        seat=seat,
        offered=card,
        turn=table.turns[seat] + 1,
        buys_used=table.buys_used[seat],
        bought_last=table.last_buyer == seat,
    ), None


def _worth_a_look(position: Puzzle, known: Known = None) -> bool:
    """A cheap filter before the costly analysis: a lay-down the table knows cannot be laid down only if a hasty player would lay it down (it
    may look ready: ``derive`` rejects it otherwise, the same way)."""
    if position.kind is Kind.LAY_DOWN:
        if known is None or (known is not False and known.can_lay_down):
            return True
        rules = preset(position.rules)
        return any(not hasty_play(position.hand, rules, position.round, strategy).cannot for strategy in STRATEGIES)
    return True  # a buy: every real offer, the cards that help and those that do not


def _planted(rules: Rules, round_number: int, players: int, rng: random.Random, seed: int) -> Puzzle | None:
    """Plant the contract and disturb it: its melds from the real deck (runs often of one suit,
    end to end), now and then a card swapped for a joker, the rest of the after-draw hand at
    random."""
    deck = rules.deck_for(players)
    pool = _deck(deck.decks, deck.jokers)
    one_suit = rng.random() < 0.6
    suit = rng.choice(_SUITS)
    next_low = rng.randint(1, 8)
    hand: list[Card] = []
    for spec in rules.round(round_number).contract:
        if spec.kind == MeldKind.RUN:
            if one_suit and next_low + spec.size <= 15:
                # Runs of one suit end to end: a hasty player lays them touching.
                run_suit, low = suit, next_low
                next_low = low + spec.size
            else:
                run_suit, low = rng.choice(_SUITS), rng.randint(1, 15 - spec.size)
            wanted = [card_at(p, run_suit) for p in range(low, low + spec.size)]
        else:
            rank = rng.choice(_RANKS)
            wanted = [Card(rank, rng.choice(_SUITS)) for _ in range(spec.size)]
        for card in wanted:
            if pool[card] > 0:
                pool[card] -= 1
                hand.append(card)
    size = rules.round(round_number).deal + 1
    if pool[_JOKER] > 0 and hand and rng.random() < 0.6:
        hand[rng.randrange(len(hand))] = _JOKER
        pool[_JOKER] -= 1
    rest = list(pool.elements())
    rng.shuffle(rest)
    while len(hand) < size and rest:
        hand.append(rest.pop())
    hand = hand[:size]
    if Counter(hand)[_JOKER] > deck.jokers:
        return None
    position = Puzzle(
        kind=Kind.LAY_DOWN,
        rules=rules.name,
        round=round_number,
        players=players,
        moment=Moment.AFTER_DRAW,
        hand=_sorted(hand),
        source="planted",
        seed=seed,
        generator=GENERATOR,
    )
    return derive(position)


# ---- from a position to a puzzle ---------------------------------------------------------------------


def derive(position: Puzzle, best_play: LayDownAnswer | None = None, *, known: Known = None) -> Puzzle | None:
    """The puzzle for ``position`` (its answers, margin, analysis, themes and rating), or None
    when it is not clear enough to ask, or the analyser could not finish it (``TIME_LIMIT``).

    A lay-down puzzle's ``solution`` is the solver's best play, or ``best_play`` when that play
    is legal (the validator) and keeps the optimum's points: ``puzzles verify`` passes the stored
    one, so that themes read off the play (which melds hold the wild card, the ace, the long
    run) stay those of the stored play when the solver comes to prefer another of equal merit.

    ``known``: what the caller knows of the lay-down hand (outside go-out rounds) from the same
    solver under the same deterministic work (the table's player, ``Known``): the whole hand's
    lay-down, or False when it certainly cannot lay down. The first solve is then skipped; the
    puzzle is the same."""
    with deterministic_work(WORK):
        return _derive(position, best_play, known)


def _derive(position: Puzzle, best_play: LayDownAnswer | None, known: Known = None) -> Puzzle | None:
    if position.kind is Kind.LAY_DOWN:
        derived = _lay_down(position, best_play, known)
    else:
        derived = {Kind.DISCARD: _discard, Kind.BUY: _buy}[position.kind](position)
    if derived is None:
        return None
    puzzle = derived
    puzzle = dataclasses.replace(puzzle, themes=tag(puzzle))
    return dataclasses.replace(puzzle, rating=difficulty(puzzle))


def _lay_down(position: Puzzle, best_play: LayDownAnswer | None = None, known: Known = None) -> Puzzle | None:
    """Accepted when the answer is proven and a hasty play (or the rule-aware greedy player's,
    ``puzzles.hasty.plays``) fails: illegal, more points kept, or "cannot" said of a hand that
    can; or the hand looks ready (the loose rules let it lay down)
    and cannot, and a hasty player would lay down anyway."""
    rules = preset(position.rules)
    hasty_plays = plays(position.hand, rules, position.round)
    if not rules.round(position.round).go_out and _plainly_no_puzzle(position, rules, hasty_plays, known):
        return None
    best = analyze(position.hand, rules, position.round, position.players, TIME_LIMIT, Moment.AFTER_DRAW)
    if not best.proven_optimal:
        return None
    best_points = best.points_after_discard if best.can_lay_down else None
    solution = _lay_down_solution(position, rules, best, best_play)
    hasty = [
        _hasty_outcome(position, rules, strategy, play, best_points) for strategy, play in hasty_plays.items()
    ]
    failures = sum(outcome["fails"] for outcome in hasty)
    if best.can_lay_down and failures == 0:
        return None
    if not best.can_lay_down and all(outcome["cannot"] for outcome in hasty):
        return None
    looks_ready = best.can_lay_down or _looks_ready(position, rules)
    if not looks_ready:
        return None
    margin = LayDownMargin(
        proven_optimal=True,
        hasty_failures=failures,
        hasty_players=len(hasty),
        looks_ready=looks_ready,
        near_best=_near_best(position, rules) if best.can_lay_down else 0,
    )
    best_said = _best_dict(best)
    analysis = LayDownAnalysis(
        best=best_said,
        hasty=hasty,
        reason=lay_down_reason(position.hand, rules, position.round, best_said, hasty),
    )
    return dataclasses.replace(
        position,
        answers=(("lay-down",) if best.can_lay_down else (CANNOT,)),
        best_points=best_points,
        solution=solution,
        margin=margin,
        analysis=analysis,
    )


def _plainly_no_puzzle(position: Puzzle, rules: Rules, hasty_plays: dict[str, LayDownAnswer],
                       known: Known) -> bool:
    """Whether one plain solve of the hand before the draw (``known`` when given) already rules
    the position out: most hands at the table can neither lay down nor look ready, and most that
    lay down hold no trap (every hasty play legal and as good as the best)."""
    whole = known
    if whole is None:
        whole = analyze(position.hand, rules, position.round, position.players, TIME_LIMIT, Moment.BEFORE_DRAW)
    lays_down = whole is not False and whole.can_lay_down
    if not lays_down and all(play.cannot for play in hasty_plays.values()):
        return True
    return whole is not False and _no_trap(position, rules, whole, hasty_plays.values())


def _lay_down_solution(position: Puzzle, rules: Rules, best: LayDown,
                       best_play: LayDownAnswer | None) -> LayDownAnswer:
    """The answer the puzzle shows: the analyser's best play, checked by the validator, or
    ``best_play`` when it is another play of equal merit (the one the themes read)."""
    if not best.can_lay_down:
        return LayDownAnswer(cannot=True)
    best_points = best.points_after_discard
    solution = LayDownAnswer(best.melds, best.discard)
    problems, points = play_problems(position.hand, rules, position.round, solution)
    if problems or points != best_points:
        raise GenerationError(
            f"the analyser's best play of {_tokens(position.hand)} in {rules.name} round "
            f"{position.round} fails the validator: {problems or points}"
        )
    if (best_play is not None and not best_play.cannot
            and play_problems(position.hand, rules, position.round, best_play) == ([], best_points)):
        return best_play
    return solution


def _looks_ready(position: Puzzle, rules: Rules) -> bool:
    """Whether the loose rules (``loose_rules``) let the hand lay down, proven."""
    loose = analyze(
        position.hand, loose_rules(rules), position.round, position.players, TIME_LIMIT, Moment.AFTER_DRAW
    )
    return loose.can_lay_down and loose.proven_optimal


def _no_trap(position: Puzzle, rules: Rules, whole: LayDown, plays: Iterable[LayDownAnswer]) -> bool:
    """Whether every hasty play is legal and keeps no more points than any play of the turn can
    (``kept_at_least``): it then keeps exactly the optimum and fails no one, so ``_lay_down``
    would reject the position after solving the turn's best play (a solve per discard it may
    try); known here from the whole hand's lay-down alone."""
    bound = kept_at_least(position.hand, rules, whole)
    if bound is None:
        return False
    for play in plays:
        if play.cannot:
            return False
        problems, points = play_problems(position.hand, rules, position.round, play)
        if problems or points is None or points > bound:
            return False
    return True


def _near_best(position: Puzzle, rules: Rules) -> int:
    """How many distinct plays keep within ``NEAR_MARGIN`` points of the best (the best ones
    among them), up to ``NEAR_CAP``: a position with many close arrangements is harder to get
    right than one with a single way to lay down."""
    near = near_best_plays(
        position.hand, rules, position.round, position.players,
        margin=NEAR_MARGIN, cap=NEAR_CAP, time_limit=TIME_LIMIT,
    )
    return min(near.count, NEAR_CAP)


# Each loose reading of the rules a hasty play may rely on, as the rule change that forgives it.
RELAXATIONS: dict[str, dict[str, Any]] = {
    "same-suit-runs": {"same_suit_runs": loose_rules(preset("progressive")).same_suit_runs},
    "ace": {"ace_low": True, "ace_high": True},
    "wilds-per-meld": {"max_wilds_per_meld": None, "wilds_may_outnumber_naturals": True},
    "distinct-set-ranks": {"distinct_set_ranks": False},
    "discard-to-go-out": {"discard_to_go_out": DiscardToGoOut.OPTIONAL},
    "go-out-round": {},  # the round's go_out flag, set below
}


def _hasty_outcome(
    position: Puzzle, rules: Rules, strategy: str, play: LayDownAnswer, best_points: int | None
) -> dict[str, Any]:
    if play.cannot:
        return {
            "strategy": strategy,
            "cannot": True,
            "fails": best_points is not None,
            "problems": [],
            "points": None,
            "broken": [],
        }
    problems, points = play_problems(position.hand, rules, position.round, play)
    if best_points is None and not problems:
        raise GenerationError(
            f"the validator accepts the {strategy} play of {_tokens(position.hand)} in "
            f"{rules.name} round {position.round}, but the solver says it cannot lay down"
        )
    broken = []
    for name, change in RELAXATIONS.items():
        if name == "go-out-round":
            if not rules.round(position.round).go_out:
                continue
            loose = dataclasses.replace(
                rules,
                discard_to_go_out=DiscardToGoOut.OPTIONAL,
                rounds=tuple(dataclasses.replace(rule, go_out=False) for rule in rules.rounds),
            )
        else:
            loose = dataclasses.replace(rules, **change)
        if problems and len(play_problems(position.hand, loose, position.round, play)[0]) < len(problems):
            broken.append(name)
    fails = bool(problems) or best_points is None or (points is not None and points > best_points)
    return {
        "strategy": strategy,
        "cannot": False,
        "fails": fails,
        "play": play.to_dict(),
        "problems": problems,
        "points": points,
        "broken": broken,
    }


def _best_dict(best: LayDown) -> dict[str, Any]:
    data = best.to_dict()
    keys = (
        "can_lay_down",
        "melds",
        "leftover",
        "leftover_points",
        "discard",
        "points_after_discard",
        "goes_out",
        "cards_away",
        "missing",
    )
    return {key: data[key] for key in keys}


def lay_down_reason(
    hand: Sequence[Card],
    rules: Rules,
    round_number: int,
    best: Mapping[str, Any],
    hasty: Sequence[Mapping[str, Any]],
) -> str:
    """The puzzle's "why" for players: the best play (or that the hand cannot lay down) and the
    trap, what a hasty player does and why it fails, in a card player's words
    (``puzzles.hasty.mistake``). It reads only what a puzzle stores (its hand and its analysis's
    ``best`` and ``hasty``), so a shipped puzzle's sentence can be written again without solving."""
    tried = [outcome for outcome in hasty if not outcome["cannot"]]
    if not best["can_lay_down"]:
        if not tried:
            return "It looks ready, but no arrangement of it lays down the contract."
        outcome = tried[0]
        play = LayDownAnswer.from_dict(outcome["play"])
        return (
            f"It looks ready, but it cannot be laid down: a hasty player would lay down "
            f"{_melds_said(play.melds)}, but {mistake(hand, rules, round_number, play)}."
        )
    melds = _melds_said(tuple(meld_from_dict(meld) for meld in best["melds"]))
    discard = f", discard {Card.parse(best['discard']).face}" if best["discard"] is not None else ""
    end = "you go out" if best["goes_out"] else f"you keep {best['points_after_discard']} points"
    trap = next(outcome for outcome in hasty if outcome["fails"])
    who = ("A greedy player (within the rules, natural cards and long melds first)"
           if trap["strategy"] == GREEDY else "A hasty player")
    if trap["cannot"]:
        why = f"{who} sees no way to lay down"
    else:
        play = LayDownAnswer.from_dict(trap["play"])
        did = f"{who} lays down {_melds_said(play.melds)}"
        if trap["problems"]:
            why = f"{did}, but {mistake(hand, rules, round_number, play)}"
        else:
            thrown = f", discards {play.discard.face}" if play.discard is not None else ""
            more = trap["points"] - best["points_after_discard"]
            why = f"{did}{thrown} and keeps {trap['points']} points, {more} more"
    return f"Lay down {melds}{discard}: {end}. {why}."


def _melds_said(melds: Sequence[PlacedMeld]) -> str:
    """Melds as a player reads them (wild cards as what they stand for): "A, B and C"."""
    said = [meld.describe() for meld in melds]
    return said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]


def _discard(position: Puzzle) -> Puzzle | None:
    """Accepted when the top group of the discard table beats the runner-up clearly: it alone
    lays down or goes out this turn, or it is fewer cards away, or, one card away, it keeps at
    least max(3, 25%) more unseen outs."""
    advice = advise(
        position.hand,
        position.rules,
        position.round,
        position.players,
        seen=position.seen,
        discards=True,
        moment=Moment.AFTER_DRAW,
        time_limit=TIME_LIMIT,
    )
    if not advice.lay_down.proven_optimal or not advice.discards or advice.unfinished:
        return None
    rows = advice.discards
    top = [row for row in rows if row.rank == 1]
    rest = [row for row in rows if row.rank != 1]
    if not rest:
        return None
    first, runner = top[0], rest[0]
    criterion = discard_criterion(first.to_dict(), runner.to_dict())
    if criterion is None:
        return None
    margin = DiscardMargin(criterion=criterion, top=first.to_dict(), runner_up=runner.to_dict())
    puzzle = dataclasses.replace(position, answers=tuple(row.card.token for row in top), margin=margin)
    # The answer must also win in play: over the same deals of the hidden cards, the round played
    # on from it leaves the player better off against the table than from the runner-up.
    gain = judge(puzzle).gain
    if standing_of(gain) is not Standing.BETTER:
        return None
    mean, low, high = gain.rounded(1)
    in_play = {"deals": gain.n, "gain": mean, "low": low, "high": high}
    reason = _discard_reason(criterion, first.to_dict(), runner.to_dict(), len(top))
    analysis = DiscardAnalysis(
        rows=[row.to_dict() for row in rows[: len(top) + 3]],
        cards_away=advice.lay_down.cards_away,
        unseen_outs=advice.unseen_outs,
        reason=(f"{reason} Played on from here against the table, it leaves you {mean:g} points better "
                f"off on average than {Card.parse(runner.card.token).face} (95% interval {low:g} to {high:g})."),
    )
    return dataclasses.replace(puzzle, margin=dataclasses.replace(margin, in_play=in_play), analysis=analysis)


def discard_criterion(top: dict[str, Any], runner: dict[str, Any]) -> str | None:
    """Why the top discard beats the runner-up clearly (``lays-down``, ``goes-out``,
    ``cards-away`` or ``outs``), or None when it does not."""
    if top["lays_down"] and not runner["lays_down"]:
        return "lays-down"
    if top["goes_out"] and not runner["goes_out"]:
        return "goes-out"
    if top["lays_down"] or runner["lays_down"] or top["cards_away"] is None:
        return None
    if runner["cards_away"] is None or top["cards_away"] < runner["cards_away"]:
        return "cards-away"
    least, share = OUTS_MARGIN
    more = top["unseen_outs"] - runner["unseen_outs"]
    if top["cards_away"] == runner["cards_away"] <= OUTS_COUNT_WITHIN and more >= max(
        least, math.ceil(share * runner["unseen_outs"])
    ):
        return "outs"
    return None


def _discard_reason(criterion: str, top: dict[str, Any], runner: dict[str, Any], tied: int) -> str:
    card = Card.parse(top["card"]).face + (
        f" (or {tied - 1} other card{'s' * (tied > 2)} as good)" if tied > 1 else ""
    )
    other = Card.parse(runner["card"]).face
    if criterion == "lays-down":
        return f"Discard {card}: it is the only way to lay down this turn (the next best, {other}, does not)."
    if criterion == "goes-out":
        return f"Discard {card}: it is the only way to go out this turn."
    if criterion == "cards-away":
        return (
            f"Discard {card}: you stay {top['cards_away']} card(s) away; "
            f"without {other} you would be {'never' if runner['cards_away'] is None else runner['cards_away']}"
            " away."
        )
    return (
        f"Discard {card}: {top['unseen_outs']} unseen cards would help, "
        f"against {runner['unseen_outs']} after discarding {other}."
    )


def _buy(position: Puzzle) -> Puzzle | None:
    """Accepted when the advice's answer (buy an out, else pass) and the simulation agree: the
    verdict is buy or pass, clear of the close-call margin by at least three standard errors,
    the same under a second seed with twice the rollouts, and the same as the answer. The
    answer is the rule measured in play (docs/strength.md); a position where the simulation
    says otherwise is no clear puzzle."""
    assert position.offered is not None
    verdicts = []
    answer = None
    for seed, rollouts in zip(BUY_SEEDS, (BUY_ROLLOUTS, 2 * BUY_ROLLOUTS)):
        advice = advise(
            position.hand,
            position.rules,
            position.round,
            position.players,
            seen=position.seen,
            buy=position.offered,
            rollouts=rollouts,
            seed=seed,
            buys_used=position.buys_used,
            bought_last=position.bought_last,
            moment=Moment.BEFORE_DRAW,
            turn=position.turn,
            time_limit=TIME_LIMIT,
        )
        assert advice.buy is not None
        verdicts.append(advice.buy)
        if advice.buy.verdict.value not in (BUY, PASS) or not advice.buy.finished or advice.unfinished:
            return None
        if len(verdicts) == 1:
            clearance = abs(advice.buy.difference) - advice.buy.margin
            if advice.buy.std_error is not None and clearance < 3 * advice.buy.std_error:
                return None
            before = advice.lay_down.cards_away
            answer = advice.buy_answer
    if verdicts[0].verdict != verdicts[1].verdict:
        return None
    assert answer is not None
    if answer.verdict is not verdicts[0].verdict:
        return None
    first = verdicts[0]
    after = analyze(
        position.hand + (position.offered,),
        position.rules,
        position.round,
        position.players,
        TIME_LIMIT,
        Moment.BEFORE_DRAW,
    ).cards_away
    margin = BuyMargin(
        verdict=first.verdict.value,
        difference=round(first.difference, 2),
        margin=round(first.margin, 2),
        std_error=None if first.std_error is None else round(first.std_error, 2),
        second={
            "seed": BUY_SEEDS[1],
            "rollouts": 2 * BUY_ROLLOUTS,
            "verdict": verdicts[1].verdict.value,
            "difference": round(verdicts[1].difference, 2),
        },
    )
    analysis = BuyAnalysis(
        verdict=first.to_dict(),
        second=verdicts[1].to_dict(),
        cards_away=before,
        cards_away_with_card=after,
        needs_buying=needs_buying(preset(position.rules), position.round),
        reason=f"{answer.reason} In simulated play: {first.reason[0].lower()}{first.reason[1:]}",
    )
    return dataclasses.replace(position, answers=(first.verdict.value,), margin=margin, analysis=analysis)


def needs_buying(rules: Rules, round_number: int) -> bool:
    """The round's contract needs more cards than a hand holds after its draw (one more where
    going out needs a discard): only buying gets it down (docs/advice.md)."""
    rule = rules.round(round_number)
    needed = sum(spec.size for spec in rule.contract) + (
        rules.discard_to_go_out == DiscardToGoOut.REQUIRED and not rule.go_out
    )
    return needed > rule.deal + 1


# ---- difficulty --------------------------------------------------------------------------------------


def difficulty(puzzle: Puzzle, *, near_best: bool = True) -> int:
    """An initial rating (Glicko-2 scale, 800-2200) from the position, refined later by players'
    results: hasty players failed, hand size, wild cards, how near the runner-up is, and for a
    lay-down how many plays are near the best (``margin.near_best``: distinct plays within
    ``NEAR_MARGIN`` points of the best, up to ``NEAR_CAP``): 100 points for each doubling, so one
    play adds nothing, two add 100, ten about 330.

    The discard puzzle's equivalent is the top group: a clear puzzle has no other discard within
    its margin (``discard_criterion``), so the discards near the best are the accepted answers,
    which the rating counts already (40 each beyond the first). A buy is a yes or no: there are
    no arrangements to count.

    ``near_best=False``: the rating without that term (the first generator's), which the daily
    puzzle's difficulty band reads (``puzzles.daily``)."""
    rules = preset(puzzle.rules)
    wilds = sum(rules.is_wild(card) for card in puzzle.hand)
    score = 1000 + 20 * (len(puzzle.hand) - 7) + 60 * min(wilds, 3) + 40 * sum(theme not in UNRATED for theme in puzzle.themes)
    margin = puzzle.margin
    if puzzle.kind is Kind.LAY_DOWN:
        laid = margin if isinstance(margin, LayDownMargin) else None
        score += 150 * (laid.hasty_failures if laid else 0)
        score += 250 if puzzle.best_points is None else 0
        near = (laid.near_best or 0) if laid and near_best else 0
        score += int(100 * math.log2(near)) if near > 1 else 0
    elif isinstance(margin, DiscardMargin):
        score += {"lays-down": 50, "goes-out": 50, "cards-away": 200, "outs": 350}[margin.criterion]
        score += 40 * min(len(puzzle.answers) - 1, 3)
    else:
        assert isinstance(margin, BuyMargin), f"a {puzzle.kind} puzzle without its margin"
        clear = abs(margin.difference) - margin.margin
        score += 200 + int(300 / (1 + max(0.0, clear) / max(1.0, margin.margin)))
    return max(800, min(2200, int(round(score, -1))))


# ---- cards -------------------------------------------------------------------------------------------

_JOKER = Card(None, None)
_SUITS = list(Suit)
_RANKS = list(Rank)


def _deck(decks: int, jokers: int) -> Counter[Card]:
    """The copies of every card in ``decks`` standard decks and ``jokers`` jokers."""
    copies = Counter({Card(rank, suit): decks for suit in Suit for rank in Rank})
    copies[_JOKER] = jokers
    return copies


def _sorted(cards: Sequence[Card]) -> tuple[Card, ...]:
    return tuple(sorted(cards, key=Card.sort_key))


def _tokens(cards: Sequence[Card]) -> str:
    return " ".join(card.token for card in cards)
