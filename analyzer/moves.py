"""A turn at the table by the full rules (RULES.md §7, "Laying off, joker substitution and the
table"), move by move: the contract laid down, cards laid off on any meld, jokers taken back, the
discard and going out. Every move is checked before it is made; an illegal one is a
``TableError`` whose message names the rule, and the turn is left as it was.

A ``Turn`` works on copies of the player's hand and the table's melds; ``analyzer.simulate.Table``
makes it, feeds it a ``Play`` and takes its hand and melds only when the whole turn is legal.

>>> from analyzer.cards import parse_cards
>>> from analyzer.rules import preset
>>> spades = PlacedMeld(MeldKind.RUN, parse_cards('5S 6S 7S 8S'), parse_cards('5S 6S 7S 8S'))
>>> grown(spades, Card.parse('9S'), preset('progressive')).describe()
'5♠ 6♠ 7♠ 8♠ 9♠'
>>> grown(spades, Card.parse('9H'), preset('progressive'))
'runs are of one suit'
"""

from __future__ import annotations

import enum
import functools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from analyzer.cards import JOKER, Card, Rank
from analyzer.melds import meld_problems, run_ends, run_span
from analyzer.result import PlacedMeld
from analyzer.rules import ContractMode, DiscardToGoOut, JokerSubstitution, MeldKind, Rules
from analyzer.validate import validate_lay_down


class TableError(ValueError):
    """A play the rules do not allow: cards the player does not hold, a lay-off that does not fit,
    a move out of its turn. The message names the rule."""


class End(enum.Enum):
    """Which end of a run a card is laid off at."""

    LOW = "low"  # before its first card
    HIGH = "high"  # after its last card


@dataclass(frozen=True)
class LayOff:
    """``card`` laid off on meld ``meld`` of player ``seat`` (any player's, the mover's own too).
    ``end``: for a run, which end (None: the high end when the card fits there, else the low);
    for a set, None."""

    card: Card
    seat: int
    meld: int
    end: End | None = None


@dataclass(frozen=True)
class Substitution:
    """The natural ``card`` put in the place of the joker that stands for it in meld ``meld`` of
    player ``seat`` (in a set: a joker of the set, by a natural card of its rank); the joker goes
    to the mover's hand and must be melded the same turn."""

    card: Card
    seat: int
    meld: int


Move = LayOff | Substitution


def player(seat: int) -> str:
    """A seat as the messages name it: seats count from 0, players from 1."""
    return f"player {seat + 1}"


# ---- one meld grows -----------------------------------------------------------------------------


GROWN_KEPT = 1 << 16  # lay-offs asked of ``grown`` whose answers are kept in a process


@functools.lru_cache(maxsize=GROWN_KEPT)
def grown(meld: PlacedMeld, card: Card, rules: Rules, end: End | None = None) -> PlacedMeld | str:
    """The meld with ``card`` laid off on it, or why the card does not fit, in the rule's words.

    A set takes a card of its rank (a wild card stands for that rank); a run takes the natural
    card next to either end, within the places runs may use (``analyzer.melds.run_ends``), and a
    wild card at an end (the high end unless ``end`` says low, or the high end has no room).
    Every meld it makes passes ``analyzer.melds.meld_problems``: the wild limits and the run
    length are those of any meld.

    A pure function of its arguments (all immutable), kept for the last ``GROWN_KEPT`` asked:
    the advice once down asks which cards each meld takes (``analyzer.down``), then tries the
    same lay-offs on many positions of the table."""
    wild = rules.is_wild(card)
    if meld.kind != MeldKind.RUN:
        if end is not None:
            return f"a {meld.kind.value} has no ends: lay off on it without one"
        rank = meld.stands_for[0].rank
        assert rank is not None
        if not wild and card.rank != rank:
            return f"{meld.kind.value}s are of one rank, here {rank.token}s"
        meaning = card if not wild else meld.stands_for[0]
        made = PlacedMeld(meld.kind, meld.cards + (card,), meld.stands_for + (meaning,))
        return _within_limits(made, rules)
    suit = meld.stands_for[0].suit
    below, above = run_ends(meld, rules)
    if not wild and card.suit != suit:
        return "runs are of one suit"
    ends = [(End.HIGH, above), (End.LOW, below)]
    if end is not None:
        ends = [(side, place) for side, place in ends if side is end]
    for side, natural in ends:
        if natural is None or not (wild or card == natural):
            continue
        if side is End.HIGH:
            made = PlacedMeld(meld.kind, meld.cards + (card,), meld.stands_for + (natural,))
        else:
            made = PlacedMeld(meld.kind, (card,) + meld.cards, (natural,) + meld.stands_for)
        return _within_limits(made, rules)
    return _why_not_at_an_end(meld, card, rules, end, wild)


def _within_limits(made: PlacedMeld, rules: Rules) -> PlacedMeld | str:
    """``made``, or the first rule it breaks (the wild limits: the geometry was checked)."""
    problems = meld_problems(made, rules)
    return made if not problems else f"wild cards: {problems[0]}"


def _why_not_at_an_end(meld: PlacedMeld, card: Card, rules: Rules, end: End | None, wild: bool) -> str:
    """Why a card of a run's suit (or a wild card) fits at neither (or not at that) end."""
    if len(meld.cards) >= rules.max_run_length:
        return f"runs are at most {rules.max_run_length} cards long"
    first, last = run_span(meld)
    where = f"at its {end.value} end" if end is not None else "at either end"
    if wild:
        return f"the run has no place left {where}"
    if card in meld.stands_for:
        return f"the run already has the {card.face}'s place"
    if card.rank == Rank.ACE and first == 2 and not rules.ace_low:
        return "the ace is high only here (A-2-3-4 is not a run)"
    if card.rank == Rank.ACE and last == 13 and not rules.ace_high:
        return "the ace is low only here (J-Q-K-A is not a run)"
    if (card.rank == Rank.TWO and last == 14) or (card.rank == Rank.KING and first == 1):
        return "a run never turns the corner (K-A-2 is not a run)"
    if card.rank in (Rank.TWO, Rank.ACE) and first == 3 and not rules.two_position_in_runs:
        return "runs do not use the 2's place here (two_position_in_runs is false)"
    below, above = run_ends(meld, rules)
    ends = " or ".join(c.face for c in (below, above) if c is not None and (end is None or
                                                                        (end is End.LOW) == (c is below)))
    return f"a run grows only at its ends ({ends or 'no room'} {where})"


# ---- a turn -------------------------------------------------------------------------------------


class Turn:
    """One player's turn after its draw, move by move, on copies of its hand and of every
    player's melds. ``lay_down``, ``lay_off``, ``substitute`` and ``discard`` each check their
    move against the rules and raise ``TableError`` before changing anything; ``finish`` checks
    how the turn ends (the discard, going out, the jokers taken back)."""

    def __init__(self, rules: Rules, round_number: int, seat: int, hand: Sequence[Card],
                 melds: Sequence[Sequence[PlacedMeld]]) -> None:
        self.rules = rules
        self.round_number = round_number
        self.round_rule = rules.round(round_number)
        self.seat = seat
        self.hand: Counter[Card] = Counter(hand)
        self.melds = [list(seat_melds) for seat_melds in melds]
        self.laid_down_before = bool(self.melds[seat])
        self.laid_down_now = False
        self.jokers_owed = 0  # jokers taken back this turn and not melded yet
        self.discarded: Card | None = None
        self.finished = False
        self.made: list[PlacedMeld] = []  # the meld each lay-off and substitution made, in order

    def copy(self) -> Turn:
        """The turn as it stands, to try moves on without changing this one (the advice once
        the contract is down searches plays this way)."""
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)  # as ``copy.copy``, without its generic protocol
        twin.hand = Counter(self.hand)
        twin.melds = [list(seat_melds) for seat_melds in self.melds]
        twin.made = list(self.made)
        return twin

    @property
    def who(self) -> str:
        return player(self.seat)

    def held(self) -> list[Card]:
        """The cards in hand, in card order."""
        return sorted(self.hand.elements(), key=Card.sort_key)

    def _take(self, card: Card) -> None:
        if self.hand[card] <= 0:
            raise TableError(f"{self.who} plays {card.token} it does not hold")
        self.hand[card] -= 1

    def _open(self, what: str) -> None:
        if self.finished or self.discarded is not None:
            raise TableError(f"{self.who} {what} after the turn ended with the discard")

    # -- the moves -----------------------------------------------------------------------------

    def lay_down(self, melds: Sequence[PlacedMeld]) -> None:
        """Put the round's contract on the table, whole, as ``validate_lay_down`` checks it."""
        self._open("lays down")
        if self.laid_down_before or self.laid_down_now:
            raise TableError(f"{self.who} has laid down already")
        rule = self.round_rule
        wanted = sorted((spec.kind.value, spec.size) for spec in rule.contract)
        got = sorted((meld.kind.value, len(meld.cards)) for meld in melds)
        exact = self.rules.contract_mode == ContractMode.EXACT and not rule.go_out
        if len(got) != len(wanted) or any(g[0] != w[0] or g[1] < w[1] or (exact and g[1] != w[1])
                                          for g, w in zip(got, wanted)):
            raise TableError(f"{self.who} lays down {got}, not the contract {wanted}")
        for meld in melds:
            if meld_problems(meld, self.rules):
                raise TableError(f"{self.who} lays down {meld.describe()}, which is no {meld.kind.value}: "
                                 f"{meld_problems(meld, self.rules)[0]}")
        hand = self.held()
        used = Counter(card for meld in melds for card in meld.cards)
        missing = used - self.hand
        if missing:
            raise TableError(f"{self.who} plays {' '.join(c.token for c in missing.elements())} it does not hold")
        leftover = list((self.hand - used).elements())
        # The go-out round's "every card melded" is checked when the turn ends (no discard then).
        problems = [problem for problem in validate_lay_down(hand, self.rules, self.round_number, melds, leftover)
                    if not (rule.go_out and "go-out round" in problem)]
        if problems:
            raise TableError(f"{self.who}'s lay-down breaks the rules: {problems[0]}")
        self.hand -= used
        self.melds[self.seat] = list(melds)
        self.laid_down_now = True

    def _may_play_on_table(self, what: str, target: int, index: int) -> PlacedMeld:
        """The meld ``index`` of player ``target`` if the mover may play on it now."""
        self._open(what)
        if not (self.laid_down_before or self.laid_down_now):
            raise TableError(f"{self.who} {what} before laying down: only a player whose contract is down "
                             f"plays on the melds on the table")
        if self.laid_down_now and not self.rules.lay_off_same_turn:
            raise TableError(f"{self.who} {what} on the turn it laid down: in {self.rules.name} that waits "
                             f"for a later turn (lay_off_same_turn is false)")
        if not 0 <= target < len(self.melds):
            raise TableError(f"{self.who} {what} on a meld of {player(target)}, who is not at the table")
        if target != self.seat and not self.rules.lay_off_on_others:
            raise TableError(f"{self.who} {what} on a meld of {player(target)}: in {self.rules.name} a player "
                             f"plays on its own melds only (lay_off_on_others is false)")
        if not 0 <= index < len(self.melds[target]):
            raise TableError(f"{self.who} {what} on meld {index + 1} of {player(target)}, who has "
                             f"{len(self.melds[target])} meld(s)")
        return self.melds[target][index]

    def lay_off(self, move: LayOff) -> PlacedMeld:
        """Lay ``move.card`` off on a meld on the table (``grown``); the meld it makes."""
        meld = self._may_play_on_table("lays off", move.seat, move.meld)
        if self.hand[move.card] <= 0:
            raise TableError(f"{self.who} plays {move.card.token} it does not hold")
        made = grown(meld, move.card, self.rules, move.end)
        if isinstance(made, str):
            raise TableError(f"the {move.card.face} does not extend {meld.describe()} of {player(move.seat)}: "
                             f"{made}")
        self._take(move.card)
        if move.card.is_joker and self.jokers_owed:
            self.jokers_owed -= 1
        self.melds[move.seat][move.meld] = made
        self.made.append(made)
        return made

    def substitute(self, move: Substitution) -> PlacedMeld:
        """Put ``move.card`` in the place of a joker on the table and take the joker in hand;
        the meld it makes."""
        rules = self.rules
        if rules.joker_substitution is JokerSubstitution.NONE:
            raise TableError(f"{self.who} takes a joker back: in {rules.name} wild cards once melded cannot be "
                             f"moved (joker_substitution is none)")
        meld = self._may_play_on_table("takes a joker back", move.seat, move.meld)
        card = move.card
        if rules.is_wild(card):
            raise TableError(f"{self.who} puts the {card.face} in a joker's place: only a natural card takes it")
        if self.hand[card] <= 0:
            raise TableError(f"{self.who} plays {card.token} it does not hold")
        shown = f"{meld.describe()} of {player(move.seat)}"
        if meld.kind == MeldKind.RUN:
            places = [i for i, (held, meaning) in enumerate(zip(meld.cards, meld.stands_for))
                      if held.is_joker and meaning == card]
            if not places:
                raise TableError(f"no joker in {shown} stands for the {card.face}: a joker is taken back only by "
                                 f"the natural card it stands for")
        else:
            if rules.joker_substitution is not JokerSubstitution.RUNS_AND_SETS:
                raise TableError(f"{self.who} takes a joker from the set {shown}: in {rules.name} jokers in sets "
                                 f"are dead (joker_substitution is runs)")
            if card.rank != meld.stands_for[0].rank:
                raise TableError(f"the {card.face} cannot take a joker's place in {shown}: sets are of one rank")
            places = [i for i, held in enumerate(meld.cards) if held.is_joker]
            if not places:
                raise TableError(f"{shown} holds no joker to take back")
        place = places[0]
        made = PlacedMeld(meld.kind, meld.cards[:place] + (card,) + meld.cards[place + 1:],
                          meld.stands_for[:place] + (card,) + meld.stands_for[place + 1:])
        problems = meld_problems(made, rules)
        if problems:  # pragma: no cover - a natural in a joker's place breaks no limit
            raise TableError(f"the {card.face} in a joker's place breaks {shown}: {problems[0]}")
        self._take(card)
        self.hand[JOKER] += 1
        self.jokers_owed += 1
        self.melds[move.seat][move.meld] = made
        self.made.append(made)
        return made

    def discard(self, card: Card) -> None:
        """End the turn by discarding ``card`` (not a joker taken back this turn)."""
        self._open("discards")
        if self.hand[card] <= 0:
            raise TableError(f"{self.who} plays {card.token} it does not hold")
        if card.is_joker and self.jokers_owed and self.hand[JOKER] <= self.jokers_owed:
            raise TableError(f"{self.who} discards the joker it took back: a joker taken back must be melded "
                             f"the same turn")
        if self.round_rule.go_out and self.laid_down_now:
            raise TableError(f"{self.who} discards in round {self.round_number}, a go-out round: laying down "
                             f"melds every card, without a discard")
        if not +(self.hand - Counter([card])) and not self.round_rule.go_out \
                and self.rules.discard_to_go_out == DiscardToGoOut.NEVER:
            raise TableError(f"{self.who} goes out by discarding its last card: in {self.rules.name} the last card "
                             f"must be melded (discard_to_go_out is never)")
        self._take(card)
        self.discarded = card

    def finish(self) -> None:
        """Check how the turn ends: every joker taken back melded; in a go-out round a lay-down
        melds every card; a discard unless the player goes out without one where the rules let
        it, or keeps a last card it may not discard."""
        self.finished = True
        rules, rule, left = self.rules, self.round_rule, sum(self.hand.values())
        if self.jokers_owed:
            raise TableError(f"{self.who} keeps a joker it took back: it must be melded the same turn")
        if rule.go_out and self.laid_down_now and left:
            raise TableError(f"{self.who} must meld every card to go out in round {self.round_number}, "
                             f"a go-out round")
        if self.discarded is not None or (rule.go_out and self.laid_down_now):
            return
        if not left:
            if rules.discard_to_go_out == DiscardToGoOut.REQUIRED:
                raise TableError(f"{self.who} goes out without a discard: in {rules.name} the last card must be "
                                 f"discarded (discard_to_go_out is required)")
            return
        if not (left == 1 and rules.discard_to_go_out == DiscardToGoOut.NEVER):
            raise TableError(f"{self.who} ends its turn without a discard, holding {left} card(s)")


def play_turn(turn: Turn, lay_down: Sequence[PlacedMeld], moves: Sequence[Move], discard: Card | None) -> None:
    """Feed a whole turn's play to ``turn`` in order, then finish it."""
    if lay_down:
        turn.lay_down(lay_down)
    for move in moves:
        if isinstance(move, LayOff):
            turn.lay_off(move)
        else:
            turn.substitute(move)
    if discard is not None:
        turn.discard(discard)
    turn.finish()


__all__ = ["End", "LayOff", "Move", "Substitution", "TableError", "Turn", "grown", "play_turn", "player"]
