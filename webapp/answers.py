"""A submitted answer read from the puzzle page's form and scored against the puzzle.

The forms (which work without JavaScript; the page's script only fills them in):

- ``discard``: ``card`` is the token of the card thrown;
- ``buy``: ``choice`` is ``buy`` or ``pass``;
- ``lay-down``: ``cannot`` (any value) says it cannot be done; otherwise ``meld-0``, ``meld-1``, ...
  hold one meld of the contract each, in the contract's order, as card tokens in table order
  (``4H 5H JK 7H``), and ``discard`` the card thrown (empty: none, going out by melding all).

A wild card stands for what its place says: in a run, the card of its position (``4H 5H JK 7H``:
the joker is the 6♥); in a set, the set's rank. ``JK=3H`` says it outright where the place does not
(a joker at either end of a run). When the written order fails, the naturals sorted with the wild
cards in the gaps (then at the top, then at the bottom) are tried too: any equivalent legal play
is right, as the validator judges it (``puzzles.check``).

Input that is not an answer (a card not in the hand, a card used twice, an unknown token, a meld
row for a meld the contract does not have) raises ``AnswerError``: the route answers 400 and
records nothing. A legal-looking but wrong play is an answer, and is recorded as wrong.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from analyzer import HIGH_ACE, LOW_ACE, Card, MeldKind, PlacedMeld, Rank, Rules, Suit, card_at, preset
from puzzles.check import check_answer, check_lay_down
from puzzles.model import BUY, PASS, LayDownAnswer, Puzzle

MAX_FIELD = 200  # characters in one meld row: 20 cards with room to spare


class AnswerError(ValueError):
    """A submission that is not an answer to this puzzle; the message says what is wrong."""


@dataclass(frozen=True)
class Scored:
    """An answer read and scored: right or not, what was answered (JSON, as stored with the
    attempt), and for a lay-down the play as the validator read it and why it is illegal."""

    right: bool
    answer: dict[str, Any]
    play: LayDownAnswer | None = None
    problems: tuple[str, ...] = ()
    points: int | None = None  # a legal lay-down's points kept at the end of the turn

    def to_dict(self) -> dict[str, Any]:
        return {"right": self.right, "answer": self.answer, "problems": list(self.problems), "points": self.points,
                "play": None if self.play is None else self.play.to_dict()}


def score(puzzle: Puzzle, form: Mapping[str, str]) -> Scored:
    """Read ``form`` as an answer to ``puzzle`` and score it; ``AnswerError`` when it is not one."""
    if puzzle.kind == "discard":
        token = _one_card(form.get("card", ""), "the card to discard")
        if token not in {card.token for card in puzzle.hand}:
            raise AnswerError(f"the {token} is not in your hand")
        return Scored(check_answer(puzzle, token), {"discard": token})
    if puzzle.kind == "buy":
        choice = form.get("choice", "").strip().lower()
        if choice not in (BUY, PASS):
            raise AnswerError("answer Buy or Pass")
        return Scored(check_answer(puzzle, choice), {"choice": choice})
    return _score_lay_down(puzzle, form)


def contract_rows(puzzle: Puzzle) -> list[str]:
    """The meld rows of a lay-down puzzle's form, one per meld of the contract: ``set of 3``."""
    return [spec.describe() for spec in preset(puzzle.rules).round(puzzle.round).contract]


# ---- lay-down ------------------------------------------------------------------------------------


def _score_lay_down(puzzle: Puzzle, form: Mapping[str, str]) -> Scored:
    if form.get("cannot"):
        verdict = check_lay_down(puzzle, LayDownAnswer(cannot=True))
        return Scored(verdict.right, {"cannot": True}, LayDownAnswer(cannot=True))
    rules = preset(puzzle.rules)
    contract = rules.round(puzzle.round).contract
    extra = sorted(key for key in form if key.startswith("meld-") and key.removeprefix("meld-") not in
                   {str(index) for index in range(len(contract))})
    if extra:
        raise AnswerError(f"the contract has {len(contract)} melds: there is no {extra[0]}")
    rows: list[list[tuple[Card, Card | None]]] = []
    for index in range(len(contract)):
        text = form.get(f"meld-{index}", "")
        if len(text) > MAX_FIELD:
            raise AnswerError(f"meld {index + 1} is longer than any meld")
        rows.append([_meld_card(token, rules, index) for token in text.replace(",", " ").split()])
    discard_text = form.get("discard", "").strip()
    discard = Card.parse(_one_card(discard_text, "the discard")) if discard_text else None
    used = Counter(card for row in rows for card, _ in row) + Counter([discard] if discard else [])
    held = Counter(puzzle.hand)
    for card, count in used.items():
        if count > held[card]:
            have = held[card]
            raise AnswerError(f"the {card.token} is not in your hand" if not have else
                              f"the {card.token} is used {count} times but your hand has {have}")
    answer = {"melds": [" ".join(_written(card, meaning) for card, meaning in row) for row in rows],
              "discard": None if discard is None else discard.token}
    if not any(rows):
        raise AnswerError("put the cards of each meld in its row, or press “It can't be done”")
    best: Scored | None = None
    kinds = list(dict.fromkeys(spec.kind for spec in contract))
    for melds in itertools.product(*(_row_readings(row, spec.kind, kinds, rules) for row, spec in zip(rows, contract))):
        play = LayDownAnswer(tuple(melds), discard)
        verdict = check_lay_down(puzzle, play)
        scored = Scored(verdict.right, answer, play, verdict.problems, verdict.points)
        if verdict.right:
            return scored
        if best is None or (best.points is None and verdict.points is not None):
            best = scored
    assert best is not None
    return best


def _row_readings(row: list[tuple[Card, Card | None]], kind: MeldKind, kinds: list[MeldKind],
                  rules: Rules) -> list[PlacedMeld]:
    """The readings of a row as the meld its place in the contract names, then as any other kind
    the contract has (a player may fill the rows in another order), skipping kinds its natural
    cards rule out (two ranks: not a set; two suits or a rank twice: not a run)."""
    naturals = [meaning or card for card, meaning in row if meaning is not None or not rules.is_wild(card)]
    ranks = {card.rank for card in naturals}
    suits = {card.suit for card in naturals}
    readings = []
    for candidate in [kind, *(other for other in kinds if other != kind)]:
        if candidate != MeldKind.RUN and len(ranks) > 1 and candidate != kind:
            continue
        if candidate == MeldKind.RUN and (len(suits) > 1 or len(ranks) < len(naturals)) and candidate != kind:
            continue
        readings += _readings(row, candidate, rules)
    return readings


def _meld_card(token: str, rules: Rules, row: int) -> tuple[Card, Card | None]:
    """``7H`` or ``JK=3H`` (a wild card and what it stands for)."""
    written, _, meaning = token.partition("=")
    card = Card.parse(_one_card(written, f"meld {row + 1}"))
    if not meaning:
        return card, None
    if not rules.is_wild(card):
        raise AnswerError(f"meld {row + 1}: only a wild card stands for another ({token!r})")
    stands = Card.parse(_one_card(meaning, f"meld {row + 1}"))
    if stands.is_joker:
        raise AnswerError(f"meld {row + 1}: a wild card stands for a card with a rank and suit ({token!r})")
    return card, stands


def _one_card(text: str, what: str) -> str:
    try:
        return Card.parse(text.strip()).token
    except ValueError:
        shown = text.strip()[:20]
        raise AnswerError(f"{what}: {shown!r} is not a card (write 7H, 10S, QD, JK)") from None


def _written(card: Card, meaning: Card | None) -> str:
    return card.token if meaning is None else f"{card.token}={meaning.token}"


def _readings(row: list[tuple[Card, Card | None]], kind: MeldKind, rules: Rules) -> list[PlacedMeld]:
    """The ways to read a meld row, most literal first (at least one, which the validator may
    then reject)."""
    cards = tuple(card for card, _ in row)
    wild = [rules.is_wild(card) and meaning is None for card, meaning in row]
    explicit = [meaning if meaning is not None else card for card, meaning in row]
    literal = PlacedMeld(kind, cards, tuple(explicit))
    if not cards or (kind != MeldKind.RUN and not any(wild)):
        return [literal]
    naturals = [meaning or card for (card, meaning), w in zip(row, wild) if not w]
    if kind != MeldKind.RUN:
        if not naturals:
            return [PlacedMeld(kind, cards, tuple(explicit))]
        rank = naturals[0].rank
        taken = [card.suit for card in naturals]
        spare = [suit for suit in sorted(Suit, key=lambda suit: suit.index) if suit not in taken]
        spare = spare or [naturals[0].suit]  # type: ignore[list-item]  # a natural has a suit
        meanings, index = [], 0
        for (card, meaning), w in zip(row, wild):
            if w:
                meanings.append(Card(rank, spare[index % len(spare)]))
                index += 1
            else:
                meanings.append(meaning or card)
        return [PlacedMeld(kind, cards, tuple(meanings))]
    readings = [] if any(wild) else [literal]
    # as written: each place is one step on from the place before it
    first = next(i for i, w in enumerate(wild) if not w) if naturals else None
    if first is not None:
        anchor = explicit[first]
        for ace_high in (False, True):
            start = _value(anchor, ace_high) - first
            meanings = [explicit[i] if not wild[i] else _card_at(start + i, anchor) for i in range(len(row))]  # type: ignore[misc]  # None: no such place, checked next
            if all(m is not None for m in meanings):
                readings.append(PlacedMeld(kind, cards, tuple(m for m in meanings if m is not None)))
        # sorted: the naturals in rank order, wild cards in the gaps, the rest above and below
        for ace_high in (False, True):
            for reading in _sorted_runs(row, wild, explicit, ace_high):
                if reading not in readings:
                    readings.append(reading)
    return readings or [literal]


def _sorted_runs(row: list[tuple[Card, Card | None]], wild: list[bool], explicit: list[Card],
                 ace_high: bool) -> list[PlacedMeld]:
    """The run of the row's naturals in rank order with its wild cards filling the gaps, the
    wild cards left over split every way between the top and the bottom."""
    ordered = sorted(((explicit[i], row[i][0]) for i in range(len(row)) if not wild[i]),
                     key=lambda pair: _value(pair[0], ace_high))
    wilds = [row[i][0] for i in range(len(row)) if wild[i]]
    middle: list[tuple[Card, Card | None]] = []
    for position, (meaning, card) in enumerate(ordered):
        if position:
            before = _value(ordered[position - 1][0], ace_high)
            for value in range(before + 1, _value(meaning, ace_high)):
                if not wilds:
                    break
                middle.append((wilds.pop(0), _card_at(value, meaning)))
        middle.append((card, meaning))
    readings = []
    low, high = _value(ordered[0][0], ace_high), _value(ordered[-1][0], ace_high)
    for above in range(len(wilds), -1, -1):
        below = len(wilds) - above
        placed = ([(wilds[above + i], _card_at(low - below + i, ordered[0][0])) for i in range(below)] + middle
                  + [(wilds[i], _card_at(high + 1 + i, ordered[-1][0])) for i in range(above)])
        if all(meaning is not None for _, meaning in placed):
            readings.append(PlacedMeld(MeldKind.RUN, tuple(card for card, _ in placed),
                                       tuple(meaning for _, meaning in placed if meaning is not None)))
    return readings


def _value(card: Card, ace_high: bool) -> int:
    assert card.rank is not None
    return 14 if ace_high and card.rank == Rank.ACE else int(card.rank)


def _card_at(value: int, like: Card) -> Card | None:
    """The card of run position ``value`` (1 and 14 are the ace) in ``like``'s suit."""
    if not LOW_ACE <= value <= HIGH_ACE or like.suit is None:
        return None
    return card_at(value, like.suit)
