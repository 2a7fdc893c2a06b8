"""Advice for a hand: its outs, which card to discard, and whether to buy a discard.

Three questions a player asks once the analyser has said how far a hand is from its contract
(docs/advice.md defines every number exactly):

- **outs**: the distinct cards whose addition lowers "cards away", each with its unseen copies
  (the deck's copies less those in the hand, those the player has seen and the offered card);
- **the discard table**: for each distinct card of the hand, how the hand stands without it
  (cards away, unseen outs, points kept), ranked best first;
- **should you buy?**: passing and buying the offered discard compared over the player's next
  few turns, by the chance of laying down and the penalty points held, with a verdict.

Only the solver's entry points are used here (``solve_lay_down`` and ``find_outs``; without
``find_outs``, the naive re-solving kept as the benchmark's baseline); every solver answer is
memoised by hand within one ``advise`` call.

    >>> advice = advise("7H 8H 10H 5C 5D 5S KC", "progressive", 2, discards=True)
    >>> advice.lay_down.cards_away, [out.card.token for out in advice.outs], advice.unseen_outs
    (1, ['9H', 'JK'], 5)
    >>> advice.discards[0].card.token, advice.discards[0].cards_away, advice.discards[0].unseen_outs
    ('KC', 1, 5)
"""

from __future__ import annotations

import enum
import math
import random
import statistics
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from analyzer import solver
from analyzer.cards import ALL_CARD_KINDS, Card, CardError, Rank, parse_cards, sorted_cards, tokens
from analyzer.hand import HandError, check_deck, deck_copies, read_hand
from analyzer.result import LayDown, PlacedMeld
from analyzer.rules import DeckRule, MeldKind, Rules, load_rules

DEFAULT_HORIZON = 3  # the player's next own turns the buy comparison looks at
DEFAULT_ROLLOUTS = 120  # most simulated deals per option when exact enumeration is too dear
MIN_ROLLOUTS = 40  # deals before the simulation may stop early with a settled verdict...
SETTLE_EVERY = 20  # ...looked at this often...
SETTLED = 3.0  # ...when the difference is this many standard errors clear of the margin
MAX_HORIZON = 10
MAX_ROLLOUTS = 100_000
MARGIN_POINTS = 3.0  # a verdict needs the expected points to differ by at least this...
MARGIN_SHARE = 0.10  # ...or by this share of passing's expected points, whichever is larger
SOLVER_THREADS = 2  # the discard table's solves run two at a time
EXACT_LIMIT = 400  # most draw sequences the exact enumeration may visit (about a second)

OutsFinder = Callable[[tuple[Card, ...], Rules, int, DeckRule, float], tuple[LayDown, frozenset[Card]]]


class AdviceError(ValueError):
    """A question the advice cannot answer as asked: a buy the rules forbid, a bad horizon..."""


class Verdict(enum.Enum):
    """What to do with an offered discard."""

    BUY = "buy"
    PASS = "pass"
    CLOSE_CALL = "close call"


# ---- result objects --------------------------------------------------------------------------


@dataclass(frozen=True)
class Out:
    """A card whose addition brings the hand closer to its contract, and its unseen copies."""

    card: Card
    unseen: int

    def to_dict(self) -> dict[str, Any]:
        return {"card": self.card.token, "unseen": self.unseen}


@dataclass(frozen=True)
class DiscardRow:
    """One row of the discard table: the hand as it stands after discarding ``card``."""

    card: Card
    cards_away: int | None  # of the hand without the card; None: never
    unseen_outs: int  # unseen copies of the outs of the hand without the card
    leftover_points: int | None  # of the best lay-down, when the hand without the card can lay down
    points_kept: int  # leftover_points when 0 away, else the points of every card still held
    card_points: int  # the discarded card's own penalty
    rank: int  # place in the table from 1; equal rows share a rank
    equal_to_previous: bool  # as good as the row above it

    def to_dict(self) -> dict[str, Any]:
        return {
            "card": self.card.token,
            "cards_away": self.cards_away,
            "unseen_outs": self.unseen_outs,
            "leftover_points": self.leftover_points,
            "points_kept": self.points_kept,
            "card_points": self.card_points,
            "rank": self.rank,
            "equal_to_previous": self.equal_to_previous,
        }


@dataclass(frozen=True)
class BuyOption:
    """Passing or buying, over the player's next ``horizon`` own turns."""

    hand_size: int  # cards held when the next turn starts (buying: hand + offered + penalty)
    lay_down_probability: float  # of having laid the contract down by the horizon
    expected_points: float  # penalty points held at the horizon (leftover if laid down)

    def to_dict(self) -> dict[str, Any]:
        return {
            "hand_size": self.hand_size,
            "lay_down_probability": round(self.lay_down_probability, 4),
            "expected_points": round(self.expected_points, 2),
        }


@dataclass(frozen=True)
class BuyAdvice:
    """Passing and buying the offered discard compared, with a verdict and its reason."""

    offered: Card
    penalty_cards: int  # taken blind from the stock with the offered card
    passing: BuyOption
    buying: BuyOption
    verdict: Verdict
    difference: float  # buying's expected points less passing's (negative: buying holds fewer)
    margin: float  # |difference| at most this is a close call
    std_error: float | None  # of the difference (Monte Carlo); None when exact
    reason: str
    horizon: int
    rollouts: int | None  # simulated deals; None when exact
    seed: int
    method: str  # "exact" or "monte-carlo"

    def to_dict(self) -> dict[str, Any]:
        return {
            "offered": self.offered.token,
            "penalty_cards": self.penalty_cards,
            "passing": self.passing.to_dict(),
            "buying": self.buying.to_dict(),
            "verdict": self.verdict.value,
            "difference": round(self.difference, 2),
            "margin": round(self.margin, 2),
            "std_error": None if self.std_error is None else round(self.std_error, 2),
            "reason": self.reason,
            "horizon": self.horizon,
            "rollouts": self.rollouts,
            "seed": self.seed,
            "method": self.method,
        }


@dataclass(frozen=True)
class Advice:
    """The analysis of a hand with its outs and, when asked, the discard table and a buy verdict."""

    lay_down: LayDown
    seen: tuple[Card, ...]  # cards the player has seen (the offered card not among them)
    outs: tuple[Out, ...]  # in card order; empty when the hand can lay down or never can
    unseen_outs: int
    discards: tuple[DiscardRow, ...] | None  # best first; None when not asked
    buy: BuyAdvice | None  # None when not asked

    def to_dict(self) -> dict[str, Any]:
        """The lay-down's dict with the advice keys added (``discards``, ``buy``: null if not asked)."""
        return {
            **self.lay_down.to_dict(),
            "seen": tokens(self.seen),
            "outs": [out.to_dict() for out in self.outs],
            "unseen_outs": self.unseen_outs,
            "discards": None if self.discards is None else [row.to_dict() for row in self.discards],
            "buy": None if self.buy is None else self.buy.to_dict(),
        }


# ---- the public entry point --------------------------------------------------------------------


def advise(
    hand: str | Iterable[Card],
    rules: str | Rules = "progressive",
    round_number: int = 1,
    players: int | None = None,
    seen: str | Iterable[Card] = (),
    discards: bool = False,
    buy: str | Card | None = None,
    horizon: int = DEFAULT_HORIZON,
    rollouts: int = DEFAULT_ROLLOUTS,
    seed: int = 0,
    time_limit: float | None = None,
    buys_used: int = 0,
    bought_last: bool = False,
) -> Advice:
    """The hand's lay-down and outs; with ``discards`` the discard table; with ``buy`` (the
    offered discard) the comparison of passing with buying it.

    ``seen``: cards the player has seen (discard pile, melds on the table), not counting the
    offered card. Unseen copies are counted in the deck for ``players`` (None: the rule set's
    largest deck). ``buys_used`` and ``bought_last`` tell whether the rules still allow a buy.
    ``time_limit`` is per solver call (None: the analyser's default).

    Raises ``HandError``, ``RulesError`` or ``AdviceError`` (all ``ValueError``) for input a user
    can get wrong.
    """
    if time_limit is None:
        from analyzer import DEFAULT_TIME_LIMIT

        time_limit = DEFAULT_TIME_LIMIT
    rule_set = load_rules(rules) if isinstance(rules, str) else rules
    rule_set.round(round_number)
    deck = rule_set.deck_for(players)
    cards = read_hand(hand, rule_set, players)
    seen_cards = _read_cards(seen, "the seen cards")
    check_deck(cards + seen_cards, rule_set, deck, "the hand and the seen cards")
    offered = None
    if buy is not None:
        offered = _read_offered(buy)
        _check_buy_allowed(rule_set, round_number, buys_used, bought_last)
        check_deck(cards + seen_cards + (offered,), rule_set, deck,
                   f"the hand, the seen cards and the offered {offered.token}")
        _check_simulation(horizon, rollouts)

    analyser = _Analyser(rule_set, round_number, deck, time_limit)
    gone = Counter(cards) + Counter(seen_cards) + Counter([offered] if offered else [])
    unseen = {card: max(0, deck_copies(card, deck) - gone[card]) for card in ALL_CARD_KINDS}

    if discards:  # the hand and every hand one card smaller, two at a time
        analyser.prefetch_outs([cards] + [_without(cards, card) for card in dict.fromkeys(cards)])
    lay_down, out_cards = analyser.outs(cards)
    outs = tuple(Out(card, unseen[card]) for card in ALL_CARD_KINDS if card in out_cards)
    table = _discard_table(analyser, cards, unseen) if discards else None
    buy_advice = None
    if offered is not None:
        buy_advice = _buy_advice(analyser, cards, offered, unseen, horizon, rollouts, seed)
    return Advice(lay_down, sorted_cards(seen_cards), outs, sum(out.unseen for out in outs), table, buy_advice)


def _read_cards(cards: str | Iterable[Card], what: str) -> tuple[Card, ...]:
    try:
        return parse_cards(cards) if isinstance(cards, str) else tuple(cards)
    except CardError as error:
        raise HandError(f"{what}: {error}") from None


def _read_offered(buy: str | Card) -> Card:
    if isinstance(buy, Card):
        return buy
    cards = _read_cards(buy, "the offered card")
    if len(cards) != 1:
        raise AdviceError(f"the offered card must be one card, such as 9H, not {buy!r}")
    return cards[0]


def _check_buy_allowed(rules: Rules, round_number: int, buys_used: int, bought_last: bool) -> None:
    allowed = rules.buys_in(round_number)
    if allowed == 0:
        raise AdviceError(f"{rules.name!r} allows no buying in round {round_number}")
    if buys_used < 0:
        raise AdviceError(f"buys used must be 0 or more, not {buys_used}")
    if allowed is not None and buys_used >= allowed:
        raise AdviceError(f"{rules.name!r} allows {allowed} buy{'s' if allowed != 1 else ''} in round "
                          f"{round_number} and you have used {buys_used}")
    if bought_last and rules.no_consecutive_buys:
        raise AdviceError(f"{rules.name!r} does not let the same player buy twice in succession")


def _check_simulation(horizon: int, rollouts: int) -> None:
    if not 1 <= horizon <= MAX_HORIZON:
        raise AdviceError(f"the horizon is 1 to {MAX_HORIZON} of your turns, not {horizon}")
    if not 1 <= rollouts <= MAX_ROLLOUTS:
        raise AdviceError(f"rollouts must be 1 to {MAX_ROLLOUTS}, not {rollouts}")


# ---- solver answers, memoised ------------------------------------------------------------------


def _outs_by_resolving(cards: tuple[Card, ...], rules: Rules, round_number: int, deck: DeckRule,
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


def _outs_finder() -> OutsFinder:
    """The solver's exact ``find_outs`` when it has one, else the naive re-solving."""
    finder: OutsFinder = getattr(solver, "find_outs", _outs_by_resolving)
    return finder


class _Analyser:
    """Solver answers for one rule set, round and deck, each hand (as a multiset) solved once."""

    def __init__(self, rules: Rules, round_number: int, deck: DeckRule, time_limit: float,
                 find_outs: OutsFinder | None = None) -> None:
        self.rules, self.round_number, self.deck, self.time_limit = rules, round_number, deck, time_limit
        self.find_outs = find_outs or _outs_finder()
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


# ---- the discard table -------------------------------------------------------------------------


def _without(cards: tuple[Card, ...], card: Card) -> tuple[Card, ...]:
    rest = list(cards)
    rest.remove(card)
    return tuple(rest)


def _discard_table(analyser: _Analyser, cards: tuple[Card, ...], unseen: dict[Card, int]) -> tuple[DiscardRow, ...]:
    """One row per distinct card of the hand, best discard first.

    The discarded copy joins the discard pile, so ``unseen`` (counted with the whole hand) is
    already right for the hand without it."""
    whole = analyser.lay_down(cards)
    rows = []
    for card in dict.fromkeys(cards):
        rest = list(cards)
        rest.remove(card)
        points = analyser.rules.points_of(card)
        away: int | None
        leftover: int | None
        if whole.can_lay_down and card in whole.leftover:
            # The best lay-down still works without a card it leaves over, and nothing does better
            # (a lay-down without the card is one with the card left over): no solve needed.
            away, unseen_outs, leftover = 0, 0, whole.leftover_points - points
        else:
            lay_down, outs = analyser.outs(rest)
            away, unseen_outs = lay_down.cards_away, sum(unseen[out] for out in outs)
            leftover = lay_down.leftover_points if lay_down.can_lay_down else None
        kept = leftover if leftover is not None else analyser.points(rest)
        rows.append((card, away, unseen_outs, leftover, kept, points))

    def merit(row: tuple[Card, int | None, int, int | None, int, int]) -> tuple[float, int, int]:
        """Fewest cards away, then most unseen outs, then fewest points kept."""
        return (math.inf if row[1] is None else row[1]), -row[2], row[4]

    rows.sort(key=lambda row: (merit(row), row[0].sort_key()))
    table: list[DiscardRow] = []
    for place, row in enumerate(rows, start=1):
        equal = bool(table) and merit(row) == merit(rows[place - 2])
        table.append(DiscardRow(*row, rank=table[-1].rank if equal else place, equal_to_previous=equal))
    return tuple(table)


# ---- should you buy? ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _State:
    """The simulated player's hand between turns, with its plan: the nearest lay-down the
    solver found (cards it leaves unused, cards it still misses)."""

    held: tuple[Card, ...]
    away: int | None  # cards away of ``held`` (None: never)
    unused: tuple[Card, ...]  # held cards the plan leaves unused (0 away: the best leftover)
    missing: tuple[Card, ...]  # cards the plan still needs


class _Player:
    """The simulated player (docs/advice.md). Each own turn it draws one card. If the hand can
    then lay down, it lays down the best lay-down and discards its costliest leftover card;
    otherwise it discards the costliest natural card its plan leaves unused.

    The hand is solved again only when the drawn card may matter: not when the hand is more
    cards away than it has turns left (it cannot lay down in time), nor when a quick test shows
    the card cannot be part of any meld of a nearer (or, 0 away, a better) lay-down; then the
    plan just takes the card, filling a missing place or as one more unused card."""

    def __init__(self, analyser: _Analyser) -> None:
        self.analyser = analyser
        self.rules = analyser.rules
        self.go_out = analyser.rules.round(analyser.round_number).go_out

    def start(self, held: Sequence[Card]) -> _State:
        return self._state(self.analyser.lay_down(held), None)

    def _state(self, lay_down: LayDown, discarded: Card | None) -> _State:
        """The state after discarding ``discarded`` from ``lay_down``'s hand."""
        held = list(lay_down.hand)
        unused = list(lay_down.leftover if lay_down.can_lay_down else
                      lay_down.kept_with_missing() if lay_down.cards_away else lay_down.hand)
        if discarded is not None:
            held.remove(discarded)
            if discarded not in unused:  # the plan needed it: find the new nearest plan
                return self.start(held)
            unused.remove(discarded)
        return _State(tuple(held), lay_down.cards_away, tuple(unused), lay_down.missing)

    def turn(self, state: _State, drawn: Card, turns_left: int) -> tuple[bool, _State, int]:
        """Draw ``drawn`` with ``turns_left`` turns to go (this one included): (laid down?, the
        state after the turn, the points then held)."""
        if state.away is None or state.away > turns_left:
            return False, *self._keep_plan(state, drawn)
        if not self.may_help(state, drawn):
            if state.away == 0 and not self.go_out:
                # The best lay-down stands; the card can only be left over with the rest.
                kept = self._after_lay_down(state.unused + (drawn,))
                return True, _State(kept, 0, kept, ()), self.analyser.points(kept)
            return False, *self._keep_plan(state, drawn)
        lay_down = self.analyser.lay_down(state.held + (drawn,))
        if lay_down.can_lay_down:
            kept = self._after_lay_down(lay_down.leftover)
            return True, _State(kept, 0, kept, ()), self.analyser.points(kept)
        after = self._state(lay_down, self.discard(lay_down))
        return False, after, self.analyser.points(after.held)

    def may_help(self, state: _State, drawn: Card) -> bool:
        """A quick test that ``drawn`` might be an out, or for a hand 0 away might be melded
        (False: it certainly is not).

        Such a card is part of some meld of a lay-down that misses at most ``away - 1`` cards
        (none when 0 away); the meld's other cards are held cards or those missing ones, so a
        set needs ``size - max(away, 1)`` held cards of its rank or wild, a run as many held
        naturals on distinct places of one window around the card, or wild cards (no more than
        a meld may take)."""
        rules = self.rules
        if rules.is_wild(drawn):
            return True
        assert state.away is not None and drawn.rank is not None
        spare = max(state.away - 1, 0)  # missing cards the meld may still lack
        held_wilds = sum(1 for card in state.held if rules.is_wild(card))
        naturals = [card for card in state.held if not rules.is_wild(card)]

        def enough(held_naturals: int, size: int) -> bool:
            # Wild cards the meld can take from the hand: within the per-meld limit and, when
            # they may not outnumber the naturals, no more than the naturals it can have.
            wilds = held_wilds if rules.max_wilds_per_meld is None else min(held_wilds, rules.max_wilds_per_meld)
            if not rules.wilds_may_outnumber_naturals:
                wilds = min(wilds, held_naturals + 1 + spare)
            return held_naturals + wilds >= size - 1 - spare

        for spec in set(rules.round(self.analyser.round_number).contract):
            if spec.kind != MeldKind.RUN:
                if enough(sum(1 for card in naturals if card.rank == drawn.rank), spec.size):
                    return True
                continue
            places = {p for card in naturals if card.suit == drawn.suit for p in _run_places(card, rules)}
            for place in _run_places(drawn, rules):
                for first in range(max(place - spec.size + 1, 1 if rules.ace_low else 2),
                                   min(place, (14 if rules.ace_high else 13) - spec.size + 1) + 1):
                    window = set(range(first, first + spec.size)) - {place}
                    if enough(len(window & places), spec.size):
                        return True
        return False

    def _keep_plan(self, state: _State, drawn: Card) -> tuple[_State, int]:
        """A turn that cannot bring the hand to a lay-down in time, or whose card cannot bring it
        closer: the plan stays, the drawn card fills one of its missing places or joins the
        unused cards, and the costliest unused natural card goes."""
        missing, unused, away = list(state.missing), list(state.unused), state.away
        if drawn in missing:
            missing.remove(drawn)
            away = None if away is None else away - 1
        else:
            unused.append(drawn)
        held = list(state.held) + [drawn]
        discarded = self._costliest([c for c in unused if not self.rules.is_wild(c)] or unused
                                    or [c for c in held if not self.rules.is_wild(c)] or held)
        held.remove(discarded)
        if discarded in unused:
            unused.remove(discarded)
        return _State(tuple(held), away, tuple(unused), tuple(missing)), self.analyser.points(held)

    def _after_lay_down(self, leftover_cards: Sequence[Card]) -> tuple[Card, ...]:
        """What the player holds after laying down with this leftover and discarding."""
        leftover = list(leftover_cards)
        if not leftover:
            return ()
        if len(leftover) == 1 and self.rules.discard_to_go_out == "never":
            return tuple(leftover)  # it may not go out by discarding: the last card stays
        leftover.remove(self._costliest(leftover))
        return tuple(leftover)

    def discard(self, lay_down: LayDown) -> Card:
        """The costliest natural card the nearest plan leaves unused (else any unused card, else
        the costliest natural card held): a player keeps its melds and its wild cards."""
        unused = lay_down.kept_with_missing() if lay_down.cards_away else lay_down.hand
        choices = ([c for c in unused if not self.rules.is_wild(c)] or list(unused)
                   or [c for c in lay_down.hand if not self.rules.is_wild(c)] or list(lay_down.hand))
        return self._costliest(choices)

    def _costliest(self, cards: Sequence[Card]) -> Card:
        return max(cards, key=lambda card: (self.rules.points_of(card), card.sort_key()))

    def play(self, held: Sequence[Card], draws: Sequence[Card]) -> tuple[bool, int]:
        """Turns with these draws: (laid down by the last one?, points held at the end)."""
        state = self.start(held)
        for number, drawn in enumerate(draws):
            laid, state, points = self.turn(state, drawn, len(draws) - number)
            if laid:
                return True, points
        return False, self.analyser.points(state.held)

    def expect(self, state: _State, stock: Counter[Card], turns: int) -> tuple[float, float]:
        """Exactly: (chance of laying down within ``turns``, expected points held then)."""
        total = sum(stock.values())
        if turns == 0 or total == 0:
            return 0.0, float(self.analyser.points(state.held))
        chance = points = 0.0
        for card in [c for c in ALL_CARD_KINDS if stock[c]]:
            weight = stock[card] / total
            laid, after, held_points = self.turn(state, card, turns)
            if laid:
                chance, points = chance + weight, points + weight * held_points
                continue
            stock[card] -= 1
            later_chance, later_points = self.expect(after, stock, turns - 1)
            stock[card] += 1
            chance, points = chance + weight * later_chance, points + weight * later_points
        return chance, points

    def expect_after(self, held: tuple[Card, ...], stock: Counter[Card], blind: int,
                     turns: int) -> tuple[float, float]:
        """As ``expect``, after first taking ``blind`` cards from the stock (a buy's penalty)."""
        total = sum(stock.values())
        if blind == 0 or total == 0:
            return self.expect(self.start(held), stock, turns)
        chance = points = 0.0
        for card in [c for c in ALL_CARD_KINDS if stock[c]]:
            weight = stock[card] / total
            stock[card] -= 1
            later_chance, later_points = self.expect_after(held + (card,), stock, blind - 1, turns)
            stock[card] += 1
            chance, points = chance + weight * later_chance, points + weight * later_points
        return chance, points


def _run_places(card: Card, rules: Rules) -> tuple[int, ...]:
    """Places a natural card can take in a run: 1 (low ace) to 14 (high ace)."""
    assert card.rank is not None
    if card.rank != Rank.ACE:
        return (int(card.rank),)
    return tuple(p for p, allowed in ((1, rules.ace_low), (14, rules.ace_high)) if allowed)


def _margin(pass_points: float) -> float:
    return max(MARGIN_POINTS, MARGIN_SHARE * pass_points)


def _std_error(passing: Sequence[int], buying: Sequence[int]) -> float | None:
    """Standard error of the mean difference, buying less passing, deal by deal."""
    if len(passing) < 2:
        return None
    return statistics.stdev([b - p for b, p in zip(buying, passing, strict=True)]) / math.sqrt(len(passing))


def _settled(passing: Sequence[int], buying: Sequence[int]) -> bool:
    """Whether more deals would hardly change the verdict: the mean difference lies more than
    ``SETTLED`` standard errors clear of the margin, on whichever side it is."""
    error = _std_error(passing, buying)
    difference = statistics.fmean(buying) - statistics.fmean(passing)
    return error is not None and abs(abs(difference) - _margin(statistics.fmean(passing))) > SETTLED * error


def _tree_size(kinds: int, turns: int, blind: int) -> int:
    """Draw sequences an exact enumeration visits: one solver call each, at most."""
    size, level = 0, 1
    for _ in range(blind):
        level *= kinds
    for _ in range(turns):
        level *= kinds
        size += level
    return size


def _buy_advice(analyser: _Analyser, cards: tuple[Card, ...], offered: Card, unseen: dict[Card, int],
                horizon: int, rollouts: int, seed: int) -> BuyAdvice:
    rules = analyser.rules
    penalty = rules.buy_penalty_in(analyser.round_number)
    stock = Counter({card: n for card, n in unseen.items() if n})
    bought = cards + (offered,)
    player = _Player(analyser)
    kinds = len(stock)
    std_error: float | None
    if _tree_size(kinds, horizon, 0) + _tree_size(kinds, horizon, penalty) <= EXACT_LIMIT:
        method, used_rollouts, std_error = "exact", None, None
        pass_chance, pass_points = player.expect(player.start(cards), stock, horizon)
        buy_chance, buy_points = player.expect_after(bought, stock, penalty, horizon)
    else:
        method = "monte-carlo"
        # Common random numbers: both options see the same draws, buying takes its penalty
        # cards from further down the same shuffled stock. The comparison is then fair and far
        # less noisy than two independent samples.
        rng = random.Random(seed)
        pile = list(stock.elements())
        laid: Counter[str] = Counter()
        held: dict[str, list[int]] = {"pass": [], "buy": []}
        for done in range(1, rollouts + 1):
            drawn = rng.sample(pile, min(len(pile), horizon + penalty))
            draws, blind = drawn[:horizon], drawn[horizon:]
            for option, start in (("pass", cards), ("buy", bought + tuple(blind))):
                option_laid, points = player.play(start, draws)
                laid[option] += option_laid
                held[option].append(points)
            if done >= MIN_ROLLOUTS and done % SETTLE_EVERY == 0 and _settled(held["pass"], held["buy"]):
                break
        used_rollouts = len(held["pass"])
        pass_chance, pass_points = laid["pass"] / used_rollouts, statistics.fmean(held["pass"])
        buy_chance, buy_points = laid["buy"] / used_rollouts, statistics.fmean(held["buy"])
        std_error = _std_error(held["pass"], held["buy"])

    difference = buy_points - pass_points
    margin = _margin(pass_points)
    verdict = Verdict.BUY if difference < -margin else Verdict.PASS if difference > margin else Verdict.CLOSE_CALL
    passing_option = BuyOption(len(cards), pass_chance, pass_points)
    buying_option = BuyOption(len(bought) + penalty, buy_chance, buy_points)
    mean_stock = sum(rules.points_of(c) * n for c, n in stock.items()) / max(1, sum(stock.values()))
    reason = _reason(analyser, cards, offered, penalty, mean_stock, horizon, passing_option, buying_option)
    return BuyAdvice(offered, penalty, passing_option, buying_option, verdict, difference, margin,
                     std_error, reason, horizon, used_rollouts, seed, method)


def _reason(analyser: _Analyser, cards: tuple[Card, ...], offered: Card, penalty: int, mean_stock: float,
            horizon: int, passing: BuyOption, buying: BuyOption) -> str:
    """One sentence: what the offered card does for the hand and what the extra cards cost."""
    before = analyser.lay_down(cards)
    after = analyser.lay_down(cards + (offered,))
    penalty_points = penalty * mean_stock
    blind = (f"the penalty card costs {penalty_points:.1f} points on average" if penalty == 1 else
             f"the {penalty} penalty cards cost {penalty_points:.1f} points on average" if penalty else
             "there is no penalty card")
    extra = 1 + penalty
    adds = (f"buying adds {extra} card{'s' if extra != 1 else ''} worth "
            f"{analyser.rules.points_of(offered) + penalty_points:.1f} points on average")
    turns = f"{horizon} turns" if horizon != 1 else "your next turn"
    chance = (f"your chance of laying down within {turns} goes from {passing.lay_down_probability:.0%} "
              f"to {buying.lay_down_probability:.0%}")
    if before.can_lay_down:
        return f"You can lay down already, so the {offered.face} is not needed; {adds}."
    if after.can_lay_down:
        meld = _meld_with(after.melds, offered)
        return (f"Buying the {offered.face} completes your contract"
                + (f" (the {meld.kind.value} {meld.describe()})" if meld else "")
                + f", so you lay down on your next turn; {blind}.")
    if after.cards_away is not None and before.cards_away is None:
        return f"The {offered.face} makes your contract reachable ({after.cards_away} cards away); {blind}."
    if after.cards_away is not None and before.cards_away is not None and after.cards_away < before.cards_away:
        meld = _meld_with(after.with_missing, offered)
        return (f"The {offered.face} takes you from {before.cards_away} cards away to {after.cards_away}"
                + (f" (it goes into the {meld.kind.value} {meld.describe()})" if meld else "")
                + f"; {blind}, and {chance}.")
    return f"The {offered.face} fits none of your melds; {adds}."


def _meld_with(melds: Sequence[PlacedMeld], card: Card) -> PlacedMeld | None:
    return next((meld for meld in melds if card in meld.cards), None)


__all__ = [
    "DEFAULT_HORIZON",
    "DEFAULT_ROLLOUTS",
    "Advice",
    "AdviceError",
    "BuyAdvice",
    "BuyOption",
    "DiscardRow",
    "Out",
    "Verdict",
    "advise",
]
