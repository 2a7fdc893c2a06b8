"""Hypothesis strategies: hands drawn from a rule set's real deck, small enough for brute force."""

from __future__ import annotations

from hypothesis import strategies as st

from analyzer.cards import ALL_CARD_KINDS, ALL_NATURALS, JOKER, Card, Rank, Suit
from analyzer.hand import deck_copies
from analyzer.rules import DeckRule, MeldKind, Rules


def deck_cards(deck: DeckRule) -> list[Card]:
    return list(ALL_NATURALS) * deck.decks + [JOKER] * deck.jokers


def within_deck(cards: list[Card], deck: DeckRule) -> list[Card]:
    """The cards less the copies beyond what the deck holds."""
    return [card for i, card in enumerate(cards) if cards[:i].count(card) < deck_copies(card, deck)]


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
                  max_cards: int, within_largest_deck: bool = False) -> tuple[Rules, int, tuple[Card, ...]]:
    """A rule set, a round and up to ``max_cards`` cards built from that round's contract, with
    a card dropped, a joker or 2 swapped in and a stray card added now and then: many such hands
    can lay down and many just cannot. ``within_largest_deck``: no more copies of a card than
    the rule set's largest deck holds (a hand the analyser accepts)."""
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
    if within_largest_deck:
        cards = within_deck(cards, rules.deck_for(None))
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
    for index, spec in enumerate(rules.round(round_number).contract):
        if spec.kind != MeldKind.RUN:
            rank = draw(st.sampled_from(list(Rank)))
            cards += [Card(rank, draw(st.sampled_from(list(Suit)))) for _ in range(spec.size)]
            continue
        # The first run at the base, the others a little above: some positions are covered
        # by all three runs, and the deck has only two copies of their cards.
        first = min(base + (draw(st.integers(0, spec.size)) if index else 0), 15 - spec.size)
        cards += [Card(Rank(1 + (p - 1) % 13), suit) for p in range(first, first + spec.size)]
    cards = within_deck(cards, deck)
    if draw(st.booleans()):
        del cards[draw(st.integers(0, len(cards) - 1))]
    if deck.jokers and draw(st.booleans()):
        cards[draw(st.integers(0, len(cards) - 1))] = JOKER
    if draw(st.booleans()):
        cards.append(draw(st.sampled_from(ALL_NATURALS)))
    cards = within_deck(cards, deck)
    if rules.round(round_number).go_out:
        # Every card must meld: make up the copies the deck lacked with the suit's cards just
        # below and above the runs (a longer run takes them), so the hand is near the contract.
        need = sum(spec.size for spec in rules.round(round_number).contract) - draw(st.integers(0, 1))
        low, high = base - 1, base + 5
        while len(cards) < need and (low >= (1 if rules.ace_low else 2) or high <= 14):
            if high <= 14 and (draw(st.booleans()) or low < (1 if rules.ace_low else 2)):
                position, high = high, high + 1
            else:
                position, low = low, low - 1
            cards = within_deck(cards + [Card(Rank(1 + (position - 1) % 13), suit)], deck)
    return tuple(cards[:max_cards])


@st.composite
def hands_around(draw: st.DrawFn, rules: Rules, min_size: int, max_size: int, players: int | None = None) -> tuple[Card, ...]:
    """Like ``hands`` with ``focus``, but the window of six positions may reach the high ace
    (10 J Q K A) as well as the low one, and 2s of every suit join the pool when they are wild:
    hands that test where a run may start and end, and what a wild 2 may do."""
    pool = deck_cards(rules.deck_for(players))
    suits = draw(st.lists(st.sampled_from(list(Suit)), min_size=1, max_size=2, unique=True))
    low = draw(st.integers(1, 9))  # positions low .. low + 5; position 14 is the ace
    ranks = {Rank(1 + (p - 1) % 13) for p in range(low, low + 6)}
    pool = [c for c in pool if c.is_joker or (rules.deuces_wild and c.rank == Rank.TWO)
            or (c.suit in suits and c.rank in ranks)]
    indices = draw(st.lists(st.integers(0, len(pool) - 1), min_size=min_size, max_size=max_size, unique=True))
    return tuple(pool[i] for i in indices)


@st.composite
def turn_hands(draw: st.DrawFn, rule_sets: list[Rules]) -> tuple[Rules, int, str, tuple[Card, ...]]:
    """A rule set, a round, a moment of the turn and a hand of exactly the size that moment
    gives (no buys), built from the round's contract: its melds, some made longer, a card
    dropped or swapped for a wild one now and then, and stray cards to fill up. Hands that meld
    every card, or all but one, are common: where the rules want a discard, or forbid going out
    by discarding, such hands may have no legal play this turn."""
    rules = draw(st.sampled_from(rule_sets))
    round_number = draw(st.integers(1, len(rules.rounds)))
    moment = draw(st.sampled_from(["before-draw", "after-draw"]))
    size = rules.round(round_number).deal + (moment == "after-draw")
    deck = rules.deck_for(None)
    melds: list[list[Card]] = []
    for spec in rules.round(round_number).contract:
        if spec.kind == MeldKind.RUN:
            suit = draw(st.sampled_from(list(Suit)))
            first = draw(st.integers(1, 14 - spec.size))
            melds.append([Card(Rank(1 + (first + offset - 1) % 13), suit) for offset in range(spec.size)])
        else:
            rank = draw(st.sampled_from(list(Rank)))
            melds.append([Card(rank, draw(st.sampled_from(list(Suit)))) for _ in range(spec.size)])
    cards = [card for meld in melds for card in meld]
    while len(cards) < size:
        choice = draw(st.integers(0, 3))
        meld = melds[draw(st.integers(0, len(melds) - 1))]
        if choice < 2 and meld[0].rank != meld[-1].rank and int(meld[-1].rank or 0) < 13:
            meld.append(Card(Rank(int(meld[-1].rank or 0) + 1), meld[-1].suit))  # a run one longer
            cards.append(meld[-1])
        elif choice < 2 and meld[0].rank == meld[-1].rank:
            cards.append(Card(meld[0].rank, draw(st.sampled_from(list(Suit)))))  # a set one longer
        else:
            cards.append(draw(st.sampled_from(ALL_CARD_KINDS)))  # a stray card
    if draw(st.booleans()):
        cards[draw(st.integers(0, len(cards) - 1))] = draw(st.sampled_from([JOKER, Card(Rank.TWO, Suit.CLUBS)]))
    if draw(st.booleans()):
        del cards[draw(st.integers(0, len(cards) - 1))]
    cards = within_deck(cards, deck)
    pool = deck_cards(deck)
    while len(cards) < size:
        card = pool[draw(st.integers(0, len(pool) - 1))]
        if cards.count(card) < deck_copies(card, deck):
            cards.append(card)
    return rules, round_number, moment, tuple(cards[:size])
