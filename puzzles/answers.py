"""A player's answer to a puzzle as a typed value, read and scored here (the web app only turns
its form into one of these).

- a discard puzzle is answered with ``DiscardChoice`` (the card thrown);
- a buy puzzle with ``BuyChoice`` (buy or pass);
- a lay-down puzzle with ``WrittenPlay``: the meld rows as the player wrote them, each card with
  what it stands for where they said it (``JK=3H``), and the discard; or "cannot".

Each value's ``to_dict()`` is the JSON the trainer stores with an attempt and ``answer_from_dict``
reads it back, so a stored answer is scored again from its value. ``score`` says whether an
answer is right:

    >>> from analyzer import Moment, parse_cards
    >>> puzzle = Puzzle(kind=Kind.DISCARD, rules="progressive", round=1, players=4, moment=Moment.AFTER_DRAW,
    ...                 hand=parse_cards("5C 5D 9H 9S KD 2C 3H"), answers=("KD",))
    >>> score(puzzle, DiscardChoice(Card.parse("KD"))).right
    True
    >>> answer_from_dict(puzzle, {"discard": "KD"}) == DiscardChoice(Card.parse("KD"))
    True

A wild card in a lay-down row stands for what its place says: in a run, the card of its place
(``4H 5H JK 7H``: the joker is the 6♥); in a set, the set's rank. ``JK=3H`` says it outright where
the place does not (a joker at either end of a run). When the written order fails, the naturals
sorted with the wild cards in the gaps (then at the top, then at the bottom) are tried too: any
equivalent legal play is right, as the validator judges it (``puzzles.check``). Run places and
the ace come from ``analyzer.melds`` (``card_at``, ``card_places``).

An answer that is not one to this puzzle (a card not in the hand or used more often than held, a
meld row the contract does not have) raises ``AnswerError`` from ``check_held``: nothing is
scored or recorded. A written lay-down just read is first checked whole (``check_complete``): a
row short or over its meld's size, an empty meld, a card used twice or not held, or no discard
where one is needed is a slip, ``IncompleteAnswer`` with a message per row, never scored. A
complete but wrong play is an answer, and is scored wrong.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from analyzer import (
    HIGH_ACE,
    LOW_ACE,
    Card,
    ContractMode,
    MeldKind,
    MeldSpec,
    PlacedMeld,
    Rules,
    Suit,
    card_at,
    card_places,
    preset,
)
from puzzles.check import check_answer, check_lay_down
from puzzles.model import BUY, PASS, DiscardAnalysis, Kind, LayDownAnswer, Puzzle

Written = tuple[Card, Card | None]  # a card as written, and what it stands for when said (JK=3H)


class AnswerError(ValueError):
    """Something that is not an answer to this puzzle; the message says what is wrong."""


@dataclass(frozen=True)
class DiscardChoice:
    """The answer to a discard puzzle: the card thrown."""

    card: Card

    def to_dict(self) -> dict[str, Any]:
        return {"discard": self.card.token}


@dataclass(frozen=True)
class BuyChoice:
    """The answer to a buy puzzle: buy the offered card, or pass."""

    buy: bool

    @property
    def choice(self) -> str:
        return BUY if self.buy else PASS

    def to_dict(self) -> dict[str, Any]:
        return {"choice": self.choice}


@dataclass(frozen=True)
class WrittenPlay:
    """The answer to a lay-down puzzle as written: a row of cards per meld of the contract, in
    the contract's order, and the discard (None: none, going out by melding every card); or
    ``cannot``, no lay-down exists."""

    rows: tuple[tuple[Written, ...], ...] = ()
    discard: Card | None = None
    cannot: bool = False

    def to_dict(self) -> dict[str, Any]:
        if self.cannot:
            return {"cannot": True}
        return {"melds": [" ".join(_written(card, meaning) for card, meaning in row) for row in self.rows],
                "discard": None if self.discard is None else self.discard.token}

    @property
    def cards(self) -> Counter[Card]:
        """Every card the answer uses: the rows' and the discard."""
        used = Counter(card for row in self.rows for card, _ in row)
        if self.discard is not None:
            used[self.discard] += 1
        return used


Answer = DiscardChoice | BuyChoice | WrittenPlay


@dataclass(frozen=True)
class Scored:
    """An answer scored: right or not, the answer, and for a lay-down the play as the validator
    read it, why it is illegal and the points a legal one keeps at the end of the turn."""

    right: bool
    answer: Answer
    play: LayDownAnswer | None = None
    problems: tuple[str, ...] = ()
    points: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"right": self.right, "answer": self.answer.to_dict(), "problems": list(self.problems),
                "points": self.points, "play": None if self.play is None else self.play.to_dict()}


# ---- reading -------------------------------------------------------------------------------------


def read_card(text: str, what: str) -> Card:
    """One card token (``7H``, ``10S``, ``JK``); ``AnswerError`` naming ``what`` otherwise."""
    try:
        return Card.parse(text.strip())
    except ValueError:
        shown = text.strip()[:20]
        raise AnswerError(f"{what}: {shown!r} is not a card (write 7H, 10S, QD, JK)") from None


def read_written(token: str, rules: Rules, what: str) -> Written:
    """``7H``, or ``JK=3H``: a wild card and the natural card it stands for."""
    written, _, meaning = token.partition("=")
    card = read_card(written, what)
    if not meaning:
        return card, None
    if not rules.is_wild(card):
        raise AnswerError(f"{what}: only a wild card stands for another ({token!r})")
    stands = read_card(meaning, what)
    if stands.is_joker:
        raise AnswerError(f"{what}: a wild card stands for a card with a rank and suit ({token!r})")
    return card, stands


def answer_from_dict(puzzle: Puzzle, data: Mapping[str, Any]) -> Answer:
    """The answer to ``puzzle`` that ``to_dict`` wrote; ``AnswerError`` when it is not one."""
    if not isinstance(data, Mapping):
        raise AnswerError(f"an answer is an object, not {type(data).__name__}")
    kind = puzzle.kind
    if kind is Kind.DISCARD:
        return DiscardChoice(read_card(str(data.get("discard", "")), "the card to discard"))
    if kind is Kind.BUY:
        choice = str(data.get("choice", "")).strip().lower()
        if choice not in (BUY, PASS):
            raise AnswerError("answer Buy or Pass")
        return BuyChoice(choice == BUY)
    if data.get("cannot"):
        return WrittenPlay(cannot=True)
    rules = preset(puzzle.rules)
    rows = tuple(tuple(read_written(token, rules, f"meld {index + 1}") for token in str(text).split())
                 for index, text in enumerate(data.get("melds") or ()))
    discard = data.get("discard")
    return WrittenPlay(rows, read_card(str(discard), "the discard") if discard else None)


def check_held(puzzle: Puzzle, answer: Answer) -> None:
    """``AnswerError`` unless ``answer`` answers ``puzzle``: its kind, cards the hand holds (as
    often as it holds them), a row per meld of the contract at most, and a lay-down with a card."""
    expected = {Kind.DISCARD: DiscardChoice, Kind.BUY: BuyChoice, Kind.LAY_DOWN: WrittenPlay}[puzzle.kind]
    if not isinstance(answer, expected):
        raise AnswerError(f"a {puzzle.kind} puzzle is answered with a {expected.__name__}")
    if isinstance(answer, DiscardChoice) and answer.card not in puzzle.hand:
        raise AnswerError(f"the {answer.card.token} is not in your hand")
    if not isinstance(answer, WrittenPlay) or answer.cannot:
        return
    contract = preset(puzzle.rules).round(puzzle.round).contract
    if len(answer.rows) > len(contract):
        raise AnswerError(f"the contract has {len(contract)} melds: there is no meld-{len(contract)}")
    held = Counter(puzzle.hand)
    for card, count in answer.cards.items():
        if count > held[card]:
            have = held[card]
            raise AnswerError(f"the {card.token} is not in your hand" if not have else
                              f"the {card.token} is used {count} times but your hand has {have}")
    if not any(answer.rows):
        raise AnswerError("put the cards of each meld in its row, or press “It can't be done”")


# ---- scoring -------------------------------------------------------------------------------------


def score(puzzle: Puzzle, answer: Answer) -> Scored:
    """Score ``answer`` to ``puzzle`` (``check_held`` first: ``AnswerError`` when it is not one)."""
    check_held(puzzle, answer)
    if isinstance(answer, DiscardChoice):
        return Scored(check_answer(puzzle, answer.card.token), answer)
    if isinstance(answer, BuyChoice):
        return Scored(check_answer(puzzle, answer.choice), answer)
    if answer.cannot:
        play = LayDownAnswer(cannot=True)
        return Scored(check_lay_down(puzzle, play).right, answer, play)
    return _score_play(puzzle, answer)


def _score_play(puzzle: Puzzle, answer: WrittenPlay) -> Scored:
    """The first reading of the rows the validator finds right, else the first legal one, else
    the first."""
    rules = preset(puzzle.rules)
    contract = rules.round(puzzle.round).contract
    rows = answer.rows + ((),) * (len(contract) - len(answer.rows))
    kinds = list(dict.fromkeys(spec.kind for spec in contract))
    best: Scored | None = None
    readings = (row_readings(row, spec.kind, kinds, rules) for row, spec in zip(rows, contract))
    for melds in itertools.product(*readings):
        play = LayDownAnswer(tuple(melds), answer.discard)
        judged = check_lay_down(puzzle, play)
        scored = Scored(judged.right, answer, play, judged.problems, judged.points)
        if judged.right:
            return scored
        if best is None or (best.points is None and judged.points is not None):
            best = scored
    assert best is not None
    return best


def row_readings(row: Sequence[Written], kind: MeldKind, kinds: Sequence[MeldKind], rules: Rules) -> list[PlacedMeld]:
    """The readings of a row as the meld its place in the contract names, then as any other kind
    the contract has (a player may fill the rows in another order), skipping kinds its natural
    cards rule out (two ranks: not a set; two suits or a rank twice: not a run)."""
    naturals = [meaning or card for card, meaning in row if meaning is not None or not rules.is_wild(card)]
    ranks = {card.rank for card in naturals}
    suits = {card.suit for card in naturals}
    readings = []
    for candidate in [kind, *(other for other in kinds if other != kind)]:
        if candidate != kind and candidate != MeldKind.RUN and len(ranks) > 1:
            continue
        if candidate != kind and candidate == MeldKind.RUN and (len(suits) > 1 or len(ranks) < len(naturals)):
            continue
        readings += meld_readings(row, candidate, rules)
    return readings


def meld_readings(row: Sequence[Written], kind: MeldKind, rules: Rules) -> list[PlacedMeld]:
    """The ways to read a row as a meld of ``kind``, most literal first (at least one, which the
    validator may then reject)."""
    cards = tuple(card for card, _ in row)
    wild = tuple(rules.is_wild(card) and meaning is None for card, meaning in row)
    explicit = tuple(meaning or card for card, meaning in row)
    literal = PlacedMeld(kind, cards, explicit)
    if not cards or all(wild) or (kind != MeldKind.RUN and not any(wild)):
        return [literal]
    if kind != MeldKind.RUN:
        return [_set_reading(row, wild, kind)]
    readings = [] if any(wild) else [literal]
    readings += [reading for reading in _runs_as_written(cards, wild, explicit) if reading not in readings]
    for ace_high in (False, True):
        for reading in _sorted_runs(row, wild, explicit, ace_high):
            if reading not in readings:
                readings.append(reading)
    return readings or [literal]


def _set_reading(row: Sequence[Written], wild: Sequence[bool], kind: MeldKind) -> PlacedMeld:
    """A set (or pair): each unsaid wild card stands for the naturals' rank in a suit they leave
    free, in suit order (the first natural's suit when all four are taken)."""
    naturals = [meaning or card for (card, meaning), unsaid in zip(row, wild) if not unsaid]
    rank, suit = naturals[0].rank, naturals[0].suit
    assert suit is not None  # a natural card, or what a wild card was said to stand for
    taken = {card.suit for card in naturals}
    spare = [other for other in sorted(Suit, key=lambda other: other.index) if other not in taken] or [suit]
    meanings = []
    free = iter(itertools.cycle(spare))
    for (card, meaning), unsaid in zip(row, wild):
        meanings.append(Card(rank, next(free)) if unsaid else meaning or card)
    return PlacedMeld(kind, tuple(card for card, _ in row), tuple(meanings))


def _runs_as_written(cards: tuple[Card, ...], wild: Sequence[bool], explicit: Sequence[Card]) -> list[PlacedMeld]:
    """The run each place one step on from the place before it, counted from the first natural
    card (the ace low, then high)."""
    first = wild.index(False)
    anchor = explicit[first]
    readings = []
    for ace_high in (False, True):
        start = _place(anchor, ace_high) - first
        meanings = [explicit[i] if not wild[i] else _card_at(start + i, anchor) for i in range(len(cards))]
        if all(meaning is not None for meaning in meanings):
            readings.append(PlacedMeld(MeldKind.RUN, cards, tuple(m for m in meanings if m is not None)))
    return readings


def _sorted_runs(row: Sequence[Written], wild: Sequence[bool], explicit: Sequence[Card],
                 ace_high: bool) -> list[PlacedMeld]:
    """The run of the row's naturals in rank order with its wild cards filling the gaps, the
    wild cards left over split every way between the top and the bottom."""
    ordered = sorted(((explicit[i], row[i][0]) for i in range(len(row)) if not wild[i]),
                     key=lambda pair: _place(pair[0], ace_high))
    wilds = [row[i][0] for i in range(len(row)) if wild[i]]
    middle: list[tuple[Card, Card | None]] = []
    for position, (meaning, card) in enumerate(ordered):
        if position:
            before = _place(ordered[position - 1][0], ace_high)
            for place in range(before + 1, _place(meaning, ace_high)):
                if not wilds:
                    break
                middle.append((wilds.pop(0), _card_at(place, meaning)))
        middle.append((card, meaning))
    readings = []
    low, high = _place(ordered[0][0], ace_high), _place(ordered[-1][0], ace_high)
    for above in range(len(wilds), -1, -1):
        below = len(wilds) - above
        placed = ([(wilds[above + i], _card_at(low - below + i, ordered[0][0])) for i in range(below)] + middle
                  + [(wilds[i], _card_at(high + 1 + i, ordered[-1][0])) for i in range(above)])
        if all(meaning is not None for _, meaning in placed):
            readings.append(PlacedMeld(MeldKind.RUN, tuple(card for card, _ in placed),
                                       tuple(meaning for _, meaning in placed if meaning is not None)))
    return readings


def _place(card: Card, ace_high: bool) -> int:
    """A natural card's run place, the ace high (14) or low (1)."""
    places = card_places(card)
    return places[-1] if ace_high else places[0]


def _card_at(place: int, like: Card) -> Card | None:
    """The card at run ``place`` in ``like``'s suit; None off the ends."""
    if not LOW_ACE <= place <= HIGH_ACE or like.suit is None:
        return None
    return card_at(place, like.suit)


def _written(card: Card, meaning: Card | None) -> str:
    return card.token if meaning is None else f"{card.token}={meaning.token}"


# ---- learning from a wrong answer ------------------------------------------------------------------


def stored_discard_row(puzzle: Puzzle, card: Card) -> Mapping[str, Any] | None:
    """The discard table's row for throwing ``card``, when the puzzle stored it (its top rows);
    None otherwise (the analyser works the row out: ``analyzer.advise`` with ``discards``)."""
    rows = puzzle.analysis.rows if isinstance(puzzle.analysis, DiscardAnalysis) else ()
    return next((row for row in rows if row["card"] == card.token), None)


def best_discard_row(puzzle: Puzzle) -> Mapping[str, Any] | None:
    """The discard table's row of the puzzle's (first) accepted answer."""
    return stored_discard_row(puzzle, Card.parse(puzzle.answers[0])) if puzzle.answers else None


def discard_difference(chosen: Mapping[str, Any], best: Mapping[str, Any], rules: Rules) -> str:
    """One sentence on what the best discard does that the player's does not, from their rows of
    the discard table (``analyzer.DiscardRow.to_dict``): going out, laying down, cards away,
    unseen outs, points kept, in the order the table ranks by."""
    mine, top = Card.parse(chosen["card"]).face, Card.parse(best["card"]).face
    if best["goes_out"] and not chosen["goes_out"]:
        return f"Throwing the {top} you go out this turn; throwing the {mine} you {_stands(chosen)}."
    if best["lays_down"] and not chosen["lays_down"]:
        return f"Throwing the {top} you lay down your contract this turn; throwing the {mine} you {_stands(chosen)}."
    if best["lays_down"] and chosen["lays_down"]:
        return (f"Both lay down this turn, but throwing the {mine} you keep {chosen['points_kept']} points "
                f"against {best['points_kept']} for the {top}.")
    if chosen["cards_away"] != best["cards_away"]:
        return (f"Throwing the {mine} you {_stands(chosen)}; throwing the {top} you {_stands(best)}: "
                "the fewer cards you still need, the sooner you lay down.")
    if chosen["unseen_outs"] != best["unseen_outs"]:
        return (f"Both leave you {_plural_cards(best['cards_away'])} away, but after the {top} "
                f"{best['unseen_outs']} unseen cards would help, after the {mine} only {chosen['unseen_outs']}: "
                "more cards that help, more chances to draw one.")
    if chosen["points_kept"] != best["points_kept"]:
        return (f"Both leave you {_plural_cards(best['cards_away'])} away with {best['unseen_outs']} unseen cards "
                f"that help, but throwing the {mine} you keep {chosen['points_kept']} points against "
                f"{best['points_kept']}: fewer points to count if someone else goes out.")
    if rules.is_wild(Card.parse(chosen["card"])):
        return (f"The {mine} and the {top} leave the hand equally placed, but the {mine} is wild: keep it, "
                "it fits more melds later.")
    return f"The {top} ranks above the {mine} in the discard table."


def _stands(row: Mapping[str, Any]) -> str:
    """Where the hand stands after a discard, as the rest of a sentence: ``are 2 cards away``."""
    if row["goes_out"]:
        return "go out"
    if row["lays_down"]:
        return f"lay down and keep {row['points_kept']} points"
    if row["cards_away"] is None:
        return "can never lay this contract down"
    if row["cards_away"] == 0:
        return "could lay down after your next draw"
    return f"are {_plural_cards(row['cards_away'])} away"


def _plural_cards(count: int | None) -> str:
    return "never" if count is None else f"{count} card{'s' if count != 1 else ''}"


def play_difference(puzzle: Puzzle, scored: Scored) -> str:
    """One sentence on the player's lay-down answer beside the best: legal or not, and the points
    each keeps when the turn ends."""
    best = puzzle.best_points
    cannot = puzzle.solution is not None and puzzle.solution.cannot
    if isinstance(scored.answer, WrittenPlay) and scored.answer.cannot:
        if cannot:
            return "Right: no lay-down of this contract exists with this hand."
        return f"It can be done: a best play lays the contract down and keeps {_points(best)}."
    if cannot:
        return "No lay-down of this contract exists with this hand, so no play of it can be legal."
    if scored.problems or scored.points is None:
        return f"Your play is not legal as it stands (the problem is said above); a best play keeps {_points(best)}."
    if best is None or scored.points <= best:
        return f"Your play is legal and keeps {_points(scored.points)}, as few as a best play."
    return (f"Your play is legal but keeps {_points(scored.points)}; a best play keeps {_points(best)}, "
            f"{scored.points - best} fewer.")


def _points(points: int | None) -> str:
    return "?" if points is None else f"{points} point{'s' if points != 1 else ''}"


# ---- completeness: a written lay-down that is not yet a play ---------------------------------------


class IncompleteAnswer(AnswerError):
    """A written lay-down that is not yet a play (a row short or over its size, an empty meld, a
    card used twice or not held, no discard where one is needed): a slip, not a wrong answer, so
    it is neither scored nor recorded. ``rows`` holds a message per meld row of the contract
    (None: the row is fine), ``discard`` the discard's, for the form to show beside each."""

    def __init__(self, rows: Sequence[str | None], discard: str | None = None) -> None:
        self.rows = tuple(rows)
        self.discard = discard
        parts = [f"meld {index + 1}: {text}" for index, text in enumerate(self.rows) if text]
        parts += [f"the discard: {discard}"] if discard else []
        super().__init__("; ".join(parts))


def check_complete(puzzle: Puzzle, answer: Answer) -> None:
    """``IncompleteAnswer`` when ``answer`` is a written lay-down that is not yet a play (see
    ``incomplete``); ``AnswerError`` for an all-empty one or a row the contract does not have, as
    ``check_held``. Call it on an answer just read, before ``score``: a stored answer is scored
    as it was recorded."""
    if not isinstance(answer, WrittenPlay) or answer.cannot or puzzle.kind is not Kind.LAY_DOWN:
        return
    contract = preset(puzzle.rules).round(puzzle.round).contract
    if len(answer.rows) > len(contract):
        raise AnswerError(f"the contract has {len(contract)} melds: there is no meld-{len(contract)}")
    if not any(answer.rows):
        raise AnswerError("put the cards of each meld in its row, or press “It can't be done”")
    rows, discard = incomplete(puzzle, answer)
    if any(rows) or discard:
        raise IncompleteAnswer(rows, discard)


def incomplete(puzzle: Puzzle, answer: WrittenPlay) -> tuple[list[str | None], str | None]:
    """What keeps ``answer`` from being a play, per meld row and for the discard (None: fine).

    A row is checked against its meld's size: exactly it where the rules lay down exact sizes,
    at least it where melds may be longer (or in a go-out round); rows filled in another order
    than the contract's are fine when their sizes fit it in some order. Cards are counted against
    the hand row by row, then the discard. A discard is needed when the rows are whole and leave
    cards in the hand, except in a go-out round. What the rules of melds decide (a run's suit, a
    set's rank, the contract's kinds) is the validator's, and scored."""
    rules = preset(puzzle.rules)
    rule = rules.round(puzzle.round)
    contract = rule.contract
    rows = answer.rows + ((),) * (len(contract) - len(answer.rows))
    exact = rules.contract_mode == ContractMode.EXACT and not rule.go_out

    def fits(length: int, spec: MeldSpec) -> bool:
        return length == spec.size if exact else length >= spec.size

    problems: list[str | None] = [None] * len(contract)
    in_order = any(all(fits(len(row), spec) for row, spec in zip(rows, order))
                   for order in itertools.permutations(contract))
    for index, (row, spec) in enumerate(zip(rows, contract)):
        if not row:
            problems[index] = f"empty: put the cards of this {spec.describe()} here"
        elif not in_order and not fits(len(row), spec):
            wanted = f"exactly {spec.size}" if exact else f"at least {spec.size}"
            count = f"{len(row)} card{'s' * (len(row) != 1)}"
            problems[index] = f"{count}, but a {spec.describe()} takes {wanted}"
    hand = Counter(puzzle.hand)
    held = hand.copy()
    where: dict[Card, int] = {}  # the first row each card is in
    unheld: set[int] = set()  # rows with a card the hand has no more of: said before the row's size
    for index, row in enumerate(rows):
        for card, _ in row:
            if held[card] <= 0:
                text = (f"the {card.token} is not in your hand" if card not in where else
                        f"the {card.token} is already in meld {where[card] + 1}"
                        + (f" (your hand has {hand[card]})" if hand[card] > 1 else ""))
                problems[index] = text if index not in unheld else problems[index]  # the row's first such card
                unheld.add(index)
            held[card] -= 1
            where.setdefault(card, index)
    discard_problem = None
    if answer.discard is not None and held[answer.discard] <= 0:
        discard_problem = (f"the {answer.discard.token} is not in your hand" if answer.discard not in where else
                           f"the {answer.discard.token} is already in meld {where[answer.discard] + 1}")
    left = sum(count for count in held.values() if count > 0)
    if answer.discard is None and not rule.go_out and left and not any(problems):
        discard_problem = (f"choose the card to discard: {left} card{'s are' if left != 1 else ' is'} "
                           "left in your hand after your melds")
    return problems, discard_problem
