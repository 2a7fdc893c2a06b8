"""The hasty player: how a quick, careless player lays down, defined in code.

A lay-down puzzle is accepted only when it has a trap: the play a hasty player makes is illegal,
or keeps more points when the turn ends, or the hasty player thinks it cannot lay down when it
can (issue 9, section 3). The hasty player reads the rules loosely (``loose_rules``): any two runs
of one suit are fine, the ace is low or high, any number of wild cards per meld, sets may share a
rank, and a go-out round is an ordinary round. It builds the contract greedily, meld by meld:

- natural cards first, wild cards last (only when no natural meld is there);
- a run: the longest stretch of one suit's natural cards (ties: more points), its costliest
  window of the contract's size where sizes are exact, the whole stretch where they are minimum;
- a set: the rank with the most natural copies (ties: more points);
- then it throws the costliest card left (a natural one if it has any).

Two orders make two hasty players: ``runs-first`` and ``sets-first`` (longest melds first within
each). A puzzle's difficulty counts how many of them fail.

    >>> from analyzer import parse_cards, preset
    >>> hand = parse_cards("6C 7C 8C 9C 10C AD 2D 3D 4D 5D 6D")  # the best play keeps 6♣ 2♦ (8 points)
    >>> play = hasty_play(hand, preset("progressive"), 3, "runs-first")
    >>> [meld.describe() for meld in play.melds], play.discard.token
    (['7♣ 8♣ 9♣ 10♣', 'A♦ 2♦ 3♦ 4♦'], '6D')
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence

from analyzer import Card, ContractMode, MeldKind, MeldSpec, PlacedMeld, Rank, Rules, SameSuitRuns, Suit
from puzzles.model import LayDownAnswer

STRATEGIES = ("runs-first", "sets-first")
LOW_ACE, HIGH_ACE = 1, 14


def loose_rules(rules: Rules) -> Rules:
    """The rules as a hasty player reads them: the subtle limits dropped (see the module)."""
    return dataclasses.replace(
        rules,
        same_suit_runs=SameSuitRuns.FREE,
        ace_low=True,
        ace_high=True,
        max_wilds_per_meld=None,
        wilds_may_outnumber_naturals=True,
        distinct_set_ranks=False,
        discard_to_go_out="optional",
        rounds=tuple(dataclasses.replace(rule, go_out=False) for rule in rules.rounds),
    )


def hasty_play(hand: Sequence[Card], rules: Rules, round_number: int, strategy: str) -> LayDownAnswer:
    """The hasty player's play of ``hand`` after the draw, or ``cannot`` when its greedy search
    finds no lay-down. The play may break the real rules: that is the point."""
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown hasty strategy {strategy!r}; known: {', '.join(STRATEGIES)}")
    contract = rules.round(round_number).contract
    first = MeldKind.RUN if strategy == "runs-first" else MeldKind.SET
    order = sorted(
        contract,
        key=lambda spec: (
            spec.kind != first and not (first == MeldKind.SET and spec.kind == MeldKind.PAIR),
            -spec.size,
        ),
    )
    longer = rules.contract_mode == ContractMode.MINIMUM or rules.round(round_number).go_out
    pool = Counter(hand)
    melds: list[PlacedMeld] = []
    for spec in order:
        meld = (
            _run(pool, spec, rules, longer) if spec.kind == MeldKind.RUN else _set(pool, spec, rules, longer)
        )
        if meld is None:
            return LayDownAnswer(cannot=True)
        pool -= Counter(meld.cards)
        melds.append(meld)
    leftover = sorted(pool.elements(), key=Card.sort_key)
    discard = None
    if leftover and not rules.round(round_number).go_out:
        naturals = [card for card in leftover if not rules.is_wild(card)] or leftover
        discard = max(naturals, key=lambda card: (rules.points_of(card), card.sort_key()))
    return LayDownAnswer(tuple(melds), discard)


def _wilds(pool: Counter[Card], rules: Rules) -> list[Card]:
    return sorted((card for card in pool.elements() if rules.is_wild(card)), key=Card.sort_key, reverse=True)


def _points(cards: Sequence[Card], rules: Rules) -> int:
    return sum(rules.points_of(card) for card in cards)


def _position_card(position: int, suit: Suit) -> Card:
    return Card(Rank.ACE if position in (LOW_ACE, HIGH_ACE) else Rank(position), suit)


_POSITION_CARDS = {suit: {p: _position_card(p, suit) for p in range(LOW_ACE, HIGH_ACE + 1)} for suit in Suit}


def _places_held(pool: Counter[Card]) -> dict[Suit, list[int]]:
    """Each suit's run places (1 to 14, the ace at both ends) the pool holds a card of, rising,
    wild 2s included: read off the pool's cards (a dozen) rather than its 56 places."""
    held: dict[Suit, set[int]] = {suit: set() for suit in Suit}
    for card, count in pool.items():
        if count > 0 and card.suit is not None and card.rank is not None:
            held[card.suit].update((LOW_ACE, HIGH_ACE) if card.rank == Rank.ACE else (int(card.rank),))
    return {suit: sorted(places) for suit, places in held.items()}


def _run(pool: Counter[Card], spec: MeldSpec, rules: Rules, longer: bool) -> PlacedMeld | None:
    """The hasty run: natural stretches first, else the window with the most naturals and wild
    cards in the gaps (jokers last)."""
    by_suit = _places_held(pool)
    best: tuple[tuple[int, int], list[Card]] | None = None
    for suit, present in by_suit.items():
        stretch: list[int] = []
        for position in present + [99]:
            if (
                stretch
                and position == stretch[-1] + 1
                and not (position == HIGH_ACE and stretch[0] == LOW_ACE)
            ):
                stretch.append(position)
                continue
            if len(stretch) >= spec.size:
                cards = [_POSITION_CARDS[suit][p] for p in stretch][: rules.max_run_length]
                if not longer:
                    windows = [cards[i : i + spec.size] for i in range(len(cards) - spec.size + 1)]
                    cards = max(windows, key=lambda window: _points(window, rules))
                key = (len(cards), _points(cards, rules))
                if best is None or key > best[0]:
                    best = (key, cards)
            stretch = [position]
    if best is not None:
        return PlacedMeld(MeldKind.RUN, tuple(best[1]), tuple(best[1]))
    wilds = _wilds(pool, rules)
    window_best: tuple[tuple[int, int], Suit, int] | None = None
    for suit, present in by_suit.items():
        # Place by place: 1 where the suit's card is held, and its points (0 where not held).
        held_at = [0] * (HIGH_ACE + 1)
        points = [0] * (HIGH_ACE + 1)
        for place in present:
            held_at[place], points[place] = 1, rules.points_of(_POSITION_CARDS[suit][place])
        for low in range(LOW_ACE, HIGH_ACE - spec.size + 2):
            held = sum(held_at[low : low + spec.size])
            if held and spec.size - held <= len(wilds):
                key = (held, sum(points[low : low + spec.size]))
                if window_best is None or key > window_best[0]:
                    window_best = (key, suit, low)
    if window_best is None:
        return None
    _, suit, low = window_best
    held_at = set(by_suit[suit])
    cards, meanings = [], []
    for position in range(low, low + spec.size):
        meaning = _POSITION_CARDS[suit][position]
        meanings.append(meaning)
        cards.append(meaning if position in held_at else wilds.pop())
    return PlacedMeld(MeldKind.RUN, tuple(cards), tuple(meanings))


def _set(pool: Counter[Card], spec: MeldSpec, rules: Rules, longer: bool) -> PlacedMeld | None:
    """The hasty set: the rank with the most natural copies, filled up with wild cards."""
    by_rank: dict[Rank, list[Card]] = {}
    for card in sorted(pool.elements(), key=Card.sort_key):
        if not rules.is_wild(card):
            assert card.rank is not None
            by_rank.setdefault(card.rank, []).append(card)
    if not by_rank:
        return None
    rank, cards = max(by_rank.items(), key=lambda item: (len(item[1]), _points(item[1], rules)))
    if len(cards) >= spec.size:
        chosen = cards if longer else cards[: spec.size]
        return PlacedMeld(spec.kind, tuple(chosen), tuple(chosen))
    wilds = _wilds(pool, rules)
    if len(cards) + len(wilds) < spec.size:
        return None
    fill = wilds[: spec.size - len(cards)]
    meaning = Card(rank, Suit.SPADES)
    return PlacedMeld(spec.kind, tuple(cards + fill), tuple(cards) + (meaning,) * len(fill))
