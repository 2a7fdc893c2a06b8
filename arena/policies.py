"""The players of the arena, each a policy by name: ``random``, ``greedy``, ``simulated``, ``advised``
(the advice: it buys an offered card that is one of its outs), and three ways ``advised`` could
buy instead, for comparison: ``advised-verdict`` (by the simulated buy verdict against the table,
the advice's buy answer until play showed it weaker), ``advised-old-buy`` (the verdict on the
buyer's own points alone) and ``advised-completes`` (only an out that completes the contract).

A policy sees what its seat may see at the table, a ``Sight``: its hand, its own melds, every
seat's melds, the discard pile and the card on offer. Never the stock, never another hand: the
seat (``arena.duplicate.Seat``) builds the sight from the table and hands on nothing else.

Every policy is a pure function of what it is shown and of the seeds it was made with, and all
solving runs under ``deterministic_work`` (the caller's), so a table plays the same on any machine.
"""

from __future__ import annotations

import enum
import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from analyzer import (
    AdviceError,
    BuyObjective,
    Card,
    DiscardToGoOut,
    DownAdvice,
    MeldKind,
    Moment,
    Play,
    Rank,
    RoundSolver,
    Rules,
    SeatView,
    SimulatedPlayer,
    Table,
    Verdict,
    advise,
    advise_down,
    advised_play,
    analyze,
    extend_meld,
    work_limit,
)
from analyzer.round_solver import ProvenAnswers

# Seconds that only guard against a runaway answer: every solve is bounded by deterministic work
# (the caller's ``deterministic_work``), which is what makes the answers the same on any machine.
TIME_LIMIT = 600.0
SIMULATED_WORK = 2.0  # deterministic work per solve of a SimulatedPlayer, as analyzer.simulate's tables
MAX_VERDICT_TURN = 60  # the latest own turn the buy verdict is asked about (analyzer.buy.MAX_TURN)
# Buy verdicts remembered in a process, the oldest forgotten first. A finished verdict is a pure
# function of what it was asked and of the work bound, so remembering it changes no decision;
# /play rebuilds its table (and its computer players) on every request and asks again the
# players who were asked before the person about an offer the person is to answer.
VERDICTS_KEPT = 4096


@dataclass(frozen=True)
class Sight(SeatView):
    """What a seat may see at a decision: its own seat (``SeatView``: hand, melds, the card drawn,
    own turn, buys, every seat's melds) and the table: the discard pile, who bought last."""

    players: int
    discards: tuple[Card, ...]  # the discard pile, its top card last (the card on offer, if any)
    bought_last: bool  # the round's last buy was this seat's

    @classmethod
    def at(cls, view: SeatView, table: Table) -> Sight:
        """What the seat of ``view`` sees at ``table``: its view and the table's public state."""
        return cls(view.seat, view.hand, view.melds, view.drawn, view.turn, view.buys_used, view.table,
                   table.players, tuple(table.discards), table.last_buyer == view.seat)

    def seen(self, offered: Card | None = None) -> tuple[Card, ...]:
        """The cards in sight but the hand (and the card on offer, when there is one): the pile
        and the melds on the table, as ``advise`` counts them."""
        pile = list(self.discards)
        if offered is not None and pile and pile[-1] == offered:
            pile.pop()
        return tuple(pile) + tuple(card for melds in self.table for meld in melds for card in meld.cards)


class ArenaPolicy(Protocol):
    """A seat's three decisions, shown a ``Sight`` (the table's ``Policy``, given more to see)."""

    def wants_discard(self, sight: Sight, card: Card) -> bool: ...

    def wants_to_buy_at(self, sight: Sight, card: Card) -> bool: ...

    def choose_play_after_draw(self, sight: Sight) -> Play: ...


class PolicyName(enum.StrEnum):
    """The closed set of policies, resolved to a player in one place (``make_policy``)."""

    RANDOM = "random"
    GREEDY = "greedy"
    SIMULATED = "simulated"
    ADVISED = "advised"
    ADVISED_VERDICT = "advised-verdict"
    ADVISED_OLD_BUY = "advised-old-buy"
    ADVISED_COMPLETES = "advised-completes"

    @classmethod
    def named(cls, name: str) -> PolicyName:
        try:
            return cls(name.lower())
        except ValueError:
            raise ValueError(f"unknown policy {name!r}; known: {', '.join(cls)}") from None


@dataclass(frozen=True)
class Round:
    """The round the policies play: rule set, round number, players at the table."""

    rules: Rules
    number: int
    players: int

    def simulated_player(self) -> SimulatedPlayer:
        """A fresh ``SimulatedPlayer`` with its own memoised solver (bounded by work, not seconds)."""
        return SimulatedPlayer(RoundSolver(self.rules, self.number, self.rules.deck_for(self.players), math.inf,
                                           work=SIMULATED_WORK))


def make_policy(name: PolicyName, at: Round, seed: str) -> ArenaPolicy:
    """The player called ``name`` for this round; ``seed`` fixes a random player's choices."""
    if name is PolicyName.RANDOM:
        return RandomPlayer(at, random.Random(f"arena-random/{seed}"))
    if name is PolicyName.GREEDY:
        return GreedyPlayer(at, at.simulated_player())
    if name is PolicyName.SIMULATED:
        return at.simulated_player()
    buying = {PolicyName.ADVISED_VERDICT: Buying.VERDICT,
              PolicyName.ADVISED_OLD_BUY: Buying.OWN_POINTS_VERDICT,
              PolicyName.ADVISED_COMPLETES: Buying.COMPLETING}.get(name, Buying.OUTS)
    return AdvisedPlayer(at, at.simulated_player(), seed, buying)


# ---- random: any legal play ------------------------------------------------------------------------


class RandomPlayer:
    """Any legal play, each choice a coin toss: take the face-up card or not, buy or not, lay down
    (the analyser's play) or not when the hand can, lay off each card that fits or not; the discard
    is any card held."""

    def __init__(self, at: Round, rng: random.Random) -> None:
        self.at, self.rng = at, rng

    def wants_discard(self, sight: Sight, card: Card) -> bool:
        return self.rng.random() < 0.5

    def wants_to_buy_at(self, sight: Sight, card: Card) -> bool:
        return self.rng.random() < 0.5

    def choose_play_after_draw(self, sight: Sight) -> Play:
        rules = self.at.rules
        hand = list(sight.hand)
        if not sight.melds:
            play = _lay_down_play(self.at, sight)
            if play is not None and self.rng.random() < 0.5:
                return play
            return Play(discard=self.rng.choice(hand))
        melds = list(sight.melds)
        lay_offs: list[tuple[int, Card]] = []
        for card in sorted(hand, key=Card.sort_key):
            if len(hand) == 1 and rules.discard_to_go_out == DiscardToGoOut.REQUIRED:
                break  # the last card is the discard that goes out
            fits = [(index, extended) for index, meld in enumerate(melds)
                    if (extended := extend_meld(meld, card, rules)) is not None]
            if fits and self.rng.random() < 0.5:
                index, extended = self.rng.choice(fits)
                melds[index] = extended
                hand.remove(card)
                lay_offs.append((index, card))
        if not hand or (len(hand) == 1 and rules.discard_to_go_out == DiscardToGoOut.NEVER):
            return Play(lay_offs=tuple(lay_offs))
        return Play(lay_offs=tuple(lay_offs), discard=self.rng.choice(hand))


def _lay_down_play(at: Round, sight: Sight) -> Play | None:
    """The analyser's best play of the turn (``analyze`` after the draw, told the seat's buys:
    where buying is unlimited a buyer of everything holds more cards than a few buys give), or
    None when the hand cannot lay down."""
    best = analyze(sight.hand, at.rules, at.number, at.players, TIME_LIMIT, Moment.AFTER_DRAW, sight.buys_used)
    if not best.can_lay_down:
        return None
    return Play(lay_down=best.melds, discard=best.discard)


# ---- greedy: a rule-aware greedy player -------------------------------------------------------------

LOOSE, NEAR, MELDED, WILD = 0, 1, 2, 3  # how much a card is part of something, for ``GreedyPlayer``


class GreedyPlayer:
    """A simple rule-aware greedy player. Before laying down it keeps its melds and near-melds
    (sets and runs the contract asks for, by card counting, no solver) and discards its
    costliest loose card; it takes the face-up card, or buys it, only when the card completes a
    meld (a wild card it takes always, and buys when it holds a near-meld); it lays down when
    the analyser says it can, with the analyser's play. Once down it plays as ``SimulatedPlayer``
    does (lays off what fits, discards the costliest)."""

    def __init__(self, at: Round, after_lay_down: SimulatedPlayer) -> None:
        self.at, self.after = at, after_lay_down
        contract = at.rules.round(at.number).contract
        self.set_size = min((spec.size for spec in contract if spec.kind is not MeldKind.RUN), default=None)
        self.run_size = min((spec.size for spec in contract if spec.kind is MeldKind.RUN), default=None)

    def wants_discard(self, sight: Sight, card: Card) -> bool:
        if sight.melds:
            return self.after.wants_discard(sight, card)
        return self.at.rules.is_wild(card) or self._completes(sight.hand, card)

    def wants_to_buy_at(self, sight: Sight, card: Card) -> bool:
        if sight.melds:
            return False
        if self.at.rules.is_wild(card):
            return any(level == NEAR for level in self.levels(sight.hand).values())
        return self._completes(sight.hand, card)

    def choose_play_after_draw(self, sight: Sight) -> Play:
        if sight.melds:
            return self.after.choose_play_after_draw(sight)
        play = _lay_down_play(self.at, sight)
        if play is not None:
            return play
        levels = self.levels(sight.hand)
        points = self.at.rules.points_of
        return Play(discard=max(sight.hand, key=lambda c: (-levels[c], points(c), c.sort_key())))

    def _completes(self, hand: Sequence[Card], card: Card) -> bool:
        """Whether ``card`` makes a meld the hand does not have: it is melded with the hand's
        cards, and more of them are melded than before."""
        before = self.levels(hand)
        after = self.levels([*hand, card])
        melded = sum(1 for c in hand if before[c] == MELDED)
        return after[card] == MELDED and sum(1 for c in hand if after[c] == MELDED) > melded

    def levels(self, hand: Sequence[Card]) -> dict[Card, int]:
        """Each card kind of ``hand``: WILD, MELDED (in a set or run of the contract's size),
        NEAR (with another card that could make one) or LOOSE."""
        rules = self.at.rules
        naturals = [c for c in hand if not rules.is_wild(c)]
        by_rank = Counter(c.rank for c in naturals)
        places: dict[object, set[int]] = {}
        for c in naturals:
            places.setdefault(c.suit, set()).update(_places(c, rules))
        levels = {}
        for card in hand:
            if rules.is_wild(card):
                levels[card] = WILD
                continue
            level = LOOSE
            if self.set_size is not None:
                count = by_rank[card.rank]
                level = MELDED if count >= self.set_size else NEAR if count >= 2 else LOOSE
            if self.run_size is not None and level < MELDED:
                held = places[card.suit]
                for place in _places(card, rules):
                    for first in range(place - self.run_size + 1, place + 1):
                        window = set(range(first, first + self.run_size))
                        if window <= held:
                            level = MELDED
                        elif len(window & held) >= 2:
                            level = max(level, NEAR)
            levels[card] = level
        return levels


def _places(card: Card, rules: Rules) -> tuple[int, ...]:
    """The places a natural card takes in a run, 1 (low ace) to 14 (high ace)."""
    assert card.rank is not None
    if card.rank == Rank.ACE:
        return tuple(p for p, allowed in ((1, rules.ace_low), (14, rules.ace_high)) if allowed)
    return (int(card.rank),)


# ---- advised: follows the public advice ----------------------------------------------------------------


class Buying(enum.Enum):
    """How an ``AdvisedPlayer`` decides to buy before laying down."""

    OUTS = "outs"  # the advice's answer: the card is one of the hand's outs (brings the contract closer)
    VERDICT = "verdict"  # the simulated buy verdict against the table says BUY
    OWN_POINTS_VERDICT = "own-points verdict"  # the verdict on the buyer's own points alone says BUY
    COMPLETING = "completing"  # the advice's answer says BUY and the card completes the contract (one away)


class AdvisedPlayer:
    """Follows the analyser's public advice at every decision. Before laying down: the turn's
    best play when it can lay down, else the discard table's top row (``advised_play``); it
    takes the face-up card when the card is one of its outs, and buys by the advice's answer
    (``advise(..., buy=card).buy_answer``; ``buying`` may say to ask a simulated verdict
    instead, BUY only). Once down: the best row of the advice once down (``advise_down``: its
    lay-offs on any meld, jokers taken back, its discard) and its take-or-draw for the face-up
    card; where that advice has no answer (a go-out round, melds past the contract's) and for
    buying, it plays as ``SimulatedPlayer`` does."""

    def __init__(self, at: Round, after_lay_down: SimulatedPlayer, seed: str,
                 buying: Buying = Buying.OUTS) -> None:
        self.at, self.after, self.buying = at, after_lay_down, buying
        self.verdict_seed = random.Random(f"arena-advised/{seed}").randrange(2**31)
        self._outs: dict[tuple[tuple[Card, ...], tuple[Card, ...]], frozenset[Card]] = {}

    def wants_discard(self, sight: Sight, card: Card) -> bool:
        if sight.melds:
            down = self.down(sight, card)
            if down is None or down.face_up is None:
                return self.after.wants_discard(sight, card)
            return down.face_up.take
        return card in self.outs(sight, card)

    def wants_to_buy_at(self, sight: Sight, card: Card) -> bool:
        if sight.melds:
            return self.after.wants_to_buy_at(sight, card)
        at = self.at
        if self.buying in (Buying.OUTS, Buying.COMPLETING):  # the advice's own answer, no simulation
            advice = advise(sight.hand, at.rules, at.number, at.players, seen=_sorted(sight.seen(card)), buy=card,
                            time_limit=TIME_LIMIT, buys_used=sight.buys_used, bought_last=sight.bought_last,
                            moment=Moment.BEFORE_DRAW, simulate_buy=False)
            assert advice.buy_answer is not None
            if self.buying is Buying.COMPLETING:  # a buy costs penalty cards: only the card that lays down
                return advice.buy_answer.buys and advice.lay_down.cards_away == 1
            return advice.buy_answer.buys
        objective = BuyObjective.OWN_POINTS if self.buying is Buying.OWN_POINTS_VERDICT else BuyObjective.AGAINST_TABLE
        seen, turn = _sorted(sight.seen(card)), min(sight.turn + 1, MAX_VERDICT_TURN)
        asked = (at, sight.hand, seen, card, self.verdict_seed, sight.buys_used, sight.bought_last, turn, objective,
                 work_limit())
        known = _VERDICTS.get(asked)
        if isinstance(known, bool):
            return known
        advice = advise(sight.hand, at.rules, at.number, at.players, seen=seen, buy=card, seed=self.verdict_seed,
                        time_limit=TIME_LIMIT, buys_used=sight.buys_used, bought_last=sight.bought_last,
                        moment=Moment.BEFORE_DRAW, turn=turn, buy_objective=objective)
        assert advice.buy is not None
        buys = advice.buy.verdict is Verdict.BUY
        if advice.buy.finished:  # one stopped by its seconds might finish otherwise another time
            _VERDICTS.put(asked, buys)
        return buys

    def choose_play_after_draw(self, sight: Sight) -> Play:
        if sight.melds:
            return self.play_down(sight)
        at = self.at
        play = advised_play(sight.hand, at.rules, at.number, at.players, seen=_sorted(sight.seen()),
                            time_limit=TIME_LIMIT, buys_used=sight.buys_used)
        if play is None:  # nothing ranked (never under deterministic work): the plain player's play
            return self.after.choose_play_after_draw(sight)
        return play

    def play_down(self, sight: Sight) -> Play:
        """The best play of the advice once down, its moves named by the table's seats."""
        down = self.down(sight)
        if down is None:
            return self.after.choose_play_after_draw(sight)
        seats = _down_seats(sight)
        moves = tuple(replace(move, seat=seats[move.seat]) for move in down.best.moves)
        return Play(moves=moves, discard=down.best.discard)

    def down(self, sight: Sight, face_up: Card | None = None) -> DownAdvice | None:
        """``advise_down`` for this seat (before the draw with the face-up card ``face_up``, else
        after it): its own melds, the other seats' melds in seat order, the discard pile seen;
        before the draw, only what the take-or-draw rests on (``best_only``).
        None where it gives no advice (``AdviceError``: a go-out round, melds that are not the
        round's contract)."""
        at = self.at
        pile = list(sight.discards)
        if face_up is not None and pile and pile[-1] == face_up:
            pile.pop()
        others = [sight.table[seat] for seat in _down_seats(sight)[1:]]
        try:
            return advise_down(sight.hand, at.rules, at.number, sight.melds, others, players=at.players,
                               seen=pile, face_up=face_up, time_limit=TIME_LIMIT, best_only=face_up is not None)
        except AdviceError:
            return None

    def outs(self, sight: Sight, offered: Card) -> frozenset[Card]:
        """The hand's outs before its draw, the offered card not counted as seen."""
        seen = _sorted(sight.seen(offered))
        key = (sight.hand, seen)
        if key not in self._outs:
            at = self.at
            advice = advise(sight.hand, at.rules, at.number, at.players, seen=seen, time_limit=TIME_LIMIT,
                            moment=Moment.BEFORE_DRAW, buys_used=sight.buys_used)
            self._outs.clear()  # one hand at a time
            self._outs[key] = frozenset(out.card for out in advice.outs)
        return self._outs[key]


# The last ``VERDICTS_KEPT`` finished buy verdicts asked in this process (any thread), by question:
# a finished verdict is a pure function of the question and the work bound, both in the key.
_VERDICTS = ProvenAnswers(VERDICTS_KEPT)


def _down_seats(sight: Sight) -> tuple[int, ...]:
    """The table's seat of each seat of ``advise_down``'s answer: the player first, then every
    other seat with melds on the table, in seat order (``advise_down`` leaves out the others)."""
    return (sight.seat, *(seat for seat, melds in enumerate(sight.table) if seat != sight.seat and melds))


def _sorted(cards: Sequence[Card]) -> tuple[Card, ...]:
    return tuple(sorted(cards, key=Card.sort_key))
