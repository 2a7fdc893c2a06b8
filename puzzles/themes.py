"""Themes: a closed set of names, each decided by one small pure predicate over a puzzle and its
analysis (as lichess-puzzler's ``tagger/cook.py``). ``tag(puzzle)`` lists the themes that hold,
in ``THEMES`` order.

The predicates read only the puzzle: its position, its accepted answers, its margin, its best
play (``solution``: a lay-down theme reads the stored play, which ``puzzles verify`` proves legal
and optimal, never the solver's choice among plays of equal merit) and the analysis
``puzzles.generate.derive`` stored (the hasty plays and the rules they broke, the discard table's
top rows, the buy verdicts).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from analyzer import MeldKind, preset
from puzzles.model import BUY, CANNOT, PASS, BuyAnalysis, DiscardMargin, Kind, LayDownAnalysis, Puzzle

Predicate = Callable[[Puzzle], bool]


def _hasty(puzzle: Puzzle) -> list[Any]:
    return list(puzzle.analysis.hasty) if isinstance(puzzle.analysis, LayDownAnalysis) else []


def _criterion(puzzle: Puzzle) -> str | None:
    """A discard puzzle's criterion (``DiscardMargin``)."""
    return puzzle.margin.criterion if isinstance(puzzle.margin, DiscardMargin) else None


def _bought(puzzle: Puzzle) -> BuyAnalysis | None:
    """A buy puzzle's analysis."""
    return puzzle.analysis if isinstance(puzzle.analysis, BuyAnalysis) else None


def _broke(puzzle: Puzzle, rule: str) -> bool:
    return any(rule in outcome.get("broken", []) for outcome in _hasty(puzzle))


def _solution_melds(puzzle: Puzzle) -> Iterator[Any]:
    if puzzle.kind is Kind.LAY_DOWN and puzzle.solution is not None:
        yield from puzzle.solution.melds


def joker_placement(puzzle: Puzzle) -> bool:
    """The best play puts a wild card in a meld, and a hasty player gets it wrong."""
    placed = any(
        card != meaning
        for meld in _solution_melds(puzzle)
        for card, meaning in zip(meld.cards, meld.stands_for)
    )
    return placed and any(outcome["fails"] for outcome in _hasty(puzzle))


def same_suit_runs(puzzle: Puzzle) -> bool:
    """Two runs of one suit in the best play, or a hasty play breaking the same-suit rule."""
    suits = [meld.stands_for[0].suit for meld in _solution_melds(puzzle) if meld.kind == MeldKind.RUN]
    return len(suits) != len(set(suits)) or _broke(puzzle, "same-suit-runs")


def ace_high_or_low(puzzle: Puzzle) -> bool:
    """An ace in a run of the best play, or a hasty play using the ace where the rules forbid."""
    aces = any(
        meaning.rank is not None and meaning.rank.token == "A"
        for meld in _solution_melds(puzzle)
        if meld.kind == MeldKind.RUN
        for meaning in meld.stands_for
    )
    return aces or _broke(puzzle, "ace")


def one_wild_per_meld(puzzle: Puzzle) -> bool:
    """A hasty play puts more wild cards in a meld than the rules allow."""
    return _broke(puzzle, "wilds-per-meld")


def go_out(puzzle: Puzzle) -> bool:
    """The answer goes out this turn (the best lay-down play, or the top discard)."""
    if puzzle.kind is Kind.LAY_DOWN:
        play = puzzle.solution
        if play is None or play.cannot:
            return False
        # Every card melded, or melded and discarded: nothing left in hand when the turn ends.
        return sum(len(meld.cards) for meld in play.melds) + (play.discard is not None) == len(puzzle.hand)
    return isinstance(puzzle.margin, DiscardMargin) and bool(puzzle.margin.top.get("goes_out"))


def set_or_run(puzzle: Puzzle) -> bool:
    """A card the best play puts in a set goes into a run in a failing hasty play, or the other
    way round: the card fits either, and choosing matters."""
    kinds = {}
    for meld in _solution_melds(puzzle):
        for card in meld.cards:
            kinds[card.token] = "run" if meld.kind == MeldKind.RUN else "set"
    for outcome in _hasty(puzzle):
        if not outcome["fails"] or outcome["cannot"]:
            continue
        for meld in outcome["play"]["melds"]:
            kind = "run" if meld["kind"] == "run" else "set"
            if any(kinds.get(token, kind) != kind for token in meld["cards"] if token != "JK"):
                return True
    return False


def looks_ready(puzzle: Puzzle) -> bool:
    """The hand looks ready (it could lay down under the loose rules) but cannot."""
    return puzzle.kind is Kind.LAY_DOWN and puzzle.answers == (CANNOT,)


def points_trap(puzzle: Puzzle) -> bool:
    """A hasty play is legal but keeps more points when the turn ends than the best play."""
    return any(
        not outcome["cannot"] and not outcome["problems"] and outcome["fails"] for outcome in _hasty(puzzle)
    )


def long_melds(puzzle: Puzzle) -> bool:
    """The best play lays a meld longer than the contract asks (minimum contracts, go-out rounds)."""
    melds = list(_solution_melds(puzzle))
    if not melds:
        return False
    sizes = sorted(spec.size for spec in preset(puzzle.rules).round(puzzle.round).contract)
    return sum(len(meld.cards) for meld in melds) > sum(sizes)


def keep_the_wild(puzzle: Puzzle) -> bool:
    """A discard puzzle whose hand holds a wild card that no right answer throws."""
    if puzzle.kind is not Kind.DISCARD:
        return False
    rules = preset(puzzle.rules)
    wild_tokens = {card.token for card in puzzle.hand if rules.is_wild(card)}
    return bool(wild_tokens) and not wild_tokens & set(puzzle.answers)


def lay_down_now(puzzle: Puzzle) -> bool:
    """Only the right discard lets the hand lay down this turn."""
    return _criterion(puzzle) == "lays-down"


def fewer_cards_away(puzzle: Puzzle) -> bool:
    """The right discard leaves the hand fewer cards away than any other."""
    return _criterion(puzzle) == "cards-away"


def more_outs(puzzle: Puzzle) -> bool:
    """As near either way (one card away), but the right discard keeps clearly more unseen outs."""
    return _criterion(puzzle) == "outs"


def buy_completes(puzzle: Puzzle) -> bool:
    """Buying is right and the card completes the contract."""
    bought = _bought(puzzle)
    return bought is not None and puzzle.answers == (BUY,) and bought.cards_away_with_card == 0


def buy_gets_closer(puzzle: Puzzle) -> bool:
    """Buying is right: the card brings the hand nearer without completing the contract."""
    bought = _bought(puzzle)
    away, with_card = (bought.cards_away, bought.cards_away_with_card) if bought else (None, None)
    return puzzle.answers == (BUY,) and away is not None and with_card is not None and 0 < with_card < away


def penalty_too_costly(puzzle: Puzzle) -> bool:
    """The card would help, but passing is right: the penalty cards cost more than it brings."""
    bought = _bought(puzzle)
    away, with_card = (bought.cards_away, bought.cards_away_with_card) if bought else (None, None)
    return puzzle.answers == (PASS,) and away is not None and with_card is not None and with_card < away


def straightforward_lay_down(puzzle: Puzzle) -> bool:
    """The hand lays down, and no hasty play breaks a rule or keeps more points: the only trap is
    not seeing the lay-down."""
    failing = [outcome for outcome in _hasty(puzzle) if outcome["fails"]]
    return puzzle.best_points is not None and bool(failing) and all(outcome["cannot"] for outcome in failing)


def last_card_rule(puzzle: Puzzle) -> bool:
    """A hasty play ends the turn against the rules of going out: a card left out in a go-out
    round, or the last card discarded (or kept) where the rules say otherwise."""
    return _broke(puzzle, "discard-to-go-out") or _broke(puzzle, "go-out-round")


def card_does_not_help(puzzle: Puzzle) -> bool:
    """Passing is right: the card brings the hand no nearer, so the penalty card is all it buys."""
    bought = _bought(puzzle)
    away, with_card = (bought.cards_away, bought.cards_away_with_card) if bought else (None, None)
    return puzzle.answers == (PASS,) and away is not None and with_card is not None and with_card >= away


def buy_the_round_needs(puzzle: Puzzle) -> bool:
    """Buying is right in a round whose contract needs more cards than are dealt."""
    bought = _bought(puzzle)
    return bought is not None and puzzle.answers == (BUY,) and bought.needs_buying


def more_cards_more_chances(puzzle: Puzzle) -> bool:
    """Buying is right though the card brings the hand no nearer: two or three more cards to
    build with raise the chance of laying down by more than their points cost."""
    bought = _bought(puzzle)
    away, with_card = (bought.cards_away, bought.cards_away_with_card) if bought else (None, None)
    return puzzle.answers == (BUY,) and away is not None and with_card is not None and with_card >= away


def wait_for_a_better_card(puzzle: Puzzle) -> bool:
    """Passing is right though the round needs a buy to lay down: a later offer is worth more
    than this card and its penalty cards."""
    bought = _bought(puzzle)
    return bought is not None and puzzle.answers == (PASS,) and bought.needs_buying


THEMES: dict[str, Predicate] = {
    "joker-placement": joker_placement,
    "same-suit-runs": same_suit_runs,
    "ace-high-or-low": ace_high_or_low,
    "one-wild-per-meld": one_wild_per_meld,
    "go-out": go_out,
    "set-or-run": set_or_run,
    "looks-ready": looks_ready,
    "points-trap": points_trap,
    "long-melds": long_melds,
    "keep-the-wild": keep_the_wild,
    "lay-down-now": lay_down_now,
    "fewer-cards-away": fewer_cards_away,
    "more-outs": more_outs,
    "buy-completes": buy_completes,
    "buy-gets-closer": buy_gets_closer,
    "penalty-too-costly": penalty_too_costly,
    "buy-the-round-needs": buy_the_round_needs,
    "straightforward-lay-down": straightforward_lay_down,
    "last-card-rule": last_card_rule,
    "card-does-not-help": card_does_not_help,
    "more-cards-more-chances": more_cards_more_chances,
    "wait-for-a-better-card": wait_for_a_better_card,
}

# Themes that name a plain case (added after generator puzzles-7 so that every puzzle has one):
# the rating does not count them (``puzzles.generate.difficulty``), so tagging the bank with them
# moved no rating and no day of the daily calendar.
UNRATED = frozenset({"straightforward-lay-down", "last-card-rule", "card-does-not-help", "more-cards-more-chances",
                     "wait-for-a-better-card"})


def tag(puzzle: Puzzle) -> tuple[str, ...]:
    """The themes whose predicate holds for ``puzzle``, in ``THEMES`` order."""
    return tuple(name for name, predicate in THEMES.items() if predicate(puzzle))
