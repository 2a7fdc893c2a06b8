"""A brute-force reference for small hands, independent of the solver and of the validator.

``reference_best`` lists, for every meld of the contract, every legal way to make it out of
the hand's cards (every set rank, every run window, every choice of which cards fill it), then
tries every combination of those melds that uses no card twice. Nothing here is clever, so a
disagreement with the CP-SAT solver points at the solver. It is meant for hands of about ten
cards and contracts of up to three melds.

``reference_cards_away`` adds every multiset of 0, 1, 2, ... extra cards the deck allows and
asks ``reference_best`` again.
"""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Iterable, Iterator

from analyzer.cards import ALL_CARD_KINDS, Card, Rank, Suit
from analyzer.hand import deck_copies
from analyzer.rules import ContractMode, DeckRule, MeldKind, MeldSpec, Rules, SameSuitRuns

# A meld's meaning: ("set", rank) for sets and pairs, ("run", suit, first, last position).
Meaning = tuple[object, ...]
# One way to make a contract meld: the cards it uses and what it means.
Candidate = tuple[Counter[Card], Meaning]


def reference_best(hand: Iterable[Card], rules: Rules, round_number: int) -> int | None:
    """Fewest leftover points over all legal lay-downs of the round's contract, None if none."""
    points = [sum(rules.points_of(card) for card in leftover.elements())
              for leftover in _lay_downs(Counter(hand), rules, round_number)]
    return min(points, default=None)


def reference_cards_away(
    hand: Iterable[Card], rules: Rules, round_number: int, deck: DeckRule, max_extra: int = 3
) -> int | None:
    """Fewest extra cards (naturals or jokers, within the deck) that allow a legal lay-down.

    None when even ``max_extra`` extra cards do not.
    """
    cards = Counter(hand)
    for count in range(max_extra + 1):
        for extra in itertools.combinations_with_replacement(ALL_CARD_KINDS, count):
            together = cards + Counter(extra)
            if any(n > deck_copies(card, deck) for card, n in together.items()):
                continue
            # Same question as "reference_best(...) is not None", stopping at the first lay-down.
            if next(_lay_downs(together, rules, round_number), None) is not None:
                return count
    return None


# ---- all lay-downs ---------------------------------------------------------------------


def _lay_downs(cards: Counter[Card], rules: Rules, round_number: int) -> Iterator[Counter[Card]]:
    """The leftover of every legal lay-down (with repeats)."""
    round_rule = rules.round(round_number)
    contract = round_rule.contract
    if sum(cards.values()) < sum(spec.size for spec in contract):
        return  # not enough cards for the contract's smallest melds
    candidates = {spec: _candidates(cards, spec, rules, round_rule.go_out) for spec in set(contract)}

    def place(index: int, remaining: Counter[Card], chosen: list[Candidate], first: int) -> Iterator[Counter[Card]]:
        if index == len(contract):
            if not (round_rule.go_out and sum(remaining.values()) > 0):
                yield remaining
            return
        options = candidates[contract[index]]
        for number in range(first, len(options)):
            used, meaning = options[number]
            if any(remaining[card] < n for card, n in used.items()):
                continue
            if not all(_compatible(meaning, other, rules) for _, other in chosen):
                continue
            # Equal contract entries are interchangeable: take their candidates in order.
            same_next = index + 1 < len(contract) and contract[index + 1] == contract[index]
            yield from place(index + 1, remaining - used, chosen + [(used, meaning)],
                             number if same_next else 0)

    yield from place(0, cards, [], 0)


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
    return True


# ---- every way to make one contract meld -----------------------------------------------


def _candidates(cards: Counter[Card], spec: MeldSpec, rules: Rules, go_out: bool) -> list[Candidate]:
    exact = rules.contract_mode == ContractMode.EXACT and not go_out
    sizes = [spec.size] if exact else list(range(spec.size, sum(cards.values()) + 1))
    found: list[Candidate] = []
    for meld, natural_count, meaning in _melds(cards, spec.kind, sizes, rules):
        wild_count = sum(meld.values()) - natural_count
        if rules.max_wilds_per_meld is not None and wild_count > rules.max_wilds_per_meld:
            continue
        if not rules.wilds_may_outnumber_naturals and wild_count > natural_count:
            continue
        found.append((meld, meaning))
    # The same cards with the same meaning can come up more than once; keep one.
    unique = {(tuple(sorted(meld.elements(), key=Card.sort_key)), meaning): (meld, meaning) for meld, meaning in found}
    return list(unique.values())


def _melds(
    cards: Counter[Card], kind: MeldKind, sizes: list[int], rules: Rules
) -> Iterator[tuple[Counter[Card], int, Meaning]]:
    """(cards, how many of them count as natural, meaning) for every meld of that kind and size."""
    if kind == MeldKind.RUN:
        yield from _runs(cards, sizes, rules)
    else:
        yield from _sets(cards, sizes, rules)


def _sets(cards: Counter[Card], sizes: list[int], rules: Rules) -> Iterator[tuple[Counter[Card], int, Meaning]]:
    for rank in Rank:
        # Cards of the rank are natural here (a 2 in a set of 2s too, even when 2s are wild).
        naturals = Counter({card: n for card, n in cards.items() if card.rank == rank})
        wilds = Counter({card: n for card, n in cards.items() if card.rank != rank and rules.is_wild(card)})
        for size in sizes:
            if size > sum(naturals.values()) + sum(wilds.values()):
                break
            for natural_count in range(size + 1):
                for chosen_naturals in _sub_multisets(naturals, natural_count):
                    for chosen_wilds in _sub_multisets(wilds, size - natural_count):
                        yield chosen_naturals + chosen_wilds, natural_count, ("set", rank)


def _position_card(position: int, suit: Suit) -> Card:
    return Card(Rank.ACE if position in (1, 14) else Rank(position), suit)


def _runs(cards: Counter[Card], sizes: list[int], rules: Rules) -> Iterator[tuple[Counter[Card], int, Meaning]]:
    wild_total = sum(n for card, n in cards.items() if rules.is_wild(card))
    for suit in Suit:
        present = {p for p in range(1, 15) if cards[_position_card(p, suit)] > 0}
        for size in sizes:
            if size > rules.max_run_length:
                continue
            for first in range(1, 14 - size + 2):
                last = first + size - 1
                if (first == 1 and not rules.ace_low) or (last == 14 and not rules.ace_high):
                    continue
                positions = range(first, last + 1)
                # Each position holds its own natural card (a wild 2 on its own place counts
                # as natural) or a wild card; try every split between the two.
                have = [p for p in positions if p in present]
                must_be_wild = size - len(have)
                if must_be_wild > wild_total:
                    continue
                for wild_places in range(must_be_wild, min(size, wild_total) + 1):
                    for natural_places in itertools.combinations(have, size - wild_places):
                        naturals = Counter(_position_card(p, suit) for p in natural_places)
                        if naturals - cards:
                            continue  # e.g. a 14-card run needs the ace twice
                        rest = cards - naturals
                        wilds = Counter({card: n for card, n in rest.items() if rules.is_wild(card)})
                        for chosen_wilds in _sub_multisets(wilds, wild_places):
                            yield naturals + chosen_wilds, len(natural_places), ("run", suit, first, last)


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
