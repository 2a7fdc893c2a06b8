"""A brute-force reference for small hands, independent of the solver and of the validator.

``reference_best`` lists, for every meld of the contract, every legal way to make it out of
the hand's cards (every set rank, every run window, every choice of which cards fill it), then
tries every combination of those melds that uses no card twice. Nothing here is clever, so a
disagreement with the CP-SAT solver points at the solver. It is meant for hands of about ten
cards and contracts of up to three melds.

``reference_cards_away`` adds every multiset of 0, 1, 2, ... extra cards the deck allows and
asks the same question again. ``reference_lay_downs`` shows the lay-downs themselves, as
``PlacedMeld``s, so that tests can hold the validator to them too.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Iterator

from analyzer.cards import ALL_CARD_KINDS, Card, Rank, Suit
from analyzer.hand import deck_copies
from analyzer.result import PlacedMeld
from analyzer.rules import ContractMode, DeckRule, MeldKind, MeldSpec, Rules, SameSuitRuns

# A meld's meaning: ("set", rank) for sets and pairs, ("run", suit, first, last position).
Meaning = tuple[object, ...]
# One way to make a contract meld: the cards it uses and what it means.
Candidate = tuple[Counter[Card], Meaning]
_KIND_INDEX = {card: index for index, card in enumerate(ALL_CARD_KINDS)}


def reference_best(hand: Iterable[Card], rules: Rules, round_number: int, min_leftover: int = 0) -> int | None:
    """Fewest leftover points over all legal lay-downs of the round's contract, None if none.
    ``min_leftover``: only lay-downs that leave at least this many cards in hand."""
    points = [sum(rules.points_of(card) for card in leftover.elements())
              for _, leftover in _lay_downs(Counter(hand), rules, round_number, {}, min_leftover=min_leftover)]
    return min(points, default=None)


def reference_lay_downs(
    hand: Iterable[Card], rules: Rules, round_number: int
) -> Iterator[tuple[tuple[PlacedMeld, ...], tuple[Card, ...]]]:
    """Every legal lay-down (melds and leftover), some more than once."""
    for chosen, leftover in _lay_downs(Counter(hand), rules, round_number, {}):
        melds = tuple(_placed(used, meaning, rules, kind) for (used, meaning), kind in chosen)
        yield melds, tuple(sorted(leftover.elements(), key=Card.sort_key))


def reference_cards_away(
    hand: Iterable[Card], rules: Rules, round_number: int, deck: DeckRule, max_extra: int = 3,
    min_leftover: int = 0,
) -> int | None:
    """Fewest extra cards (naturals or jokers, within the deck) that allow a legal lay-down.

    None when even ``max_extra`` extra cards do not. Every multiset of up to two extras takes
    well under a second on hands of up to nine cards; a third extra (about 26,000 multisets)
    takes a few seconds, so property tests should pass ``max_extra=2``. ``min_leftover``: only
    lay-downs that leave at least this many cards.
    """
    cards = Counter(hand)
    cache: MeldCache = {}
    for count in range(max_extra + 1):
        for extra in itertools.combinations_with_replacement(ALL_CARD_KINDS, count):
            together = cards + Counter(extra)
            if any(n > deck_copies(card, deck) for card, n in together.items()):
                continue
            # Same question as "reference_best(...) is not None", stopping at the first lay-down.
            if next(_lay_downs(together, rules, round_number, cache, min_leftover=min_leftover), None) is not None:
                return count
    return None


def reference_fewest_extras(
    hand: Iterable[Card], rules: Rules, round_number: int, deck: DeckRule, max_extra: int = 2,
    min_leftover: int = 0,
) -> tuple[int, int] | None:
    """``reference_cards_away`` and, among the lay-downs with that many extras, the fewest
    penalty points of the hand's cards left over (what the solver reports as the witness's
    kept cards). At the fewest extras every extra card is melded (one left over could have
    been left out), so the leftover is the hand's own cards. ``min_leftover``: only
    lay-downs that leave at least this many cards."""
    cards = Counter(hand)
    cache: MeldCache = {}
    for count in range(max_extra + 1):
        points: list[int] = []
        for extra in itertools.combinations_with_replacement(ALL_CARD_KINDS, count):
            together = cards + Counter(extra)
            if any(n > deck_copies(card, deck) for card, n in together.items()):
                continue
            points += [sum(rules.points_of(card) for card in leftover.elements())
                       for _, leftover in _lay_downs(together, rules, round_number, cache,
                                                     min_leftover=min_leftover)]
        if points:
            return count, min(points)
    return None


# ---- go-out rounds, counted in draws -------------------------------------------------------


def reference_draws_away(
    hand: Iterable[Card], rules: Rules, round_number: int, deck: DeckRule, before_draw: bool,
    max_draws: int = 2,
) -> int | None:
    """A go-out round's distance in draws (docs/lay-down.md), played out: draw ``k`` cards
    (every multiset the deck allows), discard ``k - 1`` of the hand's and the drawn cards
    before the draw, ``k`` after it, and see whether the cards kept go out (meld, every one).
    The fewest such ``k`` (0 after the draw when the hand goes out as it is), None when up to
    ``max_draws`` draws do not do it. Drawn cards may be discarded too: that never helps, but
    nothing here assumes so."""
    found = _draws(Counter(hand), rules, round_number, deck, before_draw, max_draws, first_only=True)
    return None if found is None else found[0]


def reference_draws_witness(
    hand: Iterable[Card], rules: Rules, round_number: int, deck: DeckRule, before_draw: bool,
    max_draws: int = 2,
) -> tuple[int, int, int] | None:
    """``reference_draws_away`` and, among every way of getting there in that many draws, the
    fewest wild cards discarded and then the most penalty points discarded: the solver's
    choice of what to let go. Slower: every lay-down at that distance is looked at."""
    return _draws(Counter(hand), rules, round_number, deck, before_draw, max_draws, first_only=False)


def _draws(cards: Counter[Card], rules: Rules, round_number: int, deck: DeckRule, before_draw: bool,
           max_draws: int, first_only: bool) -> tuple[int, int, int] | None:
    assert rules.round(round_number).go_out, "only go-out rounds are counted in draws"
    cache: MeldCache = {}
    for draws in range(1 if before_draw else 0, max_draws + 1):
        discards = draws - 1 if before_draw else draws
        best: tuple[int, int] | None = None  # (wild cards discarded, minus the points discarded)
        for drawn in itertools.combinations_with_replacement(ALL_CARD_KINDS, draws):
            together = cards + Counter(drawn)
            if any(n > deck_copies(card, deck) for card, n in together.items()):
                continue
            for _, discarded in _lay_downs(together, rules, round_number, cache,
                                           min_leftover=discards, max_leftover=discards):
                if first_only:
                    return draws, 0, 0
                score = (sum(n for card, n in discarded.items() if rules.is_wild(card)),
                         -sum(rules.points_of(card) for card in discarded.elements()))
                best = score if best is None else min(best, score)
        if best is not None:
            return draws, best[0], -best[1]
    return None


# ---- all lay-downs ---------------------------------------------------------------------


def _lay_downs(
    cards: Counter[Card], rules: Rules, round_number: int, cache: MeldCache,
    min_leftover: int = 0, max_leftover: int | None = None,
) -> Iterator[tuple[list[tuple[Candidate, MeldKind]], Counter[Card]]]:
    """Every legal lay-down (with repeats): the melds, each with its contract entry's kind, and
    the leftover, which holds ``min_leftover`` to ``max_leftover`` cards (in a go-out round
    none unless asked: every card is melded). ``cache`` belongs to ``rules``."""
    round_rule = rules.round(round_number)
    contract = round_rule.contract
    if max_leftover is None and round_rule.go_out:
        max_leftover = 0
    total = sum(cards.values())
    if total - min_leftover < sum(spec.size for spec in contract):
        return  # not enough cards for the contract's smallest melds
    candidates = {spec: _candidates(cards, spec, rules, round_rule.go_out, cache) for spec in set(contract)}
    # For speed the search keeps multisets as counts indexed like ALL_CARD_KINDS.
    counts = {spec: [tuple((_KIND_INDEX[card], n) for card, n in used.items()) for used, _ in options]
              for spec, options in candidates.items()}

    def place(
        index: int, remaining: list[int], chosen: list[tuple[Candidate, MeldKind]], first: int
    ) -> Iterator[tuple[list[tuple[Candidate, MeldKind]], Counter[Card]]]:
        if index == len(contract):
            left = sum(remaining)
            if left >= min_leftover and (max_leftover is None or left <= max_leftover):
                yield chosen, Counter({ALL_CARD_KINDS[i]: n for i, n in enumerate(remaining) if n})
            return
        if sum(remaining) - min_leftover < sum(spec.size for spec in contract[index:]):
            return  # the melds still to make cannot fit in the cards left
        spec = contract[index]
        for number in range(first, len(candidates[spec])):
            used = counts[spec][number]
            if any(remaining[i] < n for i, n in used):
                continue
            meaning = candidates[spec][number][1]
            if not all(_compatible(meaning, other, rules) for (_, other), _ in chosen):
                continue
            left = list(remaining)
            for i, n in used:
                left[i] -= n
            # Equal contract entries are interchangeable: take their candidates in order.
            same_next = index + 1 < len(contract) and contract[index + 1] == spec
            yield from place(index + 1, left, chosen + [(candidates[spec][number], spec.kind)],
                             number if same_next else 0)

    yield from place(0, [cards[card] for card in ALL_CARD_KINDS], [], 0)


def _compatible(a: Meaning, b: Meaning, rules: Rules) -> bool:
    """Can these two melds be part of one contract (same-suit runs, distinct set ranks)?"""
    if a[0] == "set" and b[0] == "set":
        return not (rules.distinct_set_ranks and a[1] == b[1])
    if a[0] == "run" and b[0] == "run" and a[1] == b[1]:
        first_a, last_a, first_b, last_b = a[2], a[3], b[2], b[3]
        assert isinstance(first_a, int) and isinstance(last_a, int)
        assert isinstance(first_b, int) and isinstance(last_b, int)
        policy = rules.same_suit_runs
        if policy == SameSuitRuns.DISTINCT_SUITS:
            return False
        if policy == SameSuitRuns.NO_TOUCH:
            return last_a + 1 != first_b and last_b + 1 != first_a
        if policy == SameSuitRuns.GAP:
            return last_a + 1 < first_b or last_b + 1 < first_a
        if policy == SameSuitRuns.GAP_2:
            return last_a + 2 < first_b or last_b + 2 < first_a
    return True


# ---- every way to make one contract meld -----------------------------------------------


def _candidates(
    cards: Counter[Card], spec: MeldSpec, rules: Rules, go_out: bool, cache: MeldCache
) -> list[Candidate]:
    """Every legal way to make this contract meld out of ``cards``."""
    exact = rules.contract_mode == ContractMode.EXACT and not go_out
    largest = spec.size if exact else None
    # A run of one suit can use only that suit's cards and wild cards, a set of one rank only
    # that rank's cards and wild cards. Listing melds from just those cards lets the cache
    # (kept for one rule set) answer again when extra cards of other suits or ranks come in.
    wilds = [(card, n) for card, n in cards.items() if n > 0 and rules.is_wild(card)]
    naturals = [(card, n) for card, n in cards.items() if n > 0 and not rules.is_wild(card)]
    found: list[Candidate] = []
    if spec.kind == MeldKind.RUN:
        for suit in Suit:
            usable = _sorted_items(wilds + [(card, n) for card, n in naturals if card.suit == suit])
            key: tuple[object, ...] = ("run", suit, usable, spec.size, largest)
            if key not in cache:
                cache[key] = _runs_of(suit, usable, spec.size, largest, rules)
            found += cache[key]
    else:
        for rank in Rank:
            usable = _sorted_items(wilds + [(card, n) for card, n in naturals if card.rank == rank])
            key = ("set", rank, usable, spec.size, largest)
            if key not in cache:
                cache[key] = _sets_of(rank, usable, spec.size, largest, rules)
            found += cache[key]
    return found


Usable = tuple[tuple[Card, int], ...]  # a multiset of cards as sorted (card, count) pairs
Melds = tuple[Candidate, ...]
MeldCache = dict[tuple[object, ...], Melds]


def _sorted_items(items: list[tuple[Card, int]]) -> Usable:
    return tuple(sorted(items, key=lambda item: item[0].sort_key()))


def _legal_wild_count(size: int, natural_count: int, rules: Rules) -> bool:
    wild_count = size - natural_count
    if rules.max_wilds_per_meld is not None and wild_count > rules.max_wilds_per_meld:
        return False
    return rules.wilds_may_outnumber_naturals or wild_count <= natural_count


def _unique(melds: Iterable[Candidate]) -> Melds:
    """Each meld once (the same cards with the same meaning can come up several times)."""
    unique = {(_sorted_items(list(meld.items())), meaning): (meld, meaning) for meld, meaning in melds}
    return tuple(unique.values())


def _sets_of(
    rank: Rank, usable: Usable, smallest: int, largest: int | None, rules: Rules
) -> Melds:
    """Every legal set (or pair) of ``rank`` from ``usable``, ``smallest`` to ``largest`` cards."""
    # Cards of the rank are natural here (a 2 in a set of 2s too, even when 2s are wild,
    # unless 2s are always wild: then a 2 is a wild card in a set of 2s as anywhere).
    naturals = Counter({card: n for card, n in usable if card.rank == rank
                        and not (rules.deuces_always_wild and rules.is_wild(card))})
    wilds = Counter({card: n for card, n in usable if card not in naturals})
    top = sum(n for _, n in usable) if largest is None else largest

    def melds() -> Iterator[tuple[Counter[Card], Meaning]]:
        for size in range(smallest, top + 1):
            for natural_count in range(size + 1):
                if not _legal_wild_count(size, natural_count, rules):
                    continue
                for chosen_naturals in _sub_multisets(naturals, natural_count):
                    for chosen_wilds in _sub_multisets(wilds, size - natural_count):
                        yield chosen_naturals + chosen_wilds, ("set", rank)

    return _unique(melds())


def _position_card(position: int, suit: Suit) -> Card:
    """Positions 1 and 14 hold the ace, 2..13 the rank of that number."""
    return Card(Rank.ACE if position in (1, 14) else Rank(position), suit)


def _runs_of(
    suit: Suit, usable: Usable, smallest: int, largest: int | None, rules: Rules
) -> Melds:
    """Every legal run of ``suit`` from ``usable``, ``smallest`` to ``largest`` cards."""
    cards = Counter(dict(usable))
    wild_total = sum(n for card, n in usable if rules.is_wild(card))
    # A position is present when the hand holds its card as a natural; a wild 2 on its own
    # place counts, unless 2s are always wild.
    present = {p for p in range(1, 15) if cards[_position_card(p, suit)] > 0
               and not (rules.deuces_always_wild and rules.is_wild(_position_card(p, suit)))}
    top = min(14, rules.max_run_length, sum(n for _, n in usable) if largest is None else largest)

    def melds() -> Iterator[tuple[Counter[Card], Meaning]]:
        for size in range(smallest, top + 1):
            for first in range(1, 14 - size + 2):
                last = first + size - 1
                if (first == 1 and not rules.ace_low) or (last == 14 and not rules.ace_high):
                    continue
                if first <= 2 and not rules.two_position_in_runs:
                    continue  # the run would use the 2's place
                # Each position holds its own natural card (a wild 2 on its own place counts
                # as natural) or a wild card; try every split between the two.
                have = [p for p in range(first, last + 1) if p in present]
                for wild_places in range(size - len(have), min(size, wild_total) + 1):
                    if not _legal_wild_count(size, size - wild_places, rules):
                        continue
                    for natural_places in itertools.combinations(have, size - wild_places):
                        naturals = Counter(_position_card(p, suit) for p in natural_places)
                        if naturals - cards:
                            continue  # a 14-card run needs the ace twice
                        wilds = Counter({card: n for card, n in (cards - naturals).items()
                                         if rules.is_wild(card)})
                        for chosen_wilds in _sub_multisets(wilds, wild_places):
                            yield naturals + chosen_wilds, ("run", suit, first, last)

    return _unique(melds())


def _sub_multisets(pool: Counter[Card], size: int) -> Iterator[Counter[Card]]:
    """Every sub-multiset of ``pool`` with ``size`` cards."""
    kinds = sorted(pool, key=Card.sort_key)

    def pick(index: int, left: int) -> Iterator[Counter[Card]]:
        if left == 0:
            yield Counter()
            return
        if index == len(kinds):
            return
        card = kinds[index]
        for take in range(min(pool[card], left), -1, -1):
            for rest in pick(index + 1, left - take):
                yield rest + Counter({card: take}) if take else rest

    yield from pick(0, size)


def _placed(used: Counter[Card], meaning: Meaning, rules: Rules, kind: MeldKind) -> PlacedMeld:
    """The meld in table order with what each card stands for."""
    if meaning[0] == "set":
        rank = meaning[1]
        assert isinstance(rank, Rank)
        cards = sorted(used.elements(), key=lambda card: (card.rank != rank, card.sort_key()))
        stands_for = [card if card.rank == rank else Card(rank, Suit.CLUBS) for card in cards]
        return PlacedMeld(kind, tuple(cards), tuple(stands_for))
    _, suit, first, last = meaning
    assert isinstance(suit, Suit) and isinstance(first, int) and isinstance(last, int)
    targets = [_position_card(p, suit) for p in range(first, last + 1)]
    rest = Counter(used)
    placed: list[Card | None] = []
    for target in targets:  # every position takes its own card when there is one...
        if rest[target] > 0:
            rest[target] -= 1
            placed.append(target)
        else:
            placed.append(None)
    wilds = sorted(rest.elements(), key=Card.sort_key)  # ...and wild cards fill the others
    assert all(rules.is_wild(card) for card in wilds) and len(wilds) == placed.count(None)
    cards = [card if card is not None else wilds.pop() for card in placed]
    return PlacedMeld(kind, tuple(cards), tuple(targets))
