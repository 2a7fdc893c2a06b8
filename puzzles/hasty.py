"""The hasty player: how a quick, careless player lays down, defined in code.

A lay-down puzzle is accepted only when it has a trap: the play a hasty player makes is illegal,
or keeps more points when the turn ends, or the hasty player thinks it cannot lay down when it
can. The hasty player reads the rules loosely (``loose_rules``): any two runs
of one suit are fine, the ace is low or high, any number of wild cards per meld, sets may share a
rank, and a go-out round is an ordinary round. It builds the contract greedily, meld by meld:

- natural cards first, wild cards last (only when no natural meld is there);
- a run: the longest stretch of one suit's natural cards (ties: more points), its costliest
  window of the contract's size where sizes are exact, the whole stretch where they are minimum;
- a set: the rank with the most natural copies (ties: more points);
- then it throws the costliest card left (a natural one if it has any).

Two orders make two hasty players: ``runs-first`` and ``sets-first`` (longest melds first within
each). A puzzle's difficulty counts how many of them fail.

The **greedy player** (``greedy_play``) builds the same way but follows the rules: a run only
where the ace may stand and the same-suit rule allows it beside the runs already built, no more
wild cards in a meld than allowed, a wild 2 never counted twice, no two sets of a rank where that
is forbidden; of its two orders it plays the legal play keeping fewer points (the validator
decides legal), else it says it cannot. ``puzzles stats`` prints the share of each lay-down
shard it solves: the puzzles a plain, careful player gets right without seeing the trap. Since
generator puzzles-8 it is the third of the players a lay-down puzzle is tried on (``PLAYERS``,
``plays``): a puzzle it gets wrong counts one more failure, and rates higher.

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

from analyzer import (
    HIGH_ACE,
    LOW_ACE,
    Card,
    ContractMode,
    DiscardToGoOut,
    MeldKind,
    MeldSpec,
    PlacedMeld,
    Rank,
    Rules,
    SameSuitRuns,
    Suit,
    card_at,
    card_places,
    run_span,
    wild_cards,
)
from puzzles.model import LayDownAnswer

STRATEGIES = ("runs-first", "sets-first")
GREEDY = "greedy"  # the rule-aware greedy player, tried after the hasty ones
PLAYERS = (*STRATEGIES, GREEDY)  # every player a lay-down puzzle is tried on, in order
NO_READING = "that play breaks a rule of this game"  # ``mistake`` of a play none of its readings explain


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
        discard_to_go_out=DiscardToGoOut.OPTIONAL,
        rounds=tuple(dataclasses.replace(rule, go_out=False) for rule in rules.rounds),
    )


def hasty_play(hand: Sequence[Card], rules: Rules, round_number: int, strategy: str) -> LayDownAnswer:
    """The hasty player's play of ``hand`` after the draw, or ``cannot`` when its greedy search
    finds no lay-down. The play may break the real rules: that is the point."""
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown hasty strategy {strategy!r}; known: {', '.join(STRATEGIES)}")
    return _build(hand, rules, round_number, strategy, aware=False)


def plays(hand: Sequence[Card], rules: Rules, round_number: int) -> dict[str, LayDownAnswer]:
    """The play of each of ``PLAYERS``: the two hasty players', then the greedy player's."""
    found = {strategy: hasty_play(hand, rules, round_number, strategy) for strategy in STRATEGIES}
    found[GREEDY] = greedy_play(hand, rules, round_number)
    return found


def greedy_play(hand: Sequence[Card], rules: Rules, round_number: int) -> LayDownAnswer:
    """The rule-aware greedy player's play of ``hand`` after the draw (see the module): always
    legal, or ``cannot``.

        >>> from analyzer import parse_cards, preset
        >>> hand = parse_cards("AD 2D 3D 4D 5C 5D 5S KH 9C")
        >>> greedy_play(hand, preset("kolsov"), 2).cannot  # the ace is high only: no run of 4
        True
        >>> play = greedy_play(hand, preset("progressive"), 2)
        >>> [meld.describe() for meld in play.melds], play.discard.token
        (['A♦ 2♦ 3♦ 4♦', '5♣ 5♦ 5♠'], 'KH')
    """
    from puzzles.check import play_problems  # the validator's reading of a turn (imports this module's kin)

    best: tuple[int, LayDownAnswer] | None = None
    for strategy in STRATEGIES:
        play = _build(hand, rules, round_number, strategy, aware=True)
        if play.cannot:
            continue
        _, points = play_problems(hand, rules, round_number, play)
        if points is not None and (best is None or points < best[0]):
            best = (points, play)
    return LayDownAnswer(cannot=True) if best is None else best[1]


def _build(hand: Sequence[Card], rules: Rules, round_number: int, strategy: str, *, aware: bool) -> LayDownAnswer:
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
            _run(pool, spec, rules, longer, melds if aware else None)
            if spec.kind == MeldKind.RUN
            else _set(pool, spec, rules, longer, melds if aware else None)
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


_POSITION_CARDS = {suit: {p: card_at(p, suit) for p in range(LOW_ACE, HIGH_ACE + 1)} for suit in Suit}


def _places_held(pool: Counter[Card], rules: Rules | None = None) -> dict[Suit, list[int]]:
    """Each suit's run places (1 to 14, the ace at both ends) the pool holds a card of, rising,
    wild 2s included: read off the pool's cards (a dozen) rather than its 56 places. With
    ``rules`` (the greedy player), only the ace's places the rules allow."""
    held: dict[Suit, set[int]] = {suit: set() for suit in Suit}
    for card, count in pool.items():
        if count > 0 and card.suit is not None and card.rank is not None:
            held[card.suit].update(card_places(card))
    if rules is not None:
        for places in held.values():
            if not rules.ace_low:
                places.discard(LOW_ACE)
            if not rules.ace_high:
                places.discard(HIGH_ACE)
    return {suit: sorted(places) for suit, places in held.items()}


def _wilds_allowed(rules: Rules, naturals: int) -> int:
    """The most wild cards a meld with ``naturals`` natural cards may take (the greedy player)."""
    most = 99 if rules.max_wilds_per_meld is None else rules.max_wilds_per_meld
    return most if rules.wilds_may_outnumber_naturals else min(most, naturals)


def _suit_allows(suit: Suit, low: int, high: int, built: Sequence[PlacedMeld], rules: Rules) -> bool:
    """Whether a run of ``suit`` over places ``low``-``high`` may stand beside the runs already
    ``built`` under the same-suit rule (the greedy player)."""
    for meld in built:
        if meld.kind != MeldKind.RUN or meld.stands_for[0].suit != suit:
            continue
        low2, high2 = run_span(meld)
        gap = max(low2 - high, low - high2) - 1  # ranks missing between them (< 0: overlap)
        policy = rules.same_suit_runs
        needed = policy.missing_ranks_between
        if (
            policy == SameSuitRuns.DISTINCT_SUITS
            or (policy == SameSuitRuns.NO_TOUCH and gap == 0)
            or (needed is not None and gap < needed)
        ):
            return False
    return True


def _run(
    pool: Counter[Card], spec: MeldSpec, rules: Rules, longer: bool, built: Sequence[PlacedMeld] | None = None
) -> PlacedMeld | None:
    """The hasty run: natural stretches first, else the window with the most naturals and wild
    cards in the gaps (jokers last). With ``built`` (the greedy player: the melds built so far),
    only runs the rules allow, a wild card never in a gap and at a place at once."""
    aware = built is not None
    by_suit = _places_held(pool, rules if aware else None)
    natural = _natural_run(by_suit, spec, rules, longer, built)
    if natural is not None:
        return PlacedMeld(MeldKind.RUN, tuple(natural), tuple(natural))
    wilds = _wilds(pool, rules)
    if aware:
        # A wild card fills gaps only: the places held are the natural cards'.
        by_suit = _places_held(Counter({c: n for c, n in pool.items() if not rules.is_wild(c)}), rules)
    if not wilds and spec.size < HIGH_ACE:
        # Without wild cards a window below needs every place held: a natural stretch at least
        # that long, which ``_natural_run`` takes (it splits a stretch only between the two
        # aces' places, which no window shorter than 14 holds both of).
        return None
    window_best: tuple[tuple[int, int], Suit, int] | None = None
    for suit, present in by_suit.items():
        # Place by place: 1 where the suit's card is held, and its points (0 where not held).
        held_at = [0] * (HIGH_ACE + 1)
        points = [0] * (HIGH_ACE + 1)
        for place in present:
            held_at[place], points[place] = 1, rules.points_of(_POSITION_CARDS[suit][place])
        for low in range(LOW_ACE, HIGH_ACE - spec.size + 2):
            held = sum(held_at[low : low + spec.size])
            if aware and (
                spec.size - held > _wilds_allowed(rules, held)
                or (not rules.ace_low and low == LOW_ACE)
                or (not rules.ace_high and low + spec.size - 1 == HIGH_ACE)
                or not _suit_allows(suit, low, low + spec.size - 1, built or (), rules)
            ):
                continue
            if held and spec.size - held <= len(wilds):
                key = (held, sum(points[low : low + spec.size]))
                if window_best is None or key > window_best[0]:
                    window_best = (key, suit, low)
    if window_best is None:
        return None
    _, suit, low = window_best
    held_places = set(by_suit[suit])
    cards, meanings = [], []
    for position in range(low, low + spec.size):
        meaning = _POSITION_CARDS[suit][position]
        meanings.append(meaning)
        cards.append(meaning if position in held_places else wilds.pop())
    return PlacedMeld(MeldKind.RUN, tuple(cards), tuple(meanings))


def _natural_run(
    by_suit: dict[Suit, list[int]], spec: MeldSpec, rules: Rules, longer: bool,
    built: Sequence[PlacedMeld] | None = None,
) -> list[Card] | None:
    """The longest, then costliest, run of natural cards the places held give (the whole stretch
    up to the longest run allowed when ``longer``, else its costliest window of the contract's
    size); None when no stretch is long enough. With ``built`` (the greedy player), only windows
    the same-suit rule allows beside the runs built."""
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
                places = stretch[: rules.max_run_length]
                if built is None:
                    cards = [_POSITION_CARDS[suit][p] for p in places]
                    if not longer:
                        windows = [cards[i : i + spec.size] for i in range(len(cards) - spec.size + 1)]
                        cards = max(windows, key=lambda window: _points(window, rules))
                else:
                    sizes = range(len(places), spec.size - 1, -1) if longer else (spec.size,)
                    allowed = [
                        [_POSITION_CARDS[suit][p] for p in places[i : i + size]]
                        for size in sizes
                        for i in range(len(places) - size + 1)
                        if _suit_allows(suit, places[i], places[i + size - 1], built, rules)
                    ]
                    if not allowed:
                        stretch = [position]
                        continue
                    cards = max(allowed, key=lambda window: (len(window), _points(window, rules)))
                key = (len(cards), _points(cards, rules))
                if best is None or key > best[0]:
                    best = (key, cards)
            stretch = [position]
    return None if best is None else best[1]


def _set(
    pool: Counter[Card], spec: MeldSpec, rules: Rules, longer: bool, built: Sequence[PlacedMeld] | None = None
) -> PlacedMeld | None:
    """The hasty set: the rank with the most natural copies, filled up with wild cards. With
    ``built`` (the greedy player), no rank a set already has where ranks must differ, and no more
    wild cards than a meld may take."""
    taken = (
        {meld.stands_for[0].rank for meld in built if meld.kind != MeldKind.RUN}
        if built is not None and rules.distinct_set_ranks
        else set()
    )
    by_rank: dict[Rank, list[Card]] = {}
    for card in sorted(pool.elements(), key=Card.sort_key):
        if not rules.is_wild(card) and card.rank not in taken:
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
    if built is not None and spec.size - len(cards) > _wilds_allowed(rules, len(cards)):
        return None
    fill = wilds[: spec.size - len(cards)]
    meaning = Card(rank, Suit.SPADES)
    return PlacedMeld(spec.kind, tuple(cards + fill), tuple(cards) + (meaning,) * len(fill))


# ---- what went wrong, in a card player's words --------------------------------------------------


def mistake(hand: Sequence[Card], rules: Rules, round_number: int, play: LayDownAnswer) -> str:
    """Why a hasty ``play`` of ``hand`` is not a legal turn, as a card player would put it: each
    of the loose readings of the rules the play relies on (see the module), and a wild 2 the
    greedy builder counted twice, once as itself and once in a gap. The validator
    (``puzzles.check.play_problems``) decides that a play is illegal; this only says why in
    words a player knows.

        >>> from analyzer import parse_cards, preset
        >>> hand = parse_cards("AD 2D 3D 4D 5C 5D 5S KH 9C")
        >>> play = hasty_play(hand, preset("kolsov"), 2, "sets-first")
        >>> [meld.describe() for meld in play.melds]
        ['5♣ 5♦ 5♠', 'A♦ 2♦ 3♦ 4♦']
        >>> mistake(hand, preset("kolsov"), 2, play)
        'the ace is high only in these rules (Q K A, never A 2 3)'
    """
    said = [reason for check in _READINGS if (reason := check(hand, rules, round_number, play))]
    return "; ".join(said) or NO_READING


def _doubled(hand: Sequence[Card], rules: Rules, round_number: int, play: LayDownAnswer) -> str:
    used = Counter(card for meld in play.melds for card in meld.cards)
    if play.discard is not None:
        used[play.discard] += 1
    said = []
    for card in dict.fromkeys(sorted((used - Counter(hand)).elements(), key=Card.sort_key)):
        held = Counter(hand)[card]
        if rules.is_wild(card) and held:
            said.append(
                f"they count the {card.face} twice, as itself and as a wild card, and hold only {_count(held)}"
            )
        else:
            said.append(f"they play a {card.face} they do not hold")
    return "; ".join(said)


def _count(number: int) -> str:
    return {0: "none", 1: "one", 2: "two", 3: "three"}.get(number, str(number))


def _too_many_wilds(hand: Sequence[Card], rules: Rules, round_number: int, play: LayDownAnswer) -> str:
    said = []
    for meld in play.melds:
        wilds = len(wild_cards(meld, rules))  # as the validator counts them
        most = rules.max_wilds_per_meld
        if most is not None and wilds > most:
            said.append(f"they put {_count(wilds)} wild cards in {meld.describe()}, where a meld takes "
                        f"{'none' if most == 0 else f'{_count(most)} at most'}")
        elif not rules.wilds_may_outnumber_naturals and wilds > len(meld.cards) - wilds:
            said.append(f"{meld.describe()} has more wild cards than natural ones, which these rules forbid")
    return "; ".join(said)


def _ace(hand: Sequence[Card], rules: Rules, round_number: int, play: LayDownAnswer) -> str:
    places = {place for meld in play.melds if meld.kind == MeldKind.RUN for place in meld.run_places()}
    if LOW_ACE in places and not rules.ace_low:
        return "the ace is high only in these rules (Q K A, never A 2 3)"
    if HIGH_ACE in places and not rules.ace_high:
        return "the ace is low only in these rules (A 2 3, never Q K A)"
    return ""


def _same_suit_runs(hand: Sequence[Card], rules: Rules, round_number: int, play: LayDownAnswer) -> str:
    runs = [meld for meld in play.melds if meld.kind == MeldKind.RUN]
    for index, first in enumerate(runs):
        for second in runs[index + 1:]:
            if first.stands_for[0].suit != second.stands_for[0].suit:
                continue
            (low, high), (low2, high2) = run_span(first), run_span(second)
            gap = max(low2 - high, low - high2) - 1  # ranks missing between them (< 0: overlap)
            both = f"{first.describe()} and {second.describe()}"
            policy = rules.same_suit_runs
            if policy == SameSuitRuns.DISTINCT_SUITS:
                return f"{both} are two runs of one suit, and here every run needs a suit of its own"
            if policy == SameSuitRuns.NO_TOUCH and gap == 0:
                return (f"{both} touch end to end, and here two runs of one suit may not: "
                        "they would read as one")
            needed = policy.missing_ranks_between
            if needed is not None and gap < needed:
                return (f"{both} are two runs of one suit too close together: here at least {_count(needed)} "
                        f"rank{'s' * (needed != 1)} must be missing between them")
    return ""


def _two_sets_of_a_rank(hand: Sequence[Card], rules: Rules, round_number: int, play: LayDownAnswer) -> str:
    if not rules.distinct_set_ranks:
        return ""
    ranks = Counter(meld.stands_for[0].rank for meld in play.melds if meld.kind != MeldKind.RUN)
    twice = [rank for rank, count in ranks.items() if count > 1 and rank is not None]
    if not twice:
        return ""
    return f"they lay two sets of one rank ({twice[0].token}), and here no two sets may share a rank"


def _turn_end(hand: Sequence[Card], rules: Rules, round_number: int, play: LayDownAnswer) -> str:
    melded = Counter(card for meld in play.melds for card in meld.cards)
    left = sorted((Counter(hand) - melded).elements(), key=Card.sort_key)
    if rules.round(round_number).go_out:
        if not left:
            return ""
        return (f"they leave {' '.join(card.face for card in left)} out, and round {round_number} is a go-out "
                "round, where every card must be melded")
    kept = list(left)
    if play.discard in kept:
        kept.remove(play.discard)
    if play.discard is None and not left and rules.discard_to_go_out == DiscardToGoOut.REQUIRED:
        return "they meld every card, and going out needs a last discard in these rules"
    if play.discard is not None and not kept and rules.discard_to_go_out == DiscardToGoOut.NEVER:
        return "they would go out by discarding their last card, which these rules do not allow"
    return ""


_READINGS = (_doubled, _turn_end, _ace, _too_many_wilds, _same_suit_runs, _two_sets_of_a_rank)
