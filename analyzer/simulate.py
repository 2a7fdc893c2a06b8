"""The simulated round: a table with the rule set's deck, the stock, the discard pile and players
each following a policy, buying as the rules allow. The buy verdict asks it questions (how
soon do other players go out?) and the puzzle generator will draw positions from its play.

    >>> table = Table.deal(preset("progressive"), 1, players=3, seed=1)
    >>> outcome = table.play()
    >>> outcome.finished, sum(len(hand) for hand in table.hands) + len(table.stock) + len(table.discards) \\
    ...     + sum(len(m.cards) for melds in table.melds for m in melds) == len(table.deck)
    (True, True)

Pieces, each usable alone:

- ``extend_meld``: a card laid off on a meld on the table, within the rule set's limits;
- ``SimulatedPlayer``: a plain, consistent player built on the analyser (docs/advice.md), both
  a ``Policy`` for the ``Table`` and a state machine the buy verdict drives turn by turn;
- ``Table``: ``Table.deal(rules, round_number, players, seed)``, ``play_turn()``, ``play()``,
  ``play_until(stop)`` and ``position(seat)`` to halt at a position worth asking about, events
  for observers (``Table.observers``) and a record of them (``Table.events``); every play is
  checked move by move by the full rules (``analyzer.moves``: lay-offs on any meld, jokers
  taken back, going out) and applied only whole (``Table.check``);
- ``going_out_chances``: how likely another player is to go out on each of its turns, measured
  by self-play of ``SimulatedPlayer``s at a ``Table`` and cached (``analyzer.going_out_table``).
"""

from __future__ import annotations

import copy
import enum
import hashlib
import json
import math
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from analyzer.cards import ALL_CARD_KINDS, JOKER, Card, sorted_cards
from analyzer.hand import deck_copies
from analyzer.melds import meld_problems, run_places, run_span
from analyzer.moves import LayOff, Move, Substitution, TableError, Turn, grown, play_turn
from analyzer.result import LayDown, PlacedMeld
from analyzer.round_solver import RoundSolver
from analyzer.rules import PRESETS, DeckRule, DiscardToGoOut, JokerSubstitution, MeldKind, Rules, preset
from analyzer.turn import best_turn
from analyzer.validate import validate_lay_down

MAX_TURNS_EACH = 100  # a round nobody finishes (too few buys to ever lay down) stops after as many turns each
# Simulated play is a pure function of its seed: each solve is bounded by CP-SAT's deterministic
# time (analyzer/solver/work.py), never by seconds, so a loaded machine plays the same round.
# Real hands take a few thousandths of a unit (measured: 0.01 at most for Eveleigh); a unit is
# 2-4 s of one core here.
SIMULATED_WORK = 2.0
NO_TIME_LIMIT = math.inf  # seconds per solve: none
MEASURE_GAMES = 60  # self-play rounds behind a shipped going-out table entry
QUICK_MEASURE_GAMES = 16  # ...and behind one measured on demand (custom rules, other player counts)
MEASURE_TURNS_EACH = 40  # self-play rounds stop after this many turns each (nobody out: no chance)
MIN_AT_RISK = 24  # turns with fewer players still in play than this are pooled with the later ones
BUY_WITHIN: int | None = None  # a hand this near its contract buys a card its plan misses (None: any)
REPLAN_WITHIN = 1  # a hand farther than this from its contract follows its plan without solving again


# The other players' melds a player may lay off on: (seat, its melds), by seat.
Others = Sequence[tuple[int, Sequence[PlacedMeld]]]


# ---- melds on the table --------------------------------------------------------------------------


def extend_meld(meld: PlacedMeld, card: Card, rules: Rules) -> PlacedMeld | None:
    """The meld with ``card`` laid off on it, or None when the card does not fit: the table's
    own test (``analyzer.moves.grown``, at the high end of a run when the card fits there, else
    the low), without its reason."""
    made = grown(meld, card, rules)
    return None if isinstance(made, str) else made


def meld_is_valid(meld: PlacedMeld, rules: Rules) -> bool:
    """Whether a meld on the table is one: the validator's test of one meld
    (``analyzer.melds.meld_problems``)."""
    return not meld_problems(meld, rules)


def cards_to_lay_down(rules: Rules, round_number: int) -> int:
    """The fewest cards a hand after its draw needs to lay down: the contract's, and one more to
    discard where going out needs a discard (laying down every card would be going out)."""
    rule = rules.round(round_number)
    return sum(spec.size for spec in rule.contract) + (rules.discard_to_go_out == DiscardToGoOut.REQUIRED and not rule.go_out)


# ---- the simulated player ------------------------------------------------------------------------

Tried = dict[Card, PlacedMeld | None]  # cards tried on one meld: the meld each makes (None: it does not fit)


@dataclass(frozen=True)
class PlayerState:
    """A player's hand between turns, with its melds on the table (none: not laid down yet) and,
    until it lays down, its plan: the nearest lay-down the solver found."""

    held: tuple[Card, ...]
    melds: tuple[PlacedMeld, ...] = ()
    away: int | None = 0  # cards away of ``held`` before the draw (None: never); 0 once laid down
    unused: tuple[Card, ...] = ()  # held cards the plan leaves unused (0 away: the best leftover)
    missing: tuple[Card, ...] = ()  # cards the plan still needs
    plan: tuple[PlacedMeld, ...] = ()  # the plan's melds (0 away: the best lay-down)

    @property
    def laid_down(self) -> bool:
        return bool(self.melds)


@dataclass(frozen=True)
class TurnResult:
    """One turn of the simulated player, after its draw."""

    state: PlayerState  # as the turn ends
    laid_down: tuple[PlacedMeld, ...]  # melds put down this turn (the contract), else empty
    lay_offs: tuple[tuple[int, Card], ...]  # (index of the player's meld, card), in order
    discard: Card | None
    went_out: bool
    moves: tuple[Move, ...] = ()  # lay-offs on the other players' melds, in order


class SimulatedPlayer:
    """A plain, consistent player (docs/advice.md, "The simulated player").

    Before laying down, each turn it keeps the nearest lay-down the solver finds as its plan and
    discards a natural card the plan leaves unused, a loose one before one of a near-meld
    (``_loosest``); it lays down as soon as it can (``_plain_turn``, else ``best_turn``), laying
    off at once where ``lay_off_same_turn`` allows. After laying down it lays off every card that
    fits one of its melds, then one of the other players' melds it is shown (``others``, where
    ``lay_off_on_others`` allows), puts a natural card in the place of a joker that stands for
    it (``joker_substitution``; the joker laid off at once), and discards the costliest of the
    rest, going out when its hand empties as the rules allow. It takes the face-up discard
    instead of drawing when that brings it closer (or, laid down, when the card fits a meld), and
    buys a card its plan misses (or a wild card) whatever the penalty outside go-out rounds (in
    those only when buying is free or the round needs more cards than drawing ever gives).

    The hand is solved again only when a card may matter: a hand more than ``REPLAN_WITHIN``
    cards away follows its plan (only the plan's missing cards, or a wild card in their place,
    bring it closer), and nearer a quick test (``may_help``) shows most cards cannot be part of
    any meld of a nearer lay-down, and then the plan just takes them."""

    def __init__(self, round_solver: RoundSolver) -> None:
        self.solver = round_solver
        self.rules = round_solver.rules
        self.round_number = round_solver.round_number
        self.round_rule = self.rules.round(self.round_number)
        self.go_out_round = self.round_rule.go_out
        self.cards_to_lay_down = cards_to_lay_down(self.rules, self.round_number)
        self._states: dict[tuple[tuple[Card, ...], tuple[PlacedMeld, ...]], PlayerState] = {}
        # The rule set's facts of each card kind, looked up: a buy verdict's play asks them
        # hundreds of thousands of times (profiled).
        points = self.rules.points_by_card()
        self._wild_cards = frozenset(card for card in ALL_CARD_KINDS if self.rules.is_wild(card))
        self._cost = {card: (points[card], card.sort_key()) for card in ALL_CARD_KINDS}  # costliest: the largest
        self._lay_off_order = {card: (-points[card], card.sort_key()) for card in ALL_CARD_KINDS}  # costliest first
        contract = self.round_rule.contract
        self._set_in_contract = any(spec.kind != MeldKind.RUN for spec in contract)
        # In a contract of two sets or more (outside go-out rounds), the size of set a bought card
        # may make with the naturals of its rank held (None: no such buying); see ``wants_to_buy``.
        set_sizes = [spec.size for spec in contract if spec.kind != MeldKind.RUN]
        self._buys_for_sets = min(set_sizes) if len(set_sizes) >= 2 and not self.go_out_round else None
        # A run's reach: two naturals of a suit this many places apart or nearer share a run (0: no run).
        self._run_reach = min((spec.size for spec in contract if spec.kind == MeldKind.RUN), default=0)
        self._places = {card: run_places(card, self.rules) for card in ALL_CARD_KINDS
                        if card not in self._wild_cards and card.rank is not None}
        # Every meld its laid-down hands have had, with the cards tried on it: ``extend_meld``'s
        # answer (None: it does not fit). A meld meets the same few cards turn after turn.
        self._lay_offs: dict[PlacedMeld, Tried] = {}

    def for_one_round(self) -> SimulatedPlayer:
        """The same player with plans of its own (``start``'s and ``_remember``'s): a round it
        plays then depends on that round's cards alone, not on which rounds were played before
        it, so that the buy verdict may play its rounds side by side on threads. The solver's
        answers and the lay-off answers stay shared: they are the same whoever asks first."""
        player = copy.copy(self)
        player._states = {}
        return player

    # -- states --------------------------------------------------------------------------------

    def start(self, held: Sequence[Card], melds: tuple[PlacedMeld, ...] = ()) -> PlayerState:
        """The state of a hand before its draw (with its melds, if laid down)."""
        key = (sorted_cards(held), melds)
        if key not in self._states:
            if melds:
                self._states[key] = PlayerState(key[0], melds)
            elif self._too_few_to_go_out(len(key[0]) + 1):
                self._states[key] = PlayerState(key[0], (), None, key[0])  # never, as the solver says
            else:
                self._states[key] = self._planned(self.solver.lay_down(key[0], before_draw=True))
        return self._states[key]

    def _too_few_to_go_out(self, after_draw: int) -> bool:
        """Whether a hand holding ``after_draw`` cards after its draw can never lay down, by its
        size alone: in a go-out round the melds hold exactly those cards (before the draw, the
        hand and the card to draw), and fewer than the contract's cards meld no contract. The
        solver says "never" (cards away None) for such a hand whatever its cards, so it is not
        asked: most hands of kolsov's round 10 (three runs of 5 from 11 dealt) until they buy."""
        return self.go_out_round and after_draw < self.cards_to_lay_down

    def _planned(self, lay_down: LayDown) -> PlayerState:
        unused = (lay_down.leftover if lay_down.can_lay_down else
                  lay_down.kept_with_missing() if lay_down.cards_away else lay_down.hand)
        plan = lay_down.melds if lay_down.can_lay_down else lay_down.with_missing
        return PlayerState(lay_down.hand, (), lay_down.cards_away, tuple(unused), lay_down.missing, plan)

    def _remember(self, state: PlayerState) -> PlayerState:
        """Keep a hand's plan for ``start`` to find. A laid-down state is its cards and melds
        alone, as ``start`` makes it: nothing to keep (and its melds are dear to hash)."""
        if not state.laid_down:
            self._states.setdefault((state.held, state.melds), state)
        return state

    def with_cards(self, state: PlayerState, cards: Sequence[Card]) -> PlayerState:
        """The state after taking cards between turns (a bought card and its penalty cards). The
        plan takes them without solving again: a card it misses, or a wild card in a missing
        place, fills that place; any other card is one more unused card."""
        if state.laid_down or state.away is None:
            return self.start(state.held + tuple(cards), state.melds)
        missing, unused, away = list(state.missing), list(state.unused), state.away
        for card in cards:
            away -= self._fill(missing, unused, card)
        return self._remember(PlayerState(sorted_cards(state.held + tuple(cards)), (), away, tuple(unused),
                                          tuple(missing), state.plan))

    def _fill(self, missing: list[Card], unused: list[Card], card: Card) -> int:
        """Give the plan ``card``: 1 when it fills a missing place (a wild card takes the costliest
        one; its meld's wild limits are not checked), else 0 and it is unused."""
        filled = card if card in missing else self._costliest(missing) if missing and card in self._wild_cards \
            else None
        if filled is None:
            unused.append(card)
            return 0
        missing.remove(filled)
        return 1

    # -- what it wants -----------------------------------------------------------------------------

    def wants(self, state: PlayerState, card: Card) -> bool:
        """Whether ``card`` would bring the hand closer to its contract (laid down: fits a meld)."""
        if state.laid_down:
            return self._lay_off(state.melds, self._tried_on(state.melds), card) is not None
        if state.away is None or state.away == 0:
            return False
        if state.away > REPLAN_WITHIN:
            return (card in state.missing or (card in self._wild_cards and bool(state.missing))
                    or self._makes_meld(state.held, card))
        if not self.may_help(state, card):
            return False
        closer = self.solver.lay_down(state.held + (card,))
        return closer.cards_away is not None and closer.cards_away < state.away

    def wants_to_buy(self, state: PlayerState, card: Card, penalty: int) -> bool:
        """Buy a card its plan misses (or a wild card) when buying costs nothing, when the hand
        then lays down on its next turn, or when drawing alone can never give the contract's
        cards. Judged by the plan alone, so a buy costs no solving. A hand out of reach by its
        size (cards away None) buys any card; in a contract of two sets or more, outside go-out
        rounds, a natural card making a set with the naturals of its rank held is bought too
        (``_makes_a_set``).

        One card away, the bought card completes the plan, and the penalty cards stay in hand
        unused: the hand lays down next turn. Not in a go-out round, where laying down melds
        every card: the penalty cards and the next draw must fit the melds too, and a bigger
        hand is harder to meld whole (measured: fewer such buys go out next turn than passes)."""
        if state.laid_down or state.away == 0:
            return False
        short = len(state.held) + 1 < self.cards_to_lay_down
        if state.away is None:
            return short  # out of reach by its size alone (kolsov's last round): any card is one it needs
        near = not self.go_out_round and (BUY_WITHIN is None or state.away <= BUY_WITHIN)
        if not (penalty == 0 or near or short):
            return False
        return (card in state.missing or (card in self._wild_cards and bool(state.missing))
                or self._makes_a_set(state, card))

    def _makes_a_set(self, state: PlayerState, card: Card) -> bool:
        """In a contract of two sets or more, a natural card that makes a set with the naturals of
        its rank held: a pair the plan leaves out is the hand's second chance at a set (measured
        in play against ``greedy``, which buys so: docs/strength.md)."""
        size = self._buys_for_sets
        if size is None or card in self._wild_cards or card.rank is None:
            return False
        return sum(held.rank == card.rank for held in state.held if held not in self._wild_cards) + 1 >= size

    def may_help(self, state: PlayerState, drawn: Card) -> bool:
        """A quick test that ``drawn`` might be an out, or for a hand 0 away might be melded
        (False: it certainly is not).

        Such a card is part of some meld of a lay-down that misses at most ``away - 1`` cards
        (none when 0 away); the meld's other cards are held cards or those missing ones, so a
        set needs ``size - max(away, 1)`` held cards of its rank or wild, a run as many held
        naturals on distinct places of one window around the card, or wild cards (no more than
        a meld may take)."""
        rules, wild_cards = self.rules, self._wild_cards
        if drawn in wild_cards:
            return True
        assert state.away is not None and drawn.rank is not None
        spare = max(state.away - 1, 0)  # missing cards the meld may still lack
        naturals = [card for card in state.held if card not in wild_cards]
        held_wilds = len(state.held) - len(naturals)

        def enough(held_naturals: int, size: int) -> bool:
            # Wild cards the meld can take from the hand: within the per-meld limit and, when
            # they may not outnumber the naturals, no more than the naturals it can have.
            wilds = held_wilds if rules.max_wilds_per_meld is None else min(held_wilds, rules.max_wilds_per_meld)
            if not rules.wilds_may_outnumber_naturals:
                wilds = min(wilds, held_naturals + 1 + spare)
            return held_naturals + wilds >= size - 1 - spare

        for spec in set(self.round_rule.contract):
            if spec.kind != MeldKind.RUN:
                if enough(sum(1 for card in naturals if card.rank == drawn.rank), spec.size):
                    return True
                continue
            places = {p for card in naturals if card.suit == drawn.suit for p in run_places(card, rules)}
            for place in run_places(drawn, rules):
                for first in range(max(place - spec.size + 1, 1 if rules.ace_low else 2),
                                   min(place, (14 if rules.ace_high else 13) - spec.size + 1) + 1):
                    window = set(range(first, first + spec.size)) - {place}
                    if enough(len(window & places), spec.size):
                        return True
        return False

    # -- a turn --------------------------------------------------------------------------------------

    def play_turn(self, state: PlayerState, drawn: Card, turns_left: int | None = None,
                  others: Others = (), seat: int | None = None) -> TurnResult:
        """The turn after drawing (or taking) ``drawn``. ``turns_left`` (this one included), when
        known, lets a hand that cannot lay down in time skip the solver. ``others``: the other
        players' melds, by seat, that a laid-down hand may lay off on (where the rules allow);
        ``seat``, the player's own, when known, lets it take jokers back (``Substitution``)."""
        if not self.rules.lay_off_on_others:
            others = ()
        if state.laid_down:
            return self._after_lay_down(state, drawn, others, seat)
        if turns_left is not None and state.away is not None and state.away > turns_left:
            return self._keep_plan(state, drawn)
        if state.away is not None and state.away > REPLAN_WITHIN and not self._makes_meld(state.held, drawn):
            return self._keep_plan(state, drawn)  # far from the contract: it follows its plan
        if state.away is not None and not self.may_help(state, drawn):
            if state.away == 0 and not self.go_out_round and self._holds_plan(state):
                # The best lay-down stands; the drawn card is one more leftover card.
                return self._lay_down(state.plan, list(state.unused) + [drawn], others)
            return self._keep_plan(state, drawn)
        if self._too_few_to_go_out(len(state.held) + 1):
            # No lay-down (never, as the solver would say of the hand and of the hand less any
            # card): the costliest natural card goes, as ``discard_choice`` picks from a hand
            # that is never anything but unused.
            hand = list(state.held) + [drawn]
            discard = self._costliest([c for c in hand if c not in self._wild_cards] or hand)
            hand.remove(discard)
            return TurnResult(self.start(hand), (), (), discard, False)
        quick = self._plain_turn(state.held + (drawn,), others)
        if quick is not None:
            return quick
        play = best_turn(self.solver, state.held + (drawn,))
        if play is not None:
            return self._finish_lay_down(play.melds, play.discard, play.kept, play.goes_out, others)
        lay_down = self.solver.lay_down(state.held + (drawn,))
        discard = self.discard_choice(lay_down)
        rest = list(lay_down.hand)
        rest.remove(discard)
        unused = list(lay_down.kept_with_missing()) if lay_down.cards_away else []
        if discard in unused and not self.go_out_round:
            # The nearest plan of the hand after the draw did not need the card: it stands.
            unused.remove(discard)
            after = self._remember(PlayerState(sorted_cards(rest), (), lay_down.cards_away, tuple(unused),
                                               lay_down.missing, lay_down.with_missing))
        else:  # the plan needed it (or the hand cannot tell, or counts in draws): plan again
            after = self.start(rest)
        return TurnResult(after, (), (), discard, False)

    def _plain_turn(self, hand: tuple[Card, ...], others: Others = ()) -> TurnResult | None:
        """The turn's play without ``best_turn``: the whole hand's best lay-down with its
        costliest leftover card discarded. That is the best play (fewest points kept) unless a
        melded card is costlier than that discard and the leftover cards can take its place,
        which is rare and costs ``best_turn`` a solve for every such card: the player does not
        look. When the lay-down melds every card and going out needs a discard, a card comes off
        a meld longer than the contract asks (any play that goes out is as good). None: a
        go-out round, or a last card the rules forbid discarding: ask ``best_turn``."""
        if self.go_out_round:
            return None
        rules = self.rules
        whole = self.solver.lay_down(hand)
        if not whole.can_lay_down:
            return None
        if not whole.leftover:
            if rules.discard_to_go_out != DiscardToGoOut.REQUIRED:
                return self._finish_lay_down(whole.melds, None, (), True)
            shortest = {spec.kind: spec.size for spec in sorted(self.round_rule.contract, key=lambda s: -s.size)}
            for index, meld in enumerate(whole.melds):
                if len(meld.cards) <= shortest[meld.kind]:
                    continue
                # A run's top end, else its low end; either may leave it touching another run
                # of its suit where the rules forbid that (no-touch, gaps): then the next try.
                for shorter, card in ((PlacedMeld(meld.kind, meld.cards[:-1], meld.stands_for[:-1]), meld.cards[-1]),
                                      (PlacedMeld(meld.kind, meld.cards[1:], meld.stands_for[1:]), meld.cards[0])):
                    melds = whole.melds[:index] + (shorter,) + whole.melds[index + 1:]
                    if not validate_lay_down(hand, rules, self.round_number, melds, (card,)):
                        return self._finish_lay_down(melds, card, (), True)
            return None
        discard = self._costliest(whole.leftover)
        kept = list(whole.leftover)
        kept.remove(discard)
        if not kept and rules.discard_to_go_out == DiscardToGoOut.NEVER:
            return None
        return self._finish_lay_down(whole.melds, discard, kept, not kept, others)

    def _holds_plan(self, state: PlayerState) -> bool:
        """Whether the hand holds every card of its plan's melds (a wild card that filled a
        missing place stands in the plan as the card it replaced: the hand is solved again)."""
        return not Counter(card for meld in state.plan for card in meld.cards) - Counter(state.held)

    def _lay_down(self, melds: tuple[PlacedMeld, ...], leftover: list[Card], others: Others = ()) -> TurnResult:
        """Lay down ``melds`` with these cards left over, then discard the costliest of them
        (keeping a last card the rules forbid going out by discarding)."""
        if not leftover or (len(leftover) == 1 and self.rules.discard_to_go_out == DiscardToGoOut.NEVER):
            return self._finish_lay_down(melds, None, tuple(leftover), not leftover, others)
        discard = self._costliest(leftover)
        leftover.remove(discard)
        return self._finish_lay_down(melds, discard, tuple(leftover), not leftover, others)

    def _finish_lay_down(self, melds: tuple[PlacedMeld, ...], discard: Card | None, kept: Sequence[Card],
                         goes_out: bool, others: Others = ()) -> TurnResult:
        """Lay down ``melds``, discard ``discard`` and keep ``kept``; where the rules let a
        player lay off on the turn it lays down (``lay_off_same_turn``), the kept cards that fit
        a meld on the table go first (costliest first, as ``_after_lay_down``), and the hand
        goes out when none is left. A last card the rules forbid discarding to go out stays."""
        if not (kept and self.rules.lay_off_same_turn):
            after = self._remember(PlayerState(sorted_cards(kept), melds))
            return TurnResult(after, melds, (), discard, goes_out)
        hand = sorted(kept, key=self._lay_off_order.__getitem__)
        grown_melds = list(melds)
        keep = 1 if discard is not None and self.rules.discard_to_go_out == DiscardToGoOut.NEVER else 0
        lay_offs, moves = self._lay_off_all(hand, grown_melds, others, keep)
        after = self._remember(PlayerState(sorted_cards(hand), tuple(grown_melds)))
        return TurnResult(after, melds, tuple(lay_offs), discard, not hand, tuple(moves))

    def _keep_plan(self, state: PlayerState, drawn: Card) -> TurnResult:
        """A turn whose card cannot bring the hand closer (or cannot in time): the plan stays, the
        drawn card fills one of its missing places or joins the unused cards, and the costliest
        unused natural card goes (a planned card only when nothing else is left: the plan then
        misses it again)."""
        missing, unused, away = list(state.missing), list(state.unused), state.away
        filled = self._fill(missing, unused, drawn)
        away = None if away is None else away - filled
        held = list(state.held) + [drawn]
        wild_cards = self._wild_cards
        discard = self._loosest([c for c in unused if c not in wild_cards] or unused
                                or [c for c in held if c not in wild_cards] or held, held)
        held.remove(discard)
        if discard in unused:
            unused.remove(discard)
        elif away is not None:  # a planned card goes (nothing else left): the plan misses it again
            missing.append(discard)
            away += 1
        after = PlayerState(sorted_cards(held), (), away, tuple(unused), tuple(missing), state.plan)
        return TurnResult(self._remember(after), (), (), discard, False)

    def _after_lay_down(self, state: PlayerState, drawn: Card, others: Others = (),
                        seat: int | None = None) -> TurnResult:
        """Lay off every card that fits a meld (its own, then the other players' in ``others``),
        costliest first, a natural card that fits none taking a joker's place where the rules
        allow (the joker then laid off at once), then discard the costliest of the rest; go out
        when the hand empties as ``discard_to_go_out`` allows."""
        rules = self.rules
        dealt = sorted(state.held + (drawn,), key=self._lay_off_order.__getitem__)  # costliest first
        hand, melds = list(dealt), list(state.melds)
        must_discard = rules.discard_to_go_out == DiscardToGoOut.REQUIRED
        never = rules.discard_to_go_out == DiscardToGoOut.NEVER
        # the last card is for the discard that goes out
        lay_offs, moves = self._lay_off_all(hand, melds, others, 1 if must_discard else 0, seat)
        if never and len(hand) == 1 and (lay_offs or moves):
            # Laying off every card that fits leaves a last card that fits nowhere, which may not
            # be discarded: discard it instead, and keep the cheapest card that fits (the hand
            # goes out next turn when the drawn card fits too).
            stuck = hand[0]
            hand, melds = list(dealt), list(state.melds)
            hand.remove(stuck)
            lay_offs, moves = self._lay_off_all(hand, melds, others, 1, seat)
            after = self._remember(PlayerState(sorted_cards(hand), tuple(melds)))
            return TurnResult(after, (), tuple(lay_offs), stuck, False, tuple(moves))
        tried = self._tried_on(melds)
        discard: Card | None = None
        if len(hand) == 1 and never:
            pass  # it may not go out by discarding: the last card waits for a meld it fits
        elif never and len(hand) == 2:
            # Keep the card nearer to fitting a meld: it is the one that can go out.
            discard = max(hand, key=lambda c: (self._fit_distance(c, melds, tried), *self._cost[c]))
            hand.remove(discard)
        elif hand:
            discard = self._costliest(hand)
            hand.remove(discard)
        after = self._remember(PlayerState(sorted_cards(hand), tuple(melds)))
        return TurnResult(after, (), tuple(lay_offs), discard, not hand, tuple(moves))

    def _lay_off_all(self, hand: list[Card], melds: list[PlacedMeld], others: Others, keep: int,
                     own_seat: int | None = None) -> tuple[list[tuple[int, Card]], list[Move]]:
        """Lay off the cards of ``hand`` (costliest first) that fit: on the first of its own
        ``melds`` a card fits, else on the first meld of ``others`` (by seat), until ``keep``
        cards are left; ``hand`` and ``melds`` change in place. Knowing its ``own_seat``, a
        natural card that fits nowhere takes a joker's place (``_take_joker``). The lay-offs on
        its own melds (index, card) and the moves (``LayOff`` on the others' melds, and every
        move after a joker is taken back), each in order."""
        tried = self._tried_on(melds)
        theirs = [(seat, list(seat_melds)) for seat, seat_melds in others]
        their_tried = [self._tried_on(seat_melds) for _, seat_melds in theirs]
        lay_offs: list[tuple[int, Card]] = []
        moves: list[Move] = []
        # The costliest card that fits goes on the first meld it fits; then the cards are looked
        # at again from the costliest, as the longer meld may take one that did not fit before.
        laid_off = True
        while laid_off and len(hand) > keep:
            laid_off = False
            for position, card in enumerate(hand):
                fit = self._lay_off(melds, tried, card)
                if fit is not None:
                    index, extended = fit
                    melds[index], tried[index] = extended, self._tried(extended)
                    # The table plays its own lay-offs before the moves: after a joker is taken
                    # back, its lay-offs are moves too, in order.
                    if own_seat is not None and moves and any(isinstance(m, Substitution) for m in moves):
                        moves.append(LayOff(card, own_seat, index))
                    else:
                        lay_offs.append((index, card))
                else:
                    for (seat, seat_melds), seat_tried in zip(theirs, their_tried):
                        fit = self._lay_off(seat_melds, seat_tried, card)
                        if fit is not None:
                            index, extended = fit
                            seat_melds[index], seat_tried[index] = extended, self._tried(extended)
                            moves.append(LayOff(card, seat, index))
                            break
                if fit is None and own_seat is not None:
                    taken = self._take_joker(card, own_seat, melds, theirs)
                    if taken:
                        moves += taken
                        tried[:] = self._tried_on(melds)
                        their_tried[:] = [self._tried_on(seat_melds) for _, seat_melds in theirs]
                        del hand[position]
                        laid_off = True
                        break
                if fit is not None:
                    del hand[position]
                    laid_off = True
                    break
        return lay_offs, moves

    def _take_joker(self, card: Card, own_seat: int, melds: list[PlacedMeld],
                    theirs: list[tuple[int, list[PlacedMeld]]]) -> list[Move]:
        """The natural ``card`` put in the place of a joker that stands for it on the table (a
        run's joker standing for that card; a set's joker of its rank where the rules let sets
        give jokers back), and the joker laid off at once on the first meld it fits: the two
        moves, or none when the rules, the table or the joker's new place do not allow it. The
        melds change in place."""
        rules = self.rules
        if rules.joker_substitution is JokerSubstitution.NONE or card in self._wild_cards:
            return []
        sets_too = rules.joker_substitution is JokerSubstitution.RUNS_AND_SETS
        tables = [(own_seat, melds)] + theirs
        for seat, seat_melds in tables:
            for index, meld in enumerate(seat_melds):
                if meld.kind == MeldKind.RUN:
                    places = [i for i, (held, meaning) in enumerate(zip(meld.cards, meld.stands_for))
                              if held.is_joker and meaning == card]
                elif sets_too and card.rank == meld.stands_for[0].rank:
                    places = [i for i, held in enumerate(meld.cards) if held.is_joker]
                else:
                    continue
                if not places:
                    continue
                place = places[0]
                made = PlacedMeld(meld.kind, meld.cards[:place] + (card,) + meld.cards[place + 1:],
                                  meld.stands_for[:place] + (card,) + meld.stands_for[place + 1:])
                seat_melds[index] = made
                for where, where_melds in tables:
                    fit = self._lay_off(where_melds, self._tried_on(where_melds), JOKER)
                    if fit is not None:
                        at, extended = fit
                        where_melds[at] = extended
                        return [Substitution(card, seat, index), LayOff(JOKER, where, at)]
                seat_melds[index] = meld  # the joker has no place to go: the meld stays
        return []

    def discard_choice(self, lay_down: LayDown) -> Card:
        """The costliest natural card the nearest plan leaves unused (else any unused card, else
        the costliest natural card held): a player keeps its melds and its wild cards."""
        unused = lay_down.kept_with_missing() if lay_down.cards_away else lay_down.hand
        wild_cards = self._wild_cards
        choices = ([c for c in unused if c not in wild_cards] or list(unused)
                   or [c for c in lay_down.hand if c not in wild_cards] or list(lay_down.hand))
        return self._loosest(choices, lay_down.hand)

    # -- card facts and lay-offs, looked up ------------------------------------------------------

    def _loosest(self, cards: Sequence[Card], held: Sequence[Card]) -> Card:
        """The card of ``cards`` to part with: a loose one (no other natural of ``held`` makes a
        near-meld with it: a pair for a set, two cards of a suit within a run's reach) before
        one that is part of a near-meld, and of those the costliest. A near-meld the plan leaves
        unused is the hand's second chance: kept, a card drawn later may make it a meld."""
        if len(cards) == 1:
            return cards[0]
        near = self._near_set(held)
        return max(cards, key=lambda card: (card not in near, self._cost[card]))

    def _makes_meld(self, held: Sequence[Card], card: Card) -> bool:
        """Whether the natural ``card`` turns a near-meld of ``held`` into a meld of three
        naturals: a pair of its rank into a set, or two of its suit into three places of one
        run's window. A far hand that follows its plan solves again for such a card: the plan
        was made without it."""
        if card in self._wild_cards:
            return False
        naturals = [c for c in held if c not in self._wild_cards]
        if self._set_in_contract and sum(1 for c in naturals if c.rank == card.rank) >= 2:
            return True
        reach = self._run_reach
        if reach:
            places = {p for c in naturals if c.suit == card.suit and c.rank != card.rank for p in self._places[c]}
            for place in self._places[card]:
                for first in range(place - reach + 1, place + 1):
                    if len(places & set(range(first, first + reach))) >= 2:
                        return True
        return False

    def _near_set(self, held: Sequence[Card]) -> set[Card]:
        """The naturals of ``held`` in a near-meld the contract asks for: a pair of a rank (a set
        in the contract), or two of a suit whose places are within a run's length (a run)."""
        naturals = [card for card in held if card not in self._wild_cards]
        near: set[Card] = set()
        if self._set_in_contract:
            ranks = Counter(card.rank for card in naturals)
            near.update(card for card in naturals if ranks[card.rank] >= 2)
        if self._run_reach:
            places = self._places
            for i, card in enumerate(naturals):
                for other in naturals[i + 1:]:
                    if other.suit == card.suit and other.rank != card.rank and any(
                            0 < abs(a - b) < self._run_reach for a in places[card] for b in places[other]):
                        near.add(card)
                        near.add(other)
        return near

    def _costliest(self, cards: Sequence[Card]) -> Card:
        """The card worth the most points (of two worth as much, the later in card order)."""
        return max(cards, key=self._cost.__getitem__)

    def _tried(self, meld: PlacedMeld) -> Tried:
        tried = self._lay_offs.get(meld)
        if tried is None:
            tried = self._lay_offs[meld] = {}
        return tried

    def _tried_on(self, melds: Sequence[PlacedMeld]) -> list[Tried]:
        """The cards tried on each meld so far (``_lay_off`` adds to them)."""
        return [self._tried(meld) for meld in melds]

    def _lay_off(self, melds: Sequence[PlacedMeld], tried: list[Tried], card: Card) -> tuple[int, PlacedMeld] | None:
        """The first of ``melds`` that ``card`` fits, by index, and the meld it makes there:
        ``extend_meld``, asked once per meld and card kind."""
        for index, meld in enumerate(melds):
            answers = tried[index]
            if card not in answers:
                answers[card] = extend_meld(meld, card, self.rules)
            extended = answers[card]
            if extended is not None:
                return index, extended
        return None

    def _fit_distance(self, card: Card, melds: Sequence[PlacedMeld], tried: list[Tried]) -> float:
        """How many cards short of fitting one of the melds ``card`` is: 0 when it fits, else the
        places between it and the nearest end of a run of its suit (infinite: never)."""
        if self._lay_off(melds, tried, card) is not None:
            return 0
        distance = float("inf")
        for meld in melds:
            if meld.kind == MeldKind.RUN and meld.stands_for[0].suit == card.suit:
                first, last = run_span(meld)
                for place in run_places(card, self.rules):
                    distance = min(distance, place - last - 1 if place > last else first - place - 1)
        return distance

    # -- as a table policy -----------------------------------------------------------------------

    def wants_discard(self, seat: SeatView, card: Card) -> bool:
        return self.wants(self.start(seat.hand, seat.melds), card)

    def wants_to_buy_at(self, seat: SeatView, card: Card) -> bool:
        penalty = self.rules.buy_penalty_in(self.round_number)
        return self.wants_to_buy(self.start(seat.hand, seat.melds), card, penalty)

    def choose_play_after_draw(self, seat: SeatView) -> Play:
        assert seat.drawn is not None
        before = list(seat.hand)
        before.remove(seat.drawn)
        others = tuple((other, melds) for other, melds in enumerate(seat.table) if other != seat.seat and melds)
        result = self.play_turn(self.start(before, seat.melds), seat.drawn, others=others, seat=seat.seat)
        return Play(result.laid_down, result.lay_offs, result.discard, result.moves)


# ---- the table -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeatView:
    """What a policy sees of its own seat at a decision point."""

    seat: int
    hand: tuple[Card, ...]  # in card order; after the draw in ``choose_play_after_draw``
    melds: tuple[PlacedMeld, ...]  # its melds on the table (empty: not laid down)
    drawn: Card | None  # the card drawn or taken this turn (``choose_play_after_draw`` only)
    turn: int  # the seat's own turn number, from 1
    buys_used: int
    table: tuple[tuple[PlacedMeld, ...], ...]  # every seat's melds, by seat (its own among them)


@dataclass(frozen=True)
class Position:
    """One seat's view of the table between turns: what a puzzle shows and the advice reads
    (``advise(position.hand, ..., seen=position.seen, buy=position.face_up, ...)``)."""

    rules: str
    round_number: int
    players: int
    seat: int
    hand: tuple[Card, ...]  # in card order
    melds: tuple[tuple[PlacedMeld, ...], ...]  # every seat's melds on the table, by seat
    discards: tuple[Card, ...]  # the discard pile, its face-up card last
    face_up: Card | None  # the face-up card while it is still on offer
    seen: tuple[Card, ...]  # every card the seat can see but its hand and the card on offer
    turn: int  # own turns played
    buys_used: int
    bought_last: bool  # the last buy of the round was this seat's


@dataclass(frozen=True)
class Play:
    """What a player does after its draw, in this order: lay down the contract (or not), lay off
    cards on its own melds (meld index, card), make the full rules' moves on any player's melds
    (``analyzer.moves``: lay-offs and jokers taken back, in order), discard (None: no discard).
    The table checks each move (``analyzer.moves.Turn``) and applies the play only whole."""

    lay_down: tuple[PlacedMeld, ...] = ()
    lay_offs: tuple[tuple[int, Card], ...] = ()
    discard: Card | None = None
    moves: tuple[Move, ...] = ()


class Policy(Protocol):
    """How a seat plays: the three decisions the table asks of it."""

    def wants_discard(self, seat: SeatView, card: Card) -> bool:
        """Take the face-up discard instead of drawing from the stock?"""
        ...

    def wants_to_buy_at(self, seat: SeatView, card: Card) -> bool:
        """Buy the face-up discard the player in turn declined (the rules allow it)?"""
        ...

    def choose_play_after_draw(self, seat: SeatView) -> Play:
        ...


class EventKind(enum.Enum):
    DEAL = "deal"  # cards: the face-up card that starts the discard pile
    TAKE = "take"  # the player in turn takes the face-up discard
    BUY = "buy"  # cards: the bought card, then the penalty cards
    DRAW = "draw"
    RESHUFFLE = "reshuffle"  # the discard pile, less its top card, becomes the stock
    LAY_DOWN = "lay down"  # cards: every card of the contract's melds; melds: the melds as laid
    LAY_OFF = "lay off"  # cards: the card laid off; meld: whose meld, which; melds: that meld after it
    SUBSTITUTE = "substitute"  # cards: the natural card put in a joker's place; meld, melds: as a lay-off's
    DISCARD = "discard"
    GO_OUT = "go out"
    STOP = "stop"  # the round ends unfinished: no cards left to draw, or too many turns


@dataclass(frozen=True)
class Event:
    kind: EventKind
    seat: int
    cards: tuple[Card, ...] = ()
    turn: int = 0  # the table's turn number, from 1 (0: the deal)
    meld: tuple[int, int] | None = None  # lay-offs and substitutions: the meld's seat and index
    # The melds the move left on the table, each wild card with what it stands for (a game record,
    # ``analyzer.records``, writes them): the lay-down's melds, or the one meld a lay-off or
    # substitution made.
    melds: tuple[PlacedMeld, ...] = ()


@dataclass(frozen=True)
class Outcome:
    finished: bool  # somebody went out
    winner: int | None
    penalty_points: tuple[int, ...]  # per seat: points caught in hand (0 for the winner)
    turns: tuple[int, ...]  # per seat: own turns played


def deck_cards(deck: DeckRule) -> list[Card]:
    """Every card of the deck, in card order."""
    return [card for card in ALL_CARD_KINDS for _ in range(deck_copies(card, deck))]


@dataclass
class Table:
    """A round in play. Seat 0 plays first; turns go up the seats."""

    rules: Rules
    round_number: int
    deck: tuple[Card, ...]
    policies: list[Policy]
    rng: random.Random
    hands: list[list[Card]]
    stock: list[Card]  # the top is the end of the list
    discards: list[Card]  # the face-up card is the end of the list
    melds: list[list[PlacedMeld]]
    buys_used: list[int]
    turns: list[int]
    current: int = 0
    turn: int = 0  # table turns played
    offer_open: bool = True  # the face-up card has not been declined yet
    last_buyer: int | None = None
    winner: int | None = None
    stopped: bool = False
    max_turns: int = 0  # table turns before the round stops unfinished (0: MAX_TURNS_EACH each)
    events: list[Event] = field(default_factory=list)
    observers: list[Callable[[Table, Event], None]] = field(default_factory=list)

    @classmethod
    def deal(cls, rules: Rules, round_number: int, players: int, seed: int,
             policies: Sequence[Policy] | None = None, work: float = SIMULATED_WORK) -> Table:
        """Shuffle the deck for ``players`` with ``random.Random(seed)``, deal each seat the
        round's cards and turn one card up. Without ``policies`` every seat is a
        ``SimulatedPlayer`` sharing one memoised solver, each solve bounded by ``work`` units of
        CP-SAT's deterministic time and no seconds: the round is the same on any machine."""
        rule = rules.round(round_number)
        deck = rules.deck_for(players)
        cards = deck_cards(deck)
        rng = random.Random(seed)
        rng.shuffle(cards)
        if policies is None:
            player = SimulatedPlayer(RoundSolver(rules, round_number, deck, NO_TIME_LIMIT, work=work))
            policies = [player] * players
        if len(policies) != players:
            raise TableError(f"{players} players need {players} policies, not {len(policies)}")
        if players * rule.deal + 2 > len(cards):
            raise TableError(f"{players} players with {rule.deal} cards each need more than {len(cards)} cards")
        hands = [sorted((cards.pop() for _ in range(rule.deal)), key=Card.sort_key) for _ in range(players)]
        table = cls(rules, round_number, tuple(deck_cards(deck)), list(policies), rng, hands, cards, [cards.pop()],
                    [[] for _ in range(players)], [0] * players, [0] * players)
        table._emit(EventKind.DEAL, 0, (table.discards[-1],))
        return table

    @property
    def players(self) -> int:
        return len(self.hands)

    @property
    def finished(self) -> bool:
        return self.winner is not None or self.stopped

    def view(self, seat: int, drawn: Card | None = None) -> SeatView:
        return SeatView(seat, tuple(sorted(self.hands[seat], key=Card.sort_key)), tuple(self.melds[seat]), drawn,
                        self.turns[seat] + (drawn is not None), self.buys_used[seat],
                        tuple(tuple(melds) for melds in self.melds))

    def may_buy(self, seat: int) -> bool:
        """Whether the rules let ``seat`` buy now: buys left this round, not twice in a row
        where that is forbidden, and a stock to take the penalty cards from."""
        allowed = self.rules.buys_in(self.round_number)
        if allowed is not None and self.buys_used[seat] >= allowed:
            return False
        if self.rules.no_consecutive_buys and self.last_buyer == seat:
            return False
        return len(self.stock) >= self.rules.buy_penalty_in(self.round_number)

    def play_turn(self) -> None:
        """One turn of the player in turn: the face-up card taken, or declined and offered to the
        others in turn order (the earliest who may and wants to buys it), the draw, the play."""
        if self.finished:
            return
        seat = self.current
        self.turn += 1
        policy = self.policies[seat]
        drawn: Card | None = None
        if self.discards and self.offer_open:
            face_up = self.discards[-1]
            if policy.wants_discard(self.view(seat), face_up):
                drawn = self.discards.pop()
                self._emit(EventKind.TAKE, seat, (drawn,))
            else:
                self._offer(seat, face_up)
        if drawn is None:
            if not self.stock and not self._reshuffle():
                self._stop(seat)
                return
            drawn = self.stock.pop()
            self._emit(EventKind.DRAW, seat, (drawn,))
        self.hands[seat].append(drawn)
        self.turns[seat] += 1
        play = policy.choose_play_after_draw(self.view(seat, drawn))
        self._apply(seat, play)
        self.offer_open = play.discard is not None
        if not self.hands[seat]:
            self.winner = seat
            self._emit(EventKind.GO_OUT, seat)
        elif self.turn >= (self.max_turns or MAX_TURNS_EACH * self.players):
            self._stop(seat)
        self.current = (seat + 1) % self.players

    def play(self) -> Outcome:
        """Play turns until the round ends."""
        while not self.finished:
            self.play_turn()
        return self.outcome()

    def play_until(self, stop: Callable[[Table], bool]) -> bool:
        """Play turns until ``stop(table)`` holds between two turns (True) or the round ends
        first (False): the way to halt at a position worth asking about."""
        while not self.finished:
            if stop(self):
                return True
            self.play_turn()
        return False

    def position(self, seat: int) -> Position:
        """What ``seat`` sees now, between turns."""
        face_up = self.discards[-1] if self.discards and self.offer_open else None
        pile = tuple(self.discards[:-1] if face_up is not None else self.discards)
        on_table = tuple(c for melds in self.melds for meld in melds for c in meld.cards)
        return Position(self.rules.name, self.round_number, self.players, seat,
                        tuple(sorted(self.hands[seat], key=Card.sort_key)),
                        tuple(tuple(melds) for melds in self.melds), tuple(self.discards), face_up,
                        tuple(sorted(pile + on_table, key=Card.sort_key)), self.turns[seat],
                        self.buys_used[seat], self.last_buyer == seat)

    def outcome(self) -> Outcome:
        points = tuple(0 if seat == self.winner else sum(self.rules.points_of(c) for c in hand)
                       for seat, hand in enumerate(self.hands))
        return Outcome(self.winner is not None, self.winner, points, tuple(self.turns))

    def _offer(self, in_turn: int, card: Card) -> None:
        """The declined face-up card, offered to the others in turn order after the player in
        turn (not to its discarder, last in that order)."""
        for step in range(1, self.players - 1):
            seat = (in_turn + step) % self.players
            if self.may_buy(seat) and self.policies[seat].wants_to_buy_at(self.view(seat), card):
                penalty = [self.stock.pop() for _ in range(self.rules.buy_penalty_in(self.round_number))]
                self.discards.pop()
                self.hands[seat] += [card] + penalty
                self.buys_used[seat] += 1
                self.last_buyer = seat
                self._emit(EventKind.BUY, seat, (card, *penalty))
                return

    def _reshuffle(self) -> bool:
        if len(self.discards) < 2:
            return False
        top = self.discards.pop()
        self.stock = self.discards
        self.rng.shuffle(self.stock)
        self.discards = [top]
        self.offer_open = False
        self._emit(EventKind.RESHUFFLE, self.current, ())
        return True

    def check(self, seat: int, play: Play) -> Turn:
        """The turn ``play`` makes for ``seat`` now, checked move by move on copies of its hand
        and the melds (``analyzer.moves.Turn``): ``TableError`` naming the rule it breaks, and
        the table unchanged."""
        turn = Turn(self.rules, self.round_number, seat, self.hands[seat], self.melds)
        moves = tuple(LayOff(card, seat, index) for index, card in play.lay_offs) + play.moves
        play_turn(turn, play.lay_down, moves, play.discard)
        return turn

    def _apply(self, seat: int, play: Play) -> None:
        turn = self.check(seat, play)
        self.hands[seat] = turn.held()
        self.melds[:] = turn.melds
        if play.lay_down:
            self._emit(EventKind.LAY_DOWN, seat, tuple(c for meld in play.lay_down for c in meld.cards),
                       melds=play.lay_down)
        moves = [LayOff(card, seat, index) for index, card in play.lay_offs] + list(play.moves)
        for move, made in zip(moves, turn.made, strict=True):
            kind = EventKind.LAY_OFF if isinstance(move, LayOff) else EventKind.SUBSTITUTE
            self._emit(kind, seat, (move.card,), (move.seat, move.meld), (made,))
        if play.discard is not None:
            self.discards.append(play.discard)
            self._emit(EventKind.DISCARD, seat, (play.discard,))

    def _stop(self, seat: int) -> None:
        self.stopped = True
        self._emit(EventKind.STOP, seat)

    def _emit(self, kind: EventKind, seat: int, cards: tuple[Card, ...] = (),
              meld: tuple[int, int] | None = None, melds: tuple[PlacedMeld, ...] = ()) -> None:
        event = Event(kind, seat, cards, self.turn, meld, melds)
        self.events.append(event)
        for observer in self.observers:
            observer(self, event)


# ---- how soon other players go out ---------------------------------------------------------------


@dataclass(frozen=True)
class GoingOut:
    """Another player's chance of going out on its ``n``-th turn of the round, having not gone
    out before: ``chances[n - 1]`` (the last applies to every later turn); and the mean penalty
    points held by a player still in play after its ``n``-th turn: ``held[n - 1]`` (the points
    it would pay if the round ended then). Measured by self-play."""

    chances: tuple[float, ...]
    games: int
    held: tuple[float, ...] = ()

    def chance(self, turn: int) -> float:
        return self.chances[min(turn, len(self.chances)) - 1]

    def points(self, turn: int) -> float:
        """The mean points held by a player still in play after its ``turn``-th turn (0: its
        dealt hand, before its first turn, is taken as after its first)."""
        return self.held[max(1, min(turn, len(self.held))) - 1]


# Rule fields added after the going-out table was measured, with their defaults: left out of
# the fingerprint while they hold them, so a rule set keeps the fingerprint it was measured under.
_LATER_FIELDS = {"deuces_always_wild": False, "two_position_in_runs": True}


def rules_fingerprint(rules: Rules) -> str:
    """A short hash of everything in a rule set but its name and source."""
    plain = rules.to_dict()
    plain.pop("name")
    plain.pop("source")
    for name, default in _LATER_FIELDS.items():
        if plain.get(name) == default:
            plain.pop(name)
    return hashlib.sha256(json.dumps(plain, sort_keys=True).encode()).hexdigest()[:12]


def measure_going_out(rules: Rules, round_number: int, players: int, games: int = MEASURE_GAMES,
                      seed: int = 0, work: float = SIMULATED_WORK) -> GoingOut:
    """Self-play ``games`` rounds of ``SimulatedPlayer``s; the chance of going out on a turn is
    the players who went out on their ``n``-th turn over those who played an ``n``-th turn
    (rounds end when the first goes out: the others count as still in play up to then). Turns
    with fewer than ``MIN_AT_RISK`` players in play are pooled with all later ones, and the
    chances are made non-decreasing by pooling neighbours (weighted isotonic regression).

    The points held on a turn are the mean penalty points in hand of the players who played an
    ``n``-th turn and did not go out on it, right after it; turns pooled as the chances' tail."""
    player = SimulatedPlayer(RoundSolver(rules, round_number, rules.deck_for(players), NO_TIME_LIMIT, work=work))
    played = _self_play(rules, round_number, players, games, seed, player)
    chances = _pooled_chances(played)
    held = _points_held(played, len(chances))
    return GoingOut(tuple(round(c, 4) for c in chances) or (0.0,), games, tuple(round(p, 1) for p in held) or (0.0,))


@dataclass
class _SelfPlay:
    """Counts per own turn ``n`` from self-play rounds."""

    at_risk: Counter[int] = field(default_factory=Counter)  # players who played an n-th turn
    out: Counter[int] = field(default_factory=Counter)  # ...and went out on it
    still_in: Counter[int] = field(default_factory=Counter)  # ...and did not go out on it...
    points_held: Counter[int] = field(default_factory=Counter)  # ...and the points they held after it, summed

    @property
    def last(self) -> int:
        return max(self.at_risk, default=0)


def _self_play(rules: Rules, round_number: int, players: int, games: int, seed: int,
               player: SimulatedPlayer) -> _SelfPlay:
    played = _SelfPlay()
    for game in range(games):
        table = Table.deal(rules, round_number, players, seed * 100_003 + game, [player] * players)
        table.max_turns = MEASURE_TURNS_EACH * players
        while not table.finished:
            seat, before = table.current, table.turns[table.current]
            table.play_turn()
            if table.turns[seat] > before and table.winner != seat:
                played.still_in[table.turns[seat]] += 1
                played.points_held[table.turns[seat]] += sum(rules.points_of(c) for c in table.hands[seat])
        outcome = table.outcome()
        for seat, turns in enumerate(outcome.turns):
            for n in range(1, turns + 1):
                played.at_risk[n] += 1
            if outcome.winner == seat:
                played.out[turns] += 1
    return played


def _pooled_chances(played: _SelfPlay) -> list[float]:
    """The chance of going out on each turn, the tail pooled and made non-decreasing."""
    at_risk, out, last = played.at_risk, played.out, played.last
    blocks: list[list[int]] = []  # [went out, in play, turns] per block of turns
    for n in range(1, last + 1):
        tail = at_risk[n] < MIN_AT_RISK  # too few still in play: pool the rest
        span = range(n, last + 1) if tail else range(n, n + 1)
        blocks.append([sum(out[m] for m in span), sum(at_risk[m] for m in span), 1])
        # Going out only gets likelier as the round goes on: pool adjacent turns that say otherwise.
        while len(blocks) > 1 and blocks[-2][0] * blocks[-1][1] > blocks[-1][0] * blocks[-2][1]:
            later = blocks.pop()
            blocks[-1] = [blocks[-1][0] + later[0], blocks[-1][1] + later[1], blocks[-1][2] + later[2]]
        if tail:
            break
    return [block[0] / block[1] for block in blocks for _ in range(block[2])]


def _points_held(played: _SelfPlay, turns: int) -> list[float]:
    """The mean points held after each of ``turns`` turns by a player still in; the last the pooled tail."""
    held: list[float] = []
    for n in range(1, turns + 1):
        span = range(n, played.last + 1) if n == turns else range(n, n + 1)
        count = sum(played.still_in[m] for m in span)
        held.append(sum(played.points_held[m] for m in span) / count if count else held[-1] if held else 0.0)
    return held


_MEASURED: dict[tuple[str, int, int], GoingOut] = {}


def going_out_chances(rules: Rules, round_number: int, players: int) -> GoingOut:
    """``measure_going_out`` for this rule set, round and player count: from the table shipped
    in ``analyzer.going_out_table`` (presets), else measured now with fewer games and kept for
    the rest of the process."""
    from analyzer.going_out_table import TABLE

    key = (rules_fingerprint(rules), round_number, players)
    stored = TABLE.get(f"{key[0]}/{round_number}/{players}")
    if stored is not None:
        return GoingOut(tuple(stored[1]), stored[0], tuple(stored[2]) if len(stored) > 2 else ())
    if key not in _MEASURED:
        _MEASURED[key] = measure_going_out(rules, round_number, players, QUICK_MEASURE_GAMES)
    return _MEASURED[key]


def _measure_entry(entry: tuple[str, int, int, int]) -> tuple[str, GoingOut, float]:
    """One entry of the table: (preset, round, players, games) measured, with its seconds."""
    import time

    name, number, count, games = entry
    start = time.perf_counter()
    rules = preset(name)
    measured = measure_going_out(rules, number, count, games)
    return f"{rules_fingerprint(rules)}/{number}/{count}", measured, time.perf_counter() - start


def write_going_out_table(path: str, names: Sequence[str], players: Sequence[int], games: int = MEASURE_GAMES,
                          rounds: str = "all", workers: int = 1) -> None:
    """Measure the named presets' rounds (``rounds``: "all", or "go-out" for their go-out
    rounds only) for these player counts and (re)write the table module after each entry,
    keeping the entries it already has for the presets' other rounds and player counts (an
    entry whose fingerprint is no preset's is dropped: measured under rules that changed).
    ``workers`` processes measure entries side by side; each entry is its own seeded self-play,
    so the table is the same whatever their number."""
    import importlib

    import analyzer.going_out_table as stored
    from analyzer.parallel import ordered_map

    names_by_print = {rules_fingerprint(rules): name for name, rules in PRESETS.items()}
    table = {key: value for key, value in importlib.reload(stored).TABLE.items()
             if key.split("/")[0] in names_by_print}

    def comment(key: str) -> str:
        fingerprint, number, count = key.split("/")
        return f"{names_by_print.get(fingerprint, fingerprint)} round {number}, {count} players"

    def order(key: str) -> tuple[str, int, int]:
        fingerprint, number, count = key.split("/")
        return names_by_print.get(fingerprint, fingerprint), int(count), int(number)

    entries = [(name, number, count, games) for name in names for count in players
               if any(deck.min_players <= count <= deck.max_players for deck in preset(name).decks)
               for number, rule in enumerate(preset(name).rounds, start=1)
               if rounds == "all" or rule.go_out]
    for key, measured, seconds in ordered_map(_measure_entry, entries, max(1, workers)):
        table[key] = (games, measured.chances, measured.held)
        print(f"{comment(key)}: {seconds:.1f} s, {measured.chances[:8]}", flush=True)
        lines = ['"""Going-out chances per turn, measured by self-play of ``SimulatedPlayer``s',
                 "and the mean points held by a player still in play after each turn",
                 "(``python -m analyzer.simulate PRESET...``, see ``analyzer.simulate.going_out_chances``);",
                 'keyed by rule-set fingerprint/round/players: (games, chances, points held). Generated: do not edit."""',
                 "", "TABLE: dict[str, tuple[int, tuple[float, ...], tuple[float, ...]]] = {"]
        lines += [f"    {k!r}: {v!r},  # {comment(k)}" for k, v in sorted(table.items(), key=lambda kv: order(kv[0]))]
        with open(path, "w") as file:
            file.write("\n".join(lines + ["}", ""]))


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="Measure the presets' going-out chances by self-play and "
                                                 "write analyzer/going_out_table.py")
    parser.add_argument("presets", nargs="*", default=sorted(PRESETS))
    parser.add_argument("--players", type=int, nargs="+", default=[4])
    parser.add_argument("--games", type=int, default=MEASURE_GAMES)
    parser.add_argument("--rounds", choices=("all", "go-out"), default="all",
                        help="every round, or only the go-out rounds (after a change to play there)")
    parser.add_argument("--workers", type=int, default=1, help="processes measuring entries side by side")
    options = parser.parse_args()
    from analyzer.parallel import WorkerLost

    try:
        write_going_out_table("analyzer/going_out_table.py", options.presets, options.players, options.games,
                              options.rounds, options.workers)
    except WorkerLost as lost:  # the entries measured before it are written: run the rest again
        raise SystemExit(f"python -m analyzer.simulate: {lost}") from None


__all__ = [
    "Event",
    "EventKind",
    "GoingOut",
    "Outcome",
    "Play",
    "PlayerState",
    "Policy",
    "Position",
    "SeatView",
    "SimulatedPlayer",
    "Table",
    "TableError",
    "TurnResult",
    "deck_cards",
    "extend_meld",
    "going_out_chances",
    "measure_going_out",
    "meld_is_valid",
    "write_going_out_table",
]
