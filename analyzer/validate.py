"""An independent check of a lay-down, card by card, against docs/lay-down.md.

This module shares no code with the solver on purpose: it is the yardstick the solver's
answers are held to, so it is written plainly, rule by rule, and never imports
``analyzer.solver`` (one meld on its own is read by ``analyzer.melds``, which does not
either). ``validate_lay_down`` returns every problem it finds as a sentence (an empty list
means the lay-down is legal).

>>> from analyzer.cards import parse_cards
>>> from analyzer.rules import MeldKind, preset
>>> hand = parse_cards('5C 5D 5S 9H 9S 9C KD')
>>> sets = [PlacedMeld(MeldKind.SET, hand[0:3], hand[0:3]), PlacedMeld(MeldKind.SET, hand[3:6], hand[3:6])]
>>> validate_lay_down(hand, preset('progressive'), 1, sets, hand[6:])
[]
>>> validate_lay_down(hand, preset('progressive'), 1, sets[:1], hand[3:])
['1 meld(s) laid down but the contract has 2: set of 3, set of 3']
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Sequence

from analyzer.cards import Card
from analyzer.hand import deck_copies
from analyzer.melds import MeldShape, check_meld
from analyzer.result import PlacedMeld
from analyzer.rules import ContractMode, DeckRule, MeldKind, MeldSpec, Rules, SameSuitRuns


def leftover_points(cards: Iterable[Card], rules: Rules) -> int:
    """Penalty points of the cards left in hand."""
    return sum(rules.points_of(card) for card in cards)


def validate_lay_down(
    hand: Sequence[Card],
    rules: Rules,
    round_number: int,
    melds: Sequence[PlacedMeld],
    leftover: Sequence[Card],
    extra: Sequence[Card] = (),
    *,
    deck: DeckRule | None = None,
) -> list[str]:
    """Every way this lay-down breaks the rules of round ``round_number``; [] if it is legal.

    ``extra`` are cards added to the hand (the "missing" witness of cards away): they may be
    melded on top of the hand and must not be left over. With ``deck``, hand plus extras must
    also fit in that deck.
    """
    round_rule = rules.round(round_number)
    problems: list[str] = []

    shapes: list[MeldShape | None] = []
    for number, meld in enumerate(melds, start=1):
        meld_problems, shape = check_meld(meld, rules)
        problems += [f"meld {number} ({_show(meld)}): {text}" for text in meld_problems]
        shapes.append(shape)

    problems += _check_contract(melds, round_rule.contract, rules.contract_mode, round_rule.go_out)
    problems += _check_between_melds(shapes, rules)
    problems += _check_cards(hand, melds, leftover, extra)
    if round_rule.go_out and leftover:
        problems.append(f"round {round_number} is a go-out round: every card must be melded, "
                        f"but {_tokens(leftover)} is left over")
    if deck is not None:
        for card, count in sorted(Counter([*hand, *extra]).items(), key=lambda item: item[0].sort_key()):
            if count > deck_copies(card, deck):
                problems.append(f"hand and extra cards hold {count} of {card.token}, "
                                f"the deck only {deck_copies(card, deck)}")
    return problems


# ---- the contract and the melds together -----------------------------------------------


def _size_fits(length: int, spec: MeldSpec, mode: ContractMode, go_out: bool) -> bool:
    if mode == ContractMode.EXACT and not go_out:
        return length == spec.size
    return length >= spec.size


def _check_contract(
    melds: Sequence[PlacedMeld], contract: tuple[MeldSpec, ...], mode: ContractMode, go_out: bool
) -> list[str]:
    """The melds must match the contract's entries one to one, kind for kind, with fitting sizes."""
    wanted = ", ".join(spec.describe() for spec in contract)
    if len(melds) != len(contract):
        return [f"{len(melds)} meld(s) laid down but the contract has {len(contract)}: {wanted}"]
    for order in itertools.permutations(contract):
        if all(meld.kind == spec.kind and _size_fits(len(meld.cards), spec, mode, go_out)
               for meld, spec in zip(melds, order)):
            return []
    sizes = "exactly" if mode == ContractMode.EXACT and not go_out else "at least"
    laid = ", ".join(f"{meld.kind.value} of {len(meld.cards)}" for meld in melds)
    return [f"the melds ({laid}) do not match the contract ({wanted}, {sizes} those sizes)"]


def _check_between_melds(shapes: Sequence[MeldShape | None], rules: Rules) -> list[str]:
    """Same-suit runs and distinct set ranks, for every pair of melds."""
    problems = []
    for (i, a), (j, b) in itertools.combinations(enumerate(shapes, start=1), 2):
        if a is None or b is None:
            continue
        if a.kind == MeldKind.RUN and b.kind == MeldKind.RUN and a.suit == b.suit:
            problem = _same_suit_problem(a, b, rules.same_suit_runs)
            if problem:
                problems.append(f"melds {i} and {j}: {problem}")
        if (rules.distinct_set_ranks and a.kind != MeldKind.RUN and b.kind != MeldKind.RUN
                and a.rank == b.rank):
            assert a.rank is not None
            problems.append(f"melds {i} and {j}: two sets of {a.rank.token}, "
                            f"but no two sets may share a rank")
    return problems


def _same_suit_problem(a: MeldShape, b: MeldShape, policy: SameSuitRuns) -> str | None:
    touching = a.high + 1 == b.low or b.high + 1 == a.low
    apart = a.high + 1 < b.low or b.high + 1 < a.low
    if policy == SameSuitRuns.NO_TOUCH and touching:
        return "two runs of one suit touch and would read as one run (no-touch)"
    if policy == SameSuitRuns.GAP and not apart:
        return "two runs of one suit must leave at least one rank between them (gap)"
    far_apart = a.high + 2 < b.low or b.high + 2 < a.low
    if policy == SameSuitRuns.GAP_2 and not far_apart:
        return "two runs of one suit must leave at least two ranks between them (gap-2)"
    if policy == SameSuitRuns.DISTINCT_SUITS:
        return "two runs of one suit, but every run must have its own suit (distinct-suits)"
    return None


def _check_cards(
    hand: Sequence[Card], melds: Sequence[PlacedMeld], leftover: Sequence[Card], extra: Sequence[Card]
) -> list[str]:
    """Melds plus leftover are exactly hand plus extras, and no extra card is left over."""
    problems = []
    placed = Counter(card for meld in melds for card in meld.cards) + Counter(leftover)
    available = Counter(hand) + Counter(extra)
    if placed - available:
        problems.append(f"cards that are not in the hand or the extras: {_tokens((placed - available).elements())}")
    if available - placed:
        problems.append(f"cards of the hand or the extras that are neither melded nor left over: "
                        f"{_tokens((available - placed).elements())}")
    # Leftover cards come from the hand only: every extra card must be melded.
    if Counter(leftover) - Counter(hand):
        problems.append(f"left over but not in the hand (extra cards must be melded): "
                        f"{_tokens((Counter(leftover) - Counter(hand)).elements())}")
    return problems


def _tokens(cards: Iterable[Card]) -> str:
    return " ".join(card.token for card in sorted(cards, key=Card.sort_key)) or "nothing"


def _show(meld: PlacedMeld) -> str:
    shown = [card.token if card == meaning else f"{card.token}={meaning.token}"
             for card, meaning in zip(meld.cards, meld.stands_for)]
    return " ".join([meld.kind.value, *shown])  # an empty meld is just "set", without a trailing space
