"""Advice for a hand: its outs, which card to discard, and whether to buy a discard.

Three questions a player asks once the analyser has said how far a hand is from its contract
(docs/advice.md defines every number exactly):

- **outs**: the distinct cards whose addition lowers "cards away", each with its unseen copies
  (the deck's copies less those in the hand, those the player has seen and the offered card);
- **the discard table**: for each distinct card of the hand, how the hand stands without it
  (cards away, unseen outs, points kept), ranked best first;
- **should you buy?**: buy the offered discard when it is one of the outs, else pass (the
  advice's answer, a rule measured in play); beside it, passing and buying compared by a
  simulated player, with that simulation's verdict (``analyzer.buy``).

Solver answers come through ``RoundSolver``, memoised by hand within one ``advise`` call, and
once proven kept for later calls (``analyzer.round_solver.PROVEN``).

    >>> advice = advise("7H 8H 10H 5C 5D 5S KC", "progressive", 2, discards=True)
    >>> advice.lay_down.cards_away, [out.card.token for out in advice.outs], advice.unseen_outs
    (1, ['9H', 'JK'], 5)
    >>> advice.discards[0].card.token, advice.discards[0].cards_away, advice.discards[0].unseen_outs
    ('KC', 1, 5)
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from analyzer.buy import (
    DEFAULT_HORIZON,
    DEFAULT_ROLLOUTS,
    DEFAULT_TURN,
    AdviceError,
    BuyAdvice,
    BuyAnswer,
    BuyObjective,
    answer_buy,
    buy_verdict,
    check_buy_allowed,
    check_buys_held,
    check_simulation,
)
from analyzer.cards import ALL_CARD_KINDS, Card, CardError, parse_cards, sorted_cards, tokens
from analyzer.hand import HandError, check_deck, deck_copies, read_hand
from analyzer.result import LayDown
from analyzer.round_solver import Deadline, RoundSolver
from analyzer.rules import DeckRule, Rules, load_rules
from analyzer.simulate import Play
from analyzer.turn import Moment, Place, answer_turn, best_turn, place_in_turn, play_with_discard, read_moment

# Unseen outs count for a hand at most this many draws away: then they are the chance of getting
# there next draw; farther away they did not show in play (docs/strength.md, "Why more unseen outs
# does not show in play", "Far from going out"). So in a go-out round a hand farther away ranks its
# discards by the points it keeps before its outs (whoever does not go out pays for every card
# held), and a discard puzzle wins on outs only this near (``puzzles.generate``).
OUTS_COUNT_WITHIN = 1

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
    lays_down: bool = False  # after the draw: discarding it, the hand lays down this turn
    goes_out: bool = False  # ...and goes out

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
            "lays_down": self.lays_down,
            "goes_out": self.goes_out,
        }



@dataclass(frozen=True)
class Advice:
    """The analysis of a hand with its outs and, when asked, the discard table, the answer to an
    offered discard and the simulated buy verdict beside it."""

    lay_down: LayDown
    seen: tuple[Card, ...]  # cards the player has seen (the offered card not among them)
    outs: tuple[Out, ...]  # in card order; empty when the hand can lay down or never can
    unseen_outs: int
    discards: tuple[DiscardRow, ...] | None  # best first; None when not asked
    buy: BuyAdvice | None  # the simulated verdict; None when no discard is offered or not simulated
    # What the time budget left undone (empty: everything was finished):
    outs_complete: bool = True  # False: the search for outs was cut short, there may be more
    unranked: tuple[Card, ...] = ()  # discards the table could not rank in time
    unfinished: tuple[str, ...] = ()  # the same, and the buy verdict's, in words
    buy_answer: BuyAnswer | None = None  # the advice's answer to the offered discard; None when none is offered

    @property
    def discard_order(self) -> str | None:
        """How the discard table chose its best row, in words (``analyzer.advice.discard_order``);
        None without a table."""
        if not self.discards:
            return None
        top = self.discards[0]
        return discard_order(self.lay_down.go_out, top.cards_away, top.lays_down)

    def to_dict(self) -> dict[str, Any]:
        """The lay-down's dict with the advice keys added (``discards``, ``buy_answer``, ``buy``: null
        if not asked)."""
        return {
            **self.lay_down.to_dict(),
            "seen": tokens(self.seen),
            "outs": [out.to_dict() for out in self.outs],
            "unseen_outs": self.unseen_outs,
            "outs_complete": self.outs_complete,
            "discards": None if self.discards is None else [row.to_dict() for row in self.discards],
            "unranked_discards": tokens(self.unranked),
            "discard_order": self.discard_order,
            "buy_answer": None if self.buy_answer is None else self.buy_answer.to_dict(),
            "buy": None if self.buy is None else self.buy.to_dict(),
            "buy_finished": None if self.buy is None else self.buy.finished,
            "unfinished": list(self.unfinished),
        }


# ---- the public entry point --------------------------------------------------------------------


@dataclass(frozen=True)
class Asked:
    """A question's hand where it stands, read and checked as ``analyze``, ``advise`` and
    ``advised_play`` read it, in this order: the round of the rules, the buys made, the hand
    (for the players' deck), its place in the turn (``moment``: a ``Moment``, its value, or
    None to tell it from the size), the cards seen."""

    rules: Rules
    round_number: int
    deck: DeckRule
    cards: tuple[Card, ...]
    place: Place
    seen: tuple[Card, ...]

    @classmethod
    def read(cls, hand: str | Iterable[Card], rules: str | Rules, round_number: int, players: int | None,
             seen: str | Iterable[Card], buys_used: int, moment: Moment | str | None) -> Asked:
        rule_set = load_rules(rules) if isinstance(rules, str) else rules
        rule_set.round(round_number)
        check_buys_held(rule_set, round_number, buys_used or 0)
        deck = rule_set.deck_for(players)
        cards = read_hand(hand, rule_set, players)
        place = place_in_turn(rule_set, round_number, len(cards), read_moment(moment), buys_used or 0)
        seen_cards = read_cards(seen, "the seen cards")
        if seen_cards:  # the hand alone ``read_hand`` has checked (``analyze`` asks with none seen)
            check_deck(cards + seen_cards, rule_set, deck, "the hand and the seen cards")
        return cls(rule_set, round_number, deck, cards, place, seen_cards)

    def solver(self, time_limit: float | None) -> RoundSolver:
        """The solver for the whole answer, one budget (None: the analyser's default)."""
        if time_limit is None:
            from analyzer import DEFAULT_TIME_LIMIT

            time_limit = DEFAULT_TIME_LIMIT
        return RoundSolver(self.rules, self.round_number, self.deck, time_limit, deadline=Deadline(time_limit))

    def unseen(self, offered: Card | None = None) -> dict[Card, int]:
        """The copies of each card neither held nor seen (nor ``offered``)."""
        gone = Counter(self.cards) + Counter(self.seen) + Counter([offered] if offered else [])
        return {card: max(0, deck_copies(card, self.deck) - gone[card]) for card in ALL_CARD_KINDS}


def advise(
    hand: str | Iterable[Card],
    rules: str | Rules = "progressive",
    round_number: int = 1,
    players: int | None = None,
    seen: str | Iterable[Card] = (),
    discards: bool = False,
    buy: str | Card | None = None,
    horizon: int | None = DEFAULT_HORIZON,
    rollouts: int = DEFAULT_ROLLOUTS,
    seed: int = 0,
    time_limit: float | None = None,
    buys_used: int = 0,
    bought_last: bool = False,
    moment: Moment | str | None = None,
    turn: int = DEFAULT_TURN,
    buy_objective: BuyObjective = BuyObjective.AGAINST_TABLE,
    simulate_buy: bool = True,
    best_discards: bool = False,
) -> Advice:
    """The hand's lay-down and outs; with ``discards`` the discard table; with ``buy`` (the
    offered discard) the answer (``buy_answer``: buy it when it is one of the outs) and, unless
    ``simulate_buy`` is False, the simulated comparison of passing with buying it (``buy``).
    ``best_discards``: the discard table's rows that may rank first only (those laying down
    this turn, else those of the fewest cards away), found without the outs of the hands
    further away (a player after the best discard alone: the arena's, the computer's seat).

    ``seen``: cards the player has seen (discard pile, melds on the table), not counting the
    offered card. Unseen copies are counted in the deck for ``players`` (None: the rule set's
    largest deck). ``buys_used`` and ``bought_last`` tell whether the rules still allow a buy.
    ``time_limit`` bounds the whole answer (None: the analyser's default): what it leaves
    undone is said in ``outs_complete``, ``unranked`` and ``unfinished``, and in the buy
    verdict's ``finished``, never dropped. ``buy_objective``: what the buy verdict compares (the
    player's points against the table's, or its own alone). ``moment``: where the hand
    stands in its turn, ``"before-draw"`` or ``"after-draw"`` (None: told from its size); a buy
    is asked before the draw.

    Raises ``HandError``, ``RulesError`` or ``AdviceError`` (all ``ValueError``) for input a user
    can get wrong.
    """
    asked = Asked.read(hand, rules, round_number, players, seen, buys_used, moment)
    rule_set, deck, cards, place, seen_cards = asked.rules, asked.deck, asked.cards, asked.place, asked.seen
    offered = None
    if buy is not None:
        offered = read_one_card(buy, "the offered card")
        if place.moment is Moment.AFTER_DRAW:
            raise AdviceError(f"a discard is bought before your draw, and a hand of {len(cards)} cards in round "
                              f"{round_number} has drawn already; give the hand as it was before the draw "
                              f"(or say --before-draw)")
        check_buy_allowed(rule_set, round_number, buys_used, bought_last)
        check_deck(cards + seen_cards + (offered,), rule_set, deck,
                   f"the hand, the seen cards and the offered {offered.token}")
        check_simulation(horizon, rollouts, turn)

    analyser = asked.solver(time_limit)
    unseen = asked.unseen(offered)

    before_draw = place.moment is Moment.BEFORE_DRAW
    lay_down = answer_turn(analyser, cards, place)  # first: the answer the budget serves before all else
    shown = _within_unseen(lay_down, analyser, cards, seen_cards, place)
    to_solve = _hands_to_solve(analyser, cards, place.moment, best_discards) if discards else {}
    if to_solve:  # every hand one card smaller that needs solving, two at a time
        analyser.prefetch_outs(to_solve.values(), before_draw=True)
    out_cards, outs_complete = _outs(analyser, cards, lay_down, before_draw) if lay_down.cards_away \
        else (frozenset(), lay_down.cards_away is not None or lay_down.proven_optimal)
    outs = tuple(Out(card, unseen[card]) for card in ALL_CARD_KINDS if card in out_cards)
    table, unranked = _discard_table(analyser, cards, unseen, place.moment, to_solve if best_discards else None) \
        if discards else (None, ())
    buy_advice = answer = None
    if offered is not None:
        answer = answer_buy(offered, len(cards), lay_down.cards_away, out_cards, rule_set, round_number)
    if offered is not None and simulate_buy:
        buy_advice = buy_verdict(analyser, cards, offered, unseen, horizon, rollouts, seed, players=players,
                                 turn=turn, buys_used=buys_used, bought_last=bought_last,
                                 objective=buy_objective)
    unfinished = _unfinished(analyser, outs_complete, unranked, buy_advice)
    return Advice(shown, sorted_cards(seen_cards), outs, sum(out.unseen for out in outs), table, buy_advice,
                  outs_complete, unranked, unfinished, answer)


def advised_play(
    hand: str | Iterable[Card],
    rules: str | Rules = "progressive",
    round_number: int = 1,
    players: int | None = None,
    seen: str | Iterable[Card] = (),
    time_limit: float | None = None,
    buys_used: int = 0,
) -> Play | None:
    """The play the advice makes after the draw, before laying down: the turn's best play when
    the hand can lay down (``analyze``'s), else discarding the discard table's first row
    (``advise(..., discards=True)``'s). None when the time (or work) budget ranked no row.

    It is what a player after that play alone asks (the arena's advised player, the computer's
    seat), worked out with nothing else it can do without: outside a go-out round the hand's own
    outs bound the rows' (``_first_with_every_out``), so it asks them first and stops at the
    first row that reaches them; else of the table only the rows that may rank first, as with
    ``best_discards``. The arguments are ``advise``'s; the hand is after its draw."""
    asked = Asked.read(hand, rules, round_number, players, seen, buys_used, Moment.AFTER_DRAW)
    cards, analyser = asked.cards, asked.solver(time_limit)
    play = best_turn(analyser, cards)
    if play is not None:
        return Play(lay_down=play.melds, discard=play.discard)
    unseen = asked.unseen()
    first = None if analyser.go_out else _first_with_every_out(analyser, cards, unseen)
    if first is not None:
        return Play(discard=first)
    to_solve = _hands_to_solve(analyser, cards, Moment.AFTER_DRAW, best_only=True)
    if to_solve:
        analyser.prefetch_outs(to_solve.values(), before_draw=True)
    table, _ = _discard_table(analyser, cards, unseen, Moment.AFTER_DRAW, to_solve)
    return Play(discard=table[0].card) if table else None


def _first_with_every_out(analyser: RoundSolver, cards: tuple[Card, ...], unseen: dict[Card, int]) -> Card | None:
    """The discard table's first row without working out every row, where a bound allows;
    None where it does not (the table's rows that may rank first then decide).

    Outside a go-out round, a hand without a card that is as far from its contract as the whole
    hand has no out the whole hand lacks: a card bringing the smaller hand closer brings the
    whole hand closer too (its arrangement leaves the discarded card over). So the whole hand's
    unseen outs bound every such row's, and its outs hold each such row's (asked ``within``
    them, the same outs sooner). The rows are asked in the order that breaks a tie of
    outs (fewest points kept: the costliest discard first; a natural before a wild card; card
    order), and the first to reach the bound ranks first: no later row has more outs, or as
    many with fewer points kept, and a row further away ranks behind it. A card the whole
    hand's best arrangement leaves over needs no lay-down solve: without it the hand is as far
    away (that arrangement, and none closer). With ``advised_play`` after the draw and the hand
    not laying down this turn, every row keeps all its cards but one (its points kept are the
    hand's)."""
    whole, outs = analyser.outs(cards, before_draw=True)
    if not (whole.proven_optimal and analyser.outs_complete(cards, before_draw=True)) or not whole.cards_away:
        return None
    bound = sum(unseen[out] for out in outs)
    left_over = set(whole.kept_with_missing())
    rules = analyser.rules
    for card in sorted(dict.fromkeys(cards), key=lambda card: (-rules.points_of(card), rules.is_wild(card),
                                                                card.sort_key())):
        rest = _without(cards, card)
        if card not in left_over:
            lay_down = analyser.lay_down(rest, before_draw=True)
            if not lay_down.proven_optimal:
                return None  # unranked in the table: the table decides without it
            if lay_down.cards_away != whole.cards_away:
                continue  # further away: behind any row as far as the whole hand
        row, row_outs = analyser.outs(rest, before_draw=True, within=outs)
        if not (row.proven_optimal and analyser.outs_complete(rest, before_draw=True)) \
                or row.cards_away != whole.cards_away:
            return None
        if sum(unseen[out] for out in row_outs) == bound:
            return card
    return None


def _unfinished(analyser: RoundSolver, outs_complete: bool, unranked: tuple[Card, ...],
                buy: BuyAdvice | None) -> tuple[str, ...]:
    """What the time budget left undone, in words (the command prints these lines)."""
    seconds = f"{analyser.time_limit:g} s"
    notes = []
    if not outs_complete:
        notes.append(f"the cards that help may be incomplete: the search stopped at the time limit ({seconds})")
    if unranked:
        notes.append(f"not ranked within the time limit ({seconds}): discarding {' '.join(c.face for c in unranked)}")
    if buy is not None and not buy.finished:
        notes.append(buy.stopped)
    return tuple(notes)


def read_cards(cards: str | Iterable[Card], what: str) -> tuple[Card, ...]:
    """Cards given as text or as ``Card``s; a bad token is a ``HandError`` naming ``what``."""
    try:
        return parse_cards(cards) if isinstance(cards, str) else tuple(cards)
    except CardError as error:
        raise HandError(f"{what}: {error}") from None


def read_one_card(card: str | Card, what: str) -> Card:
    """One card (the offered card, the face-up card), or an ``AdviceError`` naming ``what``."""
    if isinstance(card, Card):
        return card
    cards = read_cards(card, what)
    if len(cards) != 1:
        raise AdviceError(f"{what} must be one card, such as 9H, not {card!r}")
    return cards[0]



# ---- the discard table -------------------------------------------------------------------------


def _outs(analyser: RoundSolver, cards: tuple[Card, ...], lay_down: LayDown,
          before_draw: bool) -> tuple[frozenset[Card], bool]:
    """The cards that would help, and whether they were all found in time. After the draw,
    those of the hands its best discards leave: a best arrangement that leaves a card out is
    one of the hand without it. In a go-out round, where the hand after the draw is counted by
    what it must let go, those of the hands left by letting go of a card the witness lets go
    (each as a hand before the next draw)."""
    complete = lay_down.proven_optimal  # cards away themselves may be off, and the outs with them
    if before_draw or not analyser.go_out:
        outs = analyser.outs(cards, before_draw)[1]
        return outs, complete and analyser.outs_complete(cards, before_draw)
    found: set[Card] = set()
    for card in dict.fromkeys(lay_down.kept_with_missing()):
        rest = _without(cards, card)
        rest_lay_down, outs = analyser.outs(rest, before_draw=True)
        complete = complete and analyser.outs_complete(rest, before_draw=True) and rest_lay_down.proven_optimal
        if rest_lay_down.cards_away == lay_down.cards_away:
            found |= outs
    return frozenset(found), complete


def _within_unseen(lay_down: LayDown, analyser: RoundSolver, cards: tuple[Card, ...], seen: tuple[Card, ...],
                   place: Place) -> LayDown:
    """The answer to show: ``lay_down``, or, when its missing cards need copies the player has
    seen (the hand, the seen cards and the missing ones would hold more than the deck), the
    answer again with the missing cards drawn from the unseen copies only (it may be further)."""
    held = Counter(cards) + Counter(seen) + Counter(lay_down.missing)
    if all(held[card] <= deck_copies(card, analyser.deck) for card in lay_down.missing):
        return lay_down
    within = RoundSolver(analyser.rules, analyser.round_number, analyser.deck, analyser.time_limit,
                         deadline=analyser.deadline, seen=seen)
    return answer_turn(within, cards, place)


def _without(cards: tuple[Card, ...], card: Card) -> tuple[Card, ...]:
    rest = list(cards)
    rest.remove(card)
    return tuple(rest)


def _hands_to_solve(analyser: RoundSolver, cards: tuple[Card, ...], moment: Moment,
                    best_only: bool) -> dict[Card, tuple[Card, ...]]:
    """The discard table's cards whose rows need the hand without them solved (cards away and
    outs), each with that hand: every card but those the best lay-down leaves over. With
    ``best_only``, those that may rank first: none when a discard lays down this turn, else
    the hands of the fewest cards away (and those whose cards away are not proven: the table
    leaves them unranked)."""
    whole = analyser.lay_down(cards, before_draw=moment is Moment.BEFORE_DRAW)
    turn_ends = moment is Moment.AFTER_DRAW and whole.can_lay_down and not analyser.go_out
    distinct = tuple(dict.fromkeys(cards))
    if not best_only:
        return {card: _without(cards, card) for card in distinct
                if not (whole.can_lay_down and card in whole.leftover)}
    if turn_ends and any(play_with_discard(analyser, cards, card, whole) for card in distinct):
        return {}
    leaves = whole.can_lay_down and not turn_ends  # a card the lay-down leaves over: a row of 0 away
    hands = {card: _without(cards, card) for card in distinct if not (leaves and card in whole.leftover)}
    away = {card: analyser.lay_down(hand, before_draw=True) for card, hand in hands.items()}
    least = min([_distance(lay_down) for lay_down in away.values() if lay_down.proven_optimal]
                + [0] * (leaves and len(whole.leftover) > 0), default=math.inf)  # none proven: all unranked
    nearest = [card for card in hands if away[card].proven_optimal and _distance(away[card]) == least]
    if nearest and points_first(analyser.go_out, away[nearest[0]].cards_away):
        # The points kept come before the outs: only the costliest discards of the nearest may rank first.
        costliest = max(analyser.rules.points_of(card) for card in nearest)
        nearest = [card for card in nearest if analyser.rules.points_of(card) == costliest]
    return {card: hand for card, hand in hands.items() if not away[card].proven_optimal or card in nearest}


def points_first(go_out: bool, cards_away: int | None) -> bool:
    """Whether discards this far away rank by points kept before unseen outs
    (``OUTS_COUNT_WITHIN``): in a go-out round, more than that many draws away."""
    return go_out and cards_away is not None and cards_away > OUTS_COUNT_WITHIN


def discard_order(go_out: bool, cards_away: int | None, lays_down: bool = False) -> str:
    """The discard table's order, in words, among discards leaving the hand this far away (or,
    ``lays_down``, among those that let it lay down this turn)."""
    if lays_down:
        return "a discard that lets you lay down this turn first, then fewest points held when the turn ends"
    if points_first(go_out, cards_away):
        return ("fewest cards away, then fewest points kept, then most unseen outs (far from going out "
                "in a go-out round, where every card held is paid for)")
    return "fewest cards away, then most unseen outs, then fewest points kept"


def _distance(lay_down: LayDown) -> float:
    return math.inf if lay_down.cards_away is None else lay_down.cards_away


def _discard_table(analyser: RoundSolver, cards: tuple[Card, ...], unseen: dict[Card, int], moment: Moment,
                   solved: dict[Card, tuple[Card, ...]] | None = None) -> tuple[tuple[DiscardRow, ...], tuple[Card, ...]]:
    """One row per distinct card of the hand, best discard first; and the cards whose rows
    could not be worked out within the time budget (left out of the table, never guessed).
    ``solved``: when given, the rows that may rank first only (``advise``'s ``best_discards``,
    its ``_hands_to_solve``); the other rows are left out.

    After the draw, a row whose discard lets the hand lay down this turn holds that play (the
    points left when the turn ends); other rows hold the hand without the card as it stands
    before the next draw. The discarded copy joins the discard pile, so ``unseen`` (counted
    with the whole hand) is already right for the hand without it."""
    rules = analyser.rules
    whole = analyser.lay_down(cards, before_draw=moment is Moment.BEFORE_DRAW)
    turn_ends = moment is Moment.AFTER_DRAW and whole.can_lay_down and not analyser.go_out
    rows = []
    unranked = []
    for card in dict.fromkeys(cards):
        rest = _without(cards, card)
        points = rules.points_of(card)
        away: int | None
        leftover: int | None
        if analyser.expired and not (whole.can_lay_down and card in whole.leftover and not turn_ends) \
                and not (not turn_ends and analyser.has_outs(rest, before_draw=True)):
            unranked.append(card)
            continue
        play = play_with_discard(analyser, cards, card, whole) if turn_ends else None
        if play is not None:
            away, unseen_outs, leftover = 0, 0, play.points_after_discard
        elif whole.can_lay_down and card in whole.leftover and not turn_ends:
            # The best lay-down still works without a card it leaves over, and nothing does better
            # (a lay-down without the card is one with the card left over): no solve needed.
            away, unseen_outs, leftover = 0, 0, whole.leftover_points - points
        elif solved is not None and card not in solved:
            continue  # further away than the best, or a discard lays down this turn
        else:
            lay_down, outs = analyser.outs(rest, before_draw=True)
            if not (lay_down.proven_optimal and analyser.outs_complete(rest, before_draw=True)):
                unranked.append(card)  # cut short by the deadline: its numbers may be wrong
                continue
            away, unseen_outs = lay_down.cards_away, sum(unseen[out] for out in outs)
            leftover = lay_down.leftover_points if lay_down.can_lay_down else None
        kept = leftover if leftover is not None else analyser.points(rest)
        lays_down = play is not None
        rows.append((card, away, unseen_outs, leftover, kept, points, lays_down, play is not None and play.goes_out))

    def merit(row: tuple[Card, int | None, int, int | None, int, int, bool, bool]) -> tuple[float, ...]:
        """Laying down this turn first; then fewest cards away, most unseen outs, fewest points
        kept (in a go-out round far from going out, ``points_first``: the points before the
        outs); then a natural card before a wild one of equal standing."""
        away = math.inf if row[1] is None else row[1]
        if points_first(analyser.go_out, row[1]):
            return (not row[6], away, row[4], -row[2], rules.is_wild(row[0]))
        return (not row[6], away, -row[2], row[4], rules.is_wild(row[0]))

    rows.sort(key=lambda row: (merit(row), row[0].sort_key()))
    table: list[DiscardRow] = []
    for place, row in enumerate(rows, start=1):
        equal = bool(table) and merit(row) == merit(rows[place - 2])
        table.append(DiscardRow(*row[:6], rank=table[-1].rank if equal else place, equal_to_previous=equal,
                                lays_down=row[6], goes_out=row[7]))
    return tuple(table), sorted_cards(unranked)


__all__ = [
    "Advice",
    "DiscardRow",
    "Out",
    "advise",
    "advised_play",
]
