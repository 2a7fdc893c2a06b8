"""Meld geometry, the one home of docs/lay-down.md's meld rules: run places and the ace, the card
at a place, a run's span, the wild cards of a meld and a meld's problems.

The solver, the validator, the simulated table, the puzzles and the web app all read melds
through this module; it imports nothing from the solver. A run's places are 1 (the low ace) to
14 (the high ace), 2..13 the ranks:

>>> from analyzer.cards import parse_cards
>>> from analyzer.rules import preset
>>> card_at(14, Suit.HEARTS).token, card_at(LOW_ACE, Suit.HEARTS).token
('AH', 'AH')
>>> run_places(Card.parse('AH'), preset('progressive')), run_places(Card.parse('AH'), preset('shanghai'))
((1, 14), (14,))
>>> eveleigh = preset('eveleigh')  # 2s are wild, and natural where they stand for themselves
>>> run = PlacedMeld(MeldKind.RUN, parse_cards('2H 2C 4H'), parse_cards('2H 3H 4H'))
>>> run_span(run), [card.token for card in wild_cards(run, eveleigh)]
((2, 4), ['2C'])
>>> meld_problems(PlacedMeld(MeldKind.RUN, parse_cards('QH KH AH 2H'), parse_cards('QH KH AH 2H')), eveleigh)
['QH KH AH 2H is not a run in rising order on consecutive positions (the ace is low or high, a run never turns the corner)']
"""

from __future__ import annotations

from dataclasses import dataclass

from analyzer.cards import Card, Rank, Suit, natural
from analyzer.result import PlacedMeld
from analyzer.rules import MeldKind, Rules

LOW_ACE, HIGH_ACE = 1, 14
DEUCE = 2  # the 2's place

# The rank at each place, 1 (low ace) to 14 (high ace); index 0 unused.
_RANK_AT: tuple[Rank, ...] = (Rank.ACE, *Rank, Rank.ACE)


# ---- places and cards -----------------------------------------------------------------------------


def place_rank(place: int) -> Rank:
    """The rank a run holds at ``place``: the ace at 1 and 14."""
    if not LOW_ACE <= place <= HIGH_ACE:
        raise ValueError(f"no run position {place!r}: they are {LOW_ACE} to {HIGH_ACE}")
    return _RANK_AT[place]


def card_at(place: int, suit: Suit) -> Card:
    """The natural card a run of ``suit`` holds at ``place`` (the ace at 1 and 14)."""
    return natural(place_rank(place), suit)


# Each suit's cards by place (index 0 unused): ``card_at`` for a whole run at once.
RUN_CARDS: dict[Suit, tuple[Card, ...]] = {
    suit: tuple(natural(rank, suit) for rank in _RANK_AT) for suit in Suit}


def card_places(card: Card) -> tuple[int, ...]:
    """The places a natural card could take under some ace rule: an ace low and high, other
    ranks their own."""
    assert card.rank is not None
    return (LOW_ACE, HIGH_ACE) if card.rank == Rank.ACE else (int(card.rank),)


def run_places(card: Card, rules: Rules) -> tuple[int, ...]:
    """The places a natural card can take in a run under ``rules``: an ace low and/or high, other
    ranks their own, where the rules let runs use that place (``Rules.run_positions``)."""
    exist = rules.run_positions()
    return tuple(p for p in card_places(card) if p in exist)


def run_span(meld: PlacedMeld) -> tuple[int, int]:
    """The first and last place of a run, read from what its cards stand for in table order: an
    ace first is low (1) when a 2 follows it, else high (14)."""
    meanings = meld.stands_for
    first = meanings[0].rank
    assert first is not None
    place = int(first)
    if first == Rank.ACE and not (len(meanings) > 1 and meanings[1].rank == Rank.TWO):
        place = HIGH_ACE
    return place, place + len(meanings) - 1


def run_ends(meld: PlacedMeld, rules: Rules) -> tuple[Card | None, Card | None]:
    """The natural cards that would grow a run by one at its low and at its high end: places
    runs may use under ``rules`` (the ace, the 2's place), within ``max_run_length`` (None: that
    end can grow no further).

    >>> from analyzer.cards import parse_cards
    >>> from analyzer.rules import preset
    >>> run = PlacedMeld(MeldKind.RUN, parse_cards('2H 3H 4H 5H'), parse_cards('2H 3H 4H 5H'))
    >>> [end and end.token for end in run_ends(run, preset('progressive'))], run_ends(run, preset('shanghai'))[0]
    (['AH', '6H'], None)
    """
    if len(meld.cards) >= rules.max_run_length:
        return None, None
    first, last = run_span(meld)
    suit = meld.stands_for[0].suit
    assert suit is not None
    places = rules.run_positions()
    below = card_at(first - 1, suit) if first - 1 in places else None
    above = card_at(last + 1, suit) if last + 1 in places else None
    return below, above


# ---- wild cards ----------------------------------------------------------------------------------


def counts_as_wild(card: Card, meaning: Card, kind: MeldKind, rules: Rules) -> bool:
    """Whether ``card``, standing for ``meaning`` in a meld of ``kind``, is one of its wild cards.
    A wild 2 standing for itself (the 2 of its own suit in a run, a 2 in a set of 2s) counts as a
    natural card, unless 2s are always wild."""
    if not rules.is_wild(card):
        return False
    if card.is_joker or rules.deuces_always_wild:
        return True
    return meaning != card if kind == MeldKind.RUN else meaning.rank != Rank.TWO


def wild_cards(meld: PlacedMeld, rules: Rules) -> tuple[Card, ...]:
    """The meld's wild cards, in table order (``counts_as_wild``)."""
    return tuple(card for card, meaning in zip(meld.cards, meld.stands_for)
                 if counts_as_wild(card, meaning, meld.kind, rules))


def wild_limit_problems(wilds: int, naturals: int, rules: Rules) -> list[str]:
    """How a meld of ``wilds`` wild and ``naturals`` natural cards breaks the rule set's wild
    limits: at most ``max_wilds_per_meld``, and no more than its naturals where they may not
    outnumber them."""
    problems = []
    if rules.max_wilds_per_meld is not None and wilds > rules.max_wilds_per_meld:
        problems.append(f"{wilds} wild cards, at most {rules.max_wilds_per_meld} allowed per meld")
    if not rules.wilds_may_outnumber_naturals and wilds > naturals:
        problems.append(f"{wilds} wild cards outnumber its {naturals} natural cards")
    return problems


def within_wild_limits(meld: PlacedMeld, rules: Rules) -> bool:
    """Whether the meld keeps the rule set's wild limits (``wild_limit_problems``)."""
    if rules.max_wilds_per_meld is None and rules.wilds_may_outnumber_naturals:
        return True
    wilds = len(wild_cards(meld, rules))
    return not wild_limit_problems(wilds, len(meld.cards) - wilds, rules)


# ---- a meld's problems ---------------------------------------------------------------------------


@dataclass(frozen=True)
class MeldShape:
    """What a valid meld turned out to be: a set's rank, or a run's suit and span."""

    kind: MeldKind
    rank: Rank | None = None  # sets and pairs
    suit: Suit | None = None  # runs
    low: int = 0  # runs: first and last place, 1 (low ace) .. 14 (high ace)
    high: int = 0


def meld_problems(meld: PlacedMeld, rules: Rules) -> list[str]:
    """Every way one meld on its own breaks the rules, as sentences; [] when it is a meld."""
    return check_meld(meld, rules)[0]


def check_meld(meld: PlacedMeld, rules: Rules) -> tuple[list[str], MeldShape | None]:
    """Problems of one meld on its own, and its shape when it has one: each natural stands for
    itself and each wild card for a natural card, a set's (or pair's) cards for one rank, a
    run's for consecutive existing places of one suit, within the wild limits."""
    if len(meld.stands_for) != len(meld.cards):
        return [f"{len(meld.cards)} cards but {len(meld.stands_for)} meanings"], None
    if not meld.cards:
        return ["a meld with no cards"], None

    problems = []
    for card, meaning in zip(meld.cards, meld.stands_for):
        if meaning.is_joker:
            problems.append(f"{card.token} stands for a joker; a card can only stand for a natural card")
        elif not rules.is_wild(card) and meaning != card:
            problems.append(f"{card.token} is not wild, so it cannot stand for {meaning.token}")
    if problems:
        return problems, None

    shape, problems = _set_shape(meld) if meld.kind in (MeldKind.SET, MeldKind.PAIR) else _run_shape(meld, rules)
    if shape is None:
        return problems, None
    wilds = len(wild_cards(meld, rules))
    return problems + wild_limit_problems(wilds, len(meld.cards) - wilds, rules), shape


def _set_shape(meld: PlacedMeld) -> tuple[MeldShape | None, list[str]]:
    """A set or pair: every card stands for the same rank (suits are free)."""
    ranks = {meaning.rank for meaning in meld.stands_for}
    if len(ranks) != 1:
        return None, [f"a {meld.kind.value} needs one rank, not {len(ranks)}"]
    return MeldShape(meld.kind, rank=ranks.pop()), []


def _run_shape(meld: PlacedMeld, rules: Rules) -> tuple[MeldShape | None, list[str]]:
    """A run: one suit, and the meanings, in table order, fill consecutive existing places."""
    suits = {meaning.suit for meaning in meld.stands_for}
    if len(suits) != 1:
        return None, [f"a run needs one suit, not {len(suits)}"]
    suit = suits.pop()
    assert suit is not None  # meanings are never jokers here
    length = len(meld.cards)
    if length > rules.max_run_length:
        return None, [f"a run of {length} is longer than the {rules.max_run_length} allowed"]

    lowest = LOW_ACE if rules.ace_low else LOW_ACE + 1
    highest = HIGH_ACE if rules.ace_high else HIGH_ACE - 1
    for low in range(lowest, highest - length + 2):
        wanted = tuple(RUN_CARDS[suit][low + offset] for offset in range(length))
        if wanted == meld.stands_for:
            if not rules.two_position_in_runs and low <= DEUCE:
                problem = ("the run uses the 2's place, but runs go from 3 up to the ace here "
                           "(two_position_in_runs is false)")
                return None, [problem]
            return MeldShape(MeldKind.RUN, suit=suit, low=low, high=low + length - 1), []
    ace = ("low or high" if rules.ace_low and rules.ace_high else "low only" if rules.ace_low else "high only")
    shown = " ".join(card.token for card in meld.stands_for)
    problem = (f"{shown} is not a run in rising order on consecutive positions "
               f"(the ace is {ace}, a run never turns the corner)")
    return None, [problem]
