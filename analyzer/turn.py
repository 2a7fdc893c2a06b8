"""The moment of a turn, and the best play of a turn.

A hand is analysed where the player stands (docs/lay-down.md, "The turn"):

- **before the draw** (the deal plus any bought cards): where buying and "what would help"
  are asked;
- **after the draw** (one card more): where laying down and discarding happen.

``place_in_turn`` tells the moment from the hand's size under the rule set, or checks the one
the player gives, and refuses a size no turn of the round can produce. ``best_turn`` finds the
whole play of a turn after the draw: the melds, then the discard the rules require or allow,
and whether that goes out. The best play leaves the fewest penalty points in hand when the turn
ends; ties go to the fewest points before the discard, then to a natural discard over a wild
one, then to card order.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from analyzer.cards import ALL_CARD_KINDS, Card, Rank, sorted_cards
from analyzer.hand import HandError, deck_copies
from analyzer.melds import run_places, run_span, wild_cards, wild_limit_problems
from analyzer.result import LayDown, PlacedMeld
from analyzer.round_solver import RoundSolver
from analyzer.rules import MOST_BUYS_WHEN_UNLIMITED, DiscardToGoOut, MeldKind, Rules
from analyzer.solver.bounds import play_keeps_at_least


class Moment(enum.Enum):
    """Where in the turn the hand stands."""

    BEFORE_DRAW = "before-draw"
    AFTER_DRAW = "after-draw"

    def describe(self) -> str:
        return "before your draw" if self is Moment.BEFORE_DRAW else "after your draw"


@dataclass(frozen=True)
class Place:
    """Where a hand stands in its turn, and the note a player should read about its size."""

    moment: Moment
    note: str | None  # e.g. fewer cards than dealt: part of a hand


def hand_sizes(rules: Rules, round_number: int, bought: int = 0) -> dict[Moment, tuple[int, ...]]:
    """The hand sizes a turn of the round can produce, before and after the draw: the deal
    plus each number of buys the round allows (each buy brings the card and its penalty cards);
    where buying is unlimited, up to ``MOST_BUYS_WHEN_UNLIMITED`` buys, or ``bought`` when the
    player is known to have bought more (a game at the table: it counts them)."""
    deal = rules.round(round_number).deal
    buys = rules.buys_in(round_number)
    per_buy = 1 + rules.buy_penalty_in(round_number)
    most = max(MOST_BUYS_WHEN_UNLIMITED, min(bought, rules.buys_held_at_most(round_number))) if buys is None else buys
    before = tuple(deal + bought * per_buy for bought in range(most + 1))
    return {Moment.BEFORE_DRAW: before, Moment.AFTER_DRAW: tuple(size + 1 for size in before)}


def read_moment(moment: Moment | str | None) -> Moment | None:
    """``Moment``, its value (``"before-draw"``, ``"after-draw"``) or None (tell it from the size)."""
    if moment is None or isinstance(moment, Moment):
        return moment
    for member in Moment:
        if str(moment).lower().replace("_", "-") == member.value:
            return member
    raise HandError(f"the moment of the turn is 'before-draw' or 'after-draw', not {moment!r}")


# Memoised by (rules, round, size, moment asked): the place, and its note's text, depend on nothing
# else, and a ``Rules`` is frozen (its hash is kept). A hand of deal + 1 cards before the draw (the
# puzzles, the solver's benchmark) had its note about sizes written anew every time: a fiftieth
# of a typical lay-down. A size no turn gives raises every time (an exception is not kept).
@functools.lru_cache(maxsize=1024)
def place_in_turn(rules: Rules, round_number: int, size: int, asked: Moment | None = None, bought: int = 0) -> Place:
    """The moment of a hand of ``size`` cards: ``asked`` when the player says it, else the one
    its size gives (after the draw where both could be). ``bought``: the buys the player has
    made this round, when known (``hand_sizes``).

    Raises ``HandError`` for more cards than any turn of the round gives (the deal, the draw and
    every buy the round allows). Fewer cards than dealt are part of a hand (before the draw
    unless asked); a size between the ones a turn gives is taken at the nearer smaller one."""
    sizes = hand_sizes(rules, round_number, bought)
    deal = rules.round(round_number).deal
    if size > max(sizes[Moment.AFTER_DRAW]):
        raise HandError(f"no turn of round {round_number} of {rules.name!r} gives a hand of {size} cards: "
                        f"{_sizes_text(rules, round_number, sizes)}")
    if size < deal:
        moment = asked or Moment.BEFORE_DRAW
        return Place(moment, f"{size} cards, fewer than the {deal} dealt: taken as part of a hand, "
                             f"{moment.describe()}.")
    possible = [moment for moment in (Moment.AFTER_DRAW, Moment.BEFORE_DRAW) if size in sizes[moment]]
    if asked is not None:
        if asked in possible:
            return Place(asked, None)
        return Place(asked, f"{size} cards {asked.describe()}: no turn of this round gives that "
                            f"({_sizes_text(rules, round_number, sizes)}).")
    if len(possible) == 2:
        return Place(Moment.AFTER_DRAW, f"{size} cards: taken as after your draw; after a buy it could "
                                        f"also be before it (say so with --before-draw).")
    if possible:
        return Place(possible[0], None)
    nearer = max((s, m) for m in Moment for s in sizes[m] if s < size)[1]
    return Place(nearer, f"{size} cards: no turn of this round gives that "
                         f"({_sizes_text(rules, round_number, sizes)}); taken as {nearer.describe()}.")


def _sizes_text(rules: Rules, round_number: int, sizes: dict[Moment, tuple[int, ...]]) -> str:
    deal = rules.round(round_number).deal
    before, after = sizes[Moment.BEFORE_DRAW], sizes[Moment.AFTER_DRAW]
    if len(before) == 1:
        return f"{deal} are dealt, so you hold {deal} cards before your draw and {deal + 1} after it"
    buys = rules.buys_in(round_number)
    limit = (f"up to {len(before) - 1} buys" if buys is None
             else f"{'the' if buys == 1 else 'up to'} {buys} buy{'s' if buys != 1 else ''} the round allows")
    return (f"{deal} are dealt, so with {limit} you hold {_or_list(before)} cards before your draw and "
            f"{_or_list(after)} after it")


def _or_list(numbers: Sequence[int]) -> str:
    return ", ".join(map(str, numbers[:-1])) + f" or {numbers[-1]}"


# ---- the answer for a hand where it stands ----------------------------------------------------


def answer_turn(solver: RoundSolver, hand: Sequence[Card], place: Place) -> LayDown:
    """The analysis of ``hand`` where it stands in its turn.

    Before the draw: the best lay-down, or cards away (counted in draws in a go-out round).
    After the draw: the turn's best play (melds, discard, going out) when it can lay down; else
    how far it is."""
    answer = _answer(solver, sorted_cards(hand), place.moment)
    return dataclasses.replace(answer, moment=place.moment.value, note=place.note)


def _answer(solver: RoundSolver, cards: tuple[Card, ...], moment: Moment) -> LayDown:
    if moment is Moment.BEFORE_DRAW:
        return solver.lay_down(cards, before_draw=True)
    play = best_turn(solver, cards)
    if play is not None:
        return dataclasses.replace(
            play.lay_down, hand=cards, can_lay_down=True, melds=play.melds, leftover=play.leftover,
            leftover_points=play.leftover_points, cards_away=0, missing=(), with_missing=(),
            discard=play.discard, points_after_discard=play.points_after_discard, goes_out=play.goes_out)
    whole = solver.lay_down(cards)
    if solver.go_out or whole.cards_away is None:  # go-out rounds count draws: the witness goes out
        return whole
    return _not_this_turn(solver, cards, whole)


def _not_this_turn(solver: RoundSolver, cards: tuple[Card, ...], whole: LayDown) -> LayDown:
    """How far a hand after the draw is from a legal play of a turn, when it has none now: the
    fewest cards that, added to the hand, give one, and the best such play as the witness
    (docs/lay-down.md, "Not this turn").

    The lay-down's own distance is the least it can be. Its witness is kept when the hand and
    its missing cards have a legal play. Otherwise the play must leave a card to discard (one to
    keep as well, where going out by discarding is forbidden): the lay-down that melds fewer of
    the hand's cards says how many cards that takes. A hand that melds already, but has no legal
    play (every card melded where a discard is required, or one card left where going out by
    discarding is forbidden), is one card away: any card the deck still holds makes a legal play
    of the whole hand's melds, so the best of them is the witness."""
    rules = solver.rules
    if not whole.can_lay_down:
        play = best_turn(solver, cards + whole.missing)
        if play is not None:
            return dataclasses.replace(whole, with_missing=play.melds)
        keep = 2 if rules.discard_to_go_out == DiscardToGoOut.NEVER else 1
        fewer = solver.lay_down(cards, meld_at_most=len(cards) - keep)
        play = None if fewer.cards_away is None else best_turn(solver, cards + fewer.missing)
        if play is None:
            return dataclasses.replace(whole, cards_away=None, missing=(), with_missing=(),
                                       proven_optimal=whole.proven_optimal and fewer.proven_optimal)
        return dataclasses.replace(whole, cards_away=fewer.cards_away, missing=fewer.missing,
                                   with_missing=play.melds,
                                   proven_optimal=whole.proven_optimal and fewer.proven_optimal)
    # Candidates in the witness's order of preference (a natural card before a wild one, the
    # cheaper, then card order); a later one must keep fewer points, or as many with fewer
    # before the discard. What the play of the hand and a card keeps is bounded below by the
    # hand and card's own best lay-down, as in ``best_turn``, so most are never played out.
    held = Counter(cards) + Counter(solver.seen)  # a missing card is a copy neither held nor seen
    discard_needed = rules.discard_to_go_out == DiscardToGoOut.REQUIRED
    candidates = sorted((card for card in ALL_CARD_KINDS if held[card] < deck_copies(card, solver.deck)),
                        key=lambda card: (rules.is_wild(card), rules.points_of(card), card.sort_key()))
    best: tuple[tuple[int, int], Card, TurnPlay] | None = None
    for card in candidates:
        extended = cards + (card,)
        least = min(map(rules.points_of, extended))
        if best is not None and (0, least if discard_needed else 0) >= best[0]:
            continue
        held_after = solver.lay_down(extended).leftover_points
        kept = play_keeps_at_least(extended, rules, held_after)
        before_at_least = max(held_after, kept + least if discard_needed or held_after else 0)
        if best is not None and (kept, before_at_least) >= best[0]:
            continue
        play = best_turn(solver, extended)
        if play is not None and (best is None or (play.points_after_discard, play.leftover_points) < best[0]):
            best = (play.points_after_discard, play.leftover_points), card, play
    if best is None:  # no card is left in the deck beyond this hand's copies
        return dataclasses.replace(whole, can_lay_down=False, melds=(), leftover=cards,
                                   leftover_points=solver.points(cards), cards_away=None, missing=(),
                                   with_missing=())
    _, card, play = best
    return dataclasses.replace(whole, can_lay_down=False, melds=(), leftover=cards,
                               leftover_points=solver.points(cards), cards_away=1, missing=(card,),
                               with_missing=play.melds,
                               proven_optimal=whole.proven_optimal and play.lay_down.proven_optimal)


def witness_turn_end(hand: Iterable[Card], missing: Iterable[Card], melded: Iterable[Card],
                     rules: Rules) -> tuple[Card | None, tuple[Card, ...]]:
    """After the draw, in a round without the go-out rule, the witness is a turn's play
    (``_not_this_turn``): of the ``hand`` and its ``missing`` cards, the ``melded`` ones go
    down; this is the play's discard (None when it melds every card) and the cards kept. The
    discard is the costliest card the melds leave, a natural one before a wild one, then by card
    order: the one the best play with those melds makes (``TurnPlay.merit``)."""
    left = list((Counter(hand) + Counter(missing) - Counter(melded)).elements())
    if not left:
        return None, ()
    discard = min(left, key=lambda card: (-rules.points_of(card), rules.is_wild(card), card.sort_key()))
    left.remove(discard)
    return discard, sorted_cards(left)


def _without(cards: Sequence[Card], card: Card) -> tuple[Card, ...]:
    rest = list(cards)
    rest.remove(card)
    return tuple(rest)


# ---- the best play of a turn ----------------------------------------------------------------


@dataclass(frozen=True)
class TurnPlay:
    """A turn after the draw that lays down: the melds, then the discard, and what is left."""

    melds: tuple[PlacedMeld, ...]
    leftover: tuple[Card, ...]  # the cards no meld takes, the discard among them
    leftover_points: int  # before the discard
    discard: Card | None  # None: the turn ends without a discard (going out by melding every card)
    kept: tuple[Card, ...]  # held when the turn ends
    points_after_discard: int
    goes_out: bool
    lay_down: LayDown  # the solver's answer for the hand less the discard

    def merit(self, rules: Rules) -> tuple[int, int, bool, tuple[int, int]]:
        """Smaller is better: points when the turn ends, then before the discard, then a natural
        discard before a wild one, then card order."""
        discard = self.discard
        return (self.points_after_discard, self.leftover_points,
                discard is not None and rules.is_wild(discard), discard.sort_key() if discard else (-1, -1))


def best_turn(solver: RoundSolver, hand: Sequence[Card]) -> TurnPlay | None:
    """The best play of a turn for ``hand`` after the draw, or None when it cannot lay down.

    Discarding ``x`` and laying down the rest is a lay-down of the whole hand with ``x`` left
    over, so the whole hand's best leftover less ``x``'s points bounds what that play can keep;
    only discards that could beat the best play found so far are solved."""
    cards = sorted_cards(hand)
    rules = solver.rules
    if solver.go_out:  # laying down is going out: every card melded, no discard
        whole = solver.lay_down(cards)
        if not whole.can_lay_down or whole.leftover:
            return None
        return TurnPlay(whole.melds, (), 0, None, (), 0, True, whole)
    whole = solver.lay_down(cards)
    if not whole.can_lay_down:  # a smaller hand cannot lay down either
        return None
    if not whole.leftover and rules.discard_to_go_out != DiscardToGoOut.REQUIRED:
        return TurnPlay(whole.melds, (), 0, None, (), 0, True, whole)
    best: TurnPlay | None = None
    for card in dict.fromkeys(sorted(whole.leftover, key=lambda c: -rules.points_of(c))):
        play = play_with_discard(solver, cards, card, whole)
        if play is not None and (best is None or play.merit(rules) < best.merit(rules)):
            best = play
    for card in dict.fromkeys(cards):
        if card in whole.leftover:
            continue
        # Every part of the play's merit is at least this, so skip the discard if this does not
        # beat the play already found (a natural card is still tried against a wild discard
        # that keeps as many points). Kept after the turn: the whole hand's best leftover less
        # the card, and never below 0, nor, where going out by discarding is forbidden, below
        # the cheapest other card (one stays); held before the discard: that and the card, and
        # at least the whole hand's best leftover; then the card's own tie-breaks.
        bound = max(whole.leftover_points - rules.points_of(card), 0,
                    _cheapest_other(cards, card, rules) if rules.discard_to_go_out == DiscardToGoOut.NEVER else 0)
        at_best = (bound, max(whole.leftover_points, bound + rules.points_of(card)), rules.is_wild(card),
                   card.sort_key())
        if best is not None and at_best >= best.merit(rules):
            continue
        play = play_with_discard(solver, cards, card, whole)
        if play is not None and (best is None or play.merit(rules) < best.merit(rules)):
            best = play
    return best


def _cheapest_other(cards: Sequence[Card], card: Card, rules: Rules) -> int:
    """The fewest points of a card of ``cards`` other than (one copy of) ``card``."""
    return min((rules.points_of(c) for c in _without(cards, card)), default=0)


def play_with_discard(solver: RoundSolver, cards: tuple[Card, ...], discard: Card,
                      whole: LayDown | None = None) -> TurnPlay | None:
    """The best play of a turn after the draw that discards ``discard``, or None when the rest
    cannot be laid down with a legal discard (not in a go-out round, where no card is discarded).

    ``whole``: the whole hand's best lay-down, when known. If it leaves the card over, it is also
    the best lay-down without it (a lay-down without the card is one with the card left over)."""
    rules = solver.rules
    rest = _without(cards, discard)
    if whole is not None and discard in whole.leftover:
        lay_down = whole
        leftover = list(whole.leftover)
    else:
        lay_down = solver.lay_down(rest)
        if not lay_down.can_lay_down:
            return None
        leftover = list(lay_down.leftover) + [discard]
    kept = list(leftover)
    kept.remove(discard)
    if not kept and rules.discard_to_go_out == DiscardToGoOut.NEVER:
        # Going out by discarding is not allowed: lay down at least one card fewer, or not at all.
        lay_down = solver.lay_down(rest, meld_at_most=len(rest) - 1)
        if not lay_down.can_lay_down or not lay_down.leftover:
            return None
        kept = list(lay_down.leftover)
        leftover = kept + [discard]
    return TurnPlay(
        melds=lay_down.melds,
        leftover=sorted_cards(leftover),
        leftover_points=solver.points(leftover),
        discard=discard,
        kept=sorted_cards(kept),
        points_after_discard=solver.points(kept),
        goes_out=not kept,
        lay_down=lay_down,
    )


# ---- lay-offs on the player's own melds -----------------------------------------------------


def lay_off_targets(card: Card, melds: Sequence[PlacedMeld], rules: Rules) -> list[PlacedMeld]:
    """The player's own melds ``card`` could be added to on a later turn: a set of its rank, a
    run of its suit it extends at either end, or for a wild card any meld with room for one."""
    found = []
    for meld in melds:
        if rules.is_wild(card) and not (card.rank == Rank.TWO and not rules.deuces_always_wild
                                        and _extends(card, meld, rules)):
            if _room_for_a_wild(meld, rules):
                found.append(meld)
        elif _extends(card, meld, rules):
            found.append(meld)
    return found


def _room_for_a_wild(meld: PlacedMeld, rules: Rules) -> bool:
    """Whether one more wild card keeps the meld within the wild limits and, for a run, has a
    place at either end that runs may use."""
    wilds = len(wild_cards(meld, rules))
    if wild_limit_problems(wilds + 1, len(meld.cards) - wilds, rules):
        return False
    if meld.kind != MeldKind.RUN:
        return True
    first, last = run_span(meld)
    allowed = rules.run_positions()
    return len(meld.cards) < rules.max_run_length and (first - 1 in allowed or last + 1 in allowed)


def _extends(card: Card, meld: PlacedMeld, rules: Rules) -> bool:
    """Whether the natural ``card`` belongs in the meld: a set of its rank, or a run of its suit
    it lengthens at either end."""
    if meld.kind != MeldKind.RUN:
        return card.rank == meld.stands_for[0].rank
    if card.suit != meld.stands_for[0].suit or len(meld.cards) >= rules.max_run_length:
        return False
    first, last = run_span(meld)
    return bool({first - 1, last + 1} & set(run_places(card, rules)))


def cards_off(kept: Sequence[Card], melds: Sequence[PlacedMeld], rules: Rules) -> list[tuple[Card, PlacedMeld]]:
    """Each distinct kept card that could be laid off on one of the player's melds later, with
    the first such meld."""
    found = []
    for card in dict.fromkeys(sorted_cards(kept)):
        targets = lay_off_targets(card, melds, rules)
        if targets:
            found.append((card, targets[0]))
    return found
