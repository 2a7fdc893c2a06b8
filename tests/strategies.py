"""Hypothesis strategies: hands drawn from a rule set's real deck, small enough for brute force."""

from __future__ import annotations

from hypothesis import strategies as st

from analyzer.cards import ALL_CARD_KINDS, ALL_NATURALS, JOKER, Card, Rank, Suit
from analyzer.rules import DeckRule, MeldKind, Rules


def deck_cards(deck: DeckRule) -> list[Card]:
    return list(ALL_NATURALS) * deck.decks + [JOKER] * deck.jokers


@st.composite
def hands(draw: st.DrawFn, rules: Rules, min_size: int, max_size: int, players: int | None = None,
          focus: bool = True) -> tuple[Card, ...]:
    """A hand dealt from the rule set's deck. With ``focus`` the cards come from two suits and a
    few neighbouring ranks, so that melds (and near-melds) are common, as in real hands."""
    pool = deck_cards(rules.deck_for(players))
    if focus:
        suits = draw(st.lists(st.sampled_from(list(Suit)), min_size=1, max_size=2, unique=True))
        low = draw(st.integers(1, 8))
        ranks = {Rank(r) for r in range(low, low + 6)}
        pool = [c for c in pool if c.is_joker or (c.suit in suits and c.rank in ranks)]
    indices = draw(st.lists(st.integers(0, len(pool) - 1), min_size=min_size, max_size=max_size, unique=True))
    return tuple(pool[i] for i in indices)


@st.composite
def near_contract(draw: st.DrawFn, rule_sets: list[Rules], rounds: list[int], suits: list[Suit],
                  max_cards: int) -> tuple[Rules, int, tuple[Card, ...]]:
    """A rule set, a round and up to ``max_cards`` cards built from that round's contract, with
    a card dropped, a joker or 2 swapped in and a stray card added now and then: many such hands
    can lay down and many just cannot."""
    rules = draw(st.sampled_from(rule_sets))
    round_number = draw(st.sampled_from(rounds))
    cards: list[Card] = []
    for spec in rules.round(round_number).contract:
        if spec.kind == MeldKind.RUN:
            suit = draw(st.sampled_from(suits))
            first = draw(st.integers(1, 11))  # 11: J Q K A
            cards += [Card(Rank(1 + (first + offset - 1) % 13), suit) for offset in range(spec.size)]
        else:
            rank = draw(st.sampled_from(list(Rank)))
            cards += [Card(rank, draw(st.sampled_from(list(Suit)))) for _ in range(spec.size)]
    if draw(st.booleans()):
        del cards[draw(st.integers(0, len(cards) - 1))]
    if draw(st.booleans()):
        cards[draw(st.integers(0, len(cards) - 1))] = draw(st.sampled_from([JOKER, Card(Rank.TWO, Suit.CLUBS)]))
    if draw(st.booleans()):
        cards.append(draw(st.sampled_from(ALL_CARD_KINDS)))
    return rules, round_number, tuple(cards[:max_cards])


@st.composite
def same_suit_runs(draw: st.DrawFn, rules: Rules, round_number: int, players: int | None = None,
                   max_cards: int = 12) -> tuple[Card, ...]:
    """The round's runs laid in one suit on overlapping windows, capped at the deck's copies of
    each card (so that some cards are used up and a missing one must be a joker), with a card
    dropped, a joker swapped in and a stray card added now and then: three same-suit runs in
    a two-deck game, near the contract."""
    deck = rules.deck_for(players)
    suit = draw(st.sampled_from(list(Suit)))
    base = draw(st.integers(1 if rules.ace_low else 2, 8))
    cards: list[Card] = []
    for spec in rules.round(round_number).contract:
        if spec.kind != MeldKind.RUN:
            rank = draw(st.sampled_from(list(Rank)))
            cards += [Card(rank, draw(st.sampled_from(list(Suit)))) for _ in range(spec.size)]
            continue
        first = min(draw(st.integers(base, base + 4)), 15 - spec.size)
        cards += [Card(Rank(1 + (p - 1) % 13), suit) for p in range(first, first + spec.size)]
    cards = [card for i, card in enumerate(cards) if cards[:i].count(card) < deck.decks]
    if draw(st.booleans()):
        del cards[draw(st.integers(0, len(cards) - 1))]
    if deck.jokers and draw(st.booleans()):
        cards[draw(st.integers(0, len(cards) - 1))] = JOKER
    if draw(st.booleans()):
        stray = draw(st.sampled_from(ALL_NATURALS))
        if cards.count(stray) < deck.decks:
            cards.append(stray)
    return tuple(cards[:max_cards])
