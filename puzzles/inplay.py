"""A puzzle's answer judged in play: the round played on from the answer and from its runner-up
over the same deals of the hidden cards, compared on the score that decides games. A discard
puzzle's runner-up is the discard table's second row; a buy puzzle's is the other choice (buy
or pass).

For a position the player cannot see the other hands or the stock: they are the unseen cards
(the deck less the hand, the discard pile, the melds on the table and the offered card).
``judge`` deals them ``deals`` times from a seed (common random numbers: both choices meet the
same other hands and the same stock, card for card), plays each deal on with every seat a
``SimulatedPlayer`` after the decision, and compares the player's relative points (its penalty
points less the others' mean when the round ends) with a paired 95% t interval::

    gain = relative points after the runner-up - relative points after the answer

so a positive gain means the accepted answer leaves the player better off against the table.
``python -m puzzles.inplay SHARD...`` (or ``puzzles verify --in-play``) prints a verdict per
puzzle and a summary by the criterion that accepted it (docs/strength.md, "Puzzle answers in play").
"""

from __future__ import annotations

import enum
import math
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from analyzer import (
    Card,
    Interval,
    Outcome,
    Play,
    Policy,
    RoundSolver,
    Rules,
    SeatView,
    SimulatedPlayer,
    Table,
    deck_cards,
    interval,
    load_rules,
)
from puzzles.model import DiscardMargin, Kind, Puzzle

DEALS = 40  # deals of the hidden cards per puzzle
WORK = 2.0  # CP-SAT deterministic work per solve of the simulated players (as ``Table.deal``)
STREAM = "inplay-1"  # the name of the deals' random stream: a new name deals new cards
# The criterion names of the discard margin, as the themes name them; a buy puzzle's answer.
CRITERIA = {"lays-down": "lays-down", "cards-away": "cards-away", "goes-out": "goes-out", "outs": "more-outs",
            "buy": "buy", "pass": "pass"}
BUY, PASS = "buy", "pass"


class InPlayError(ValueError):
    """A puzzle that cannot be played on: a lay-down puzzle, no runner-up, too few unseen cards."""


class Standing(enum.StrEnum):
    BETTER = "better"  # the answer's gain has a 95% interval above 0
    WORSE = "worse"  # ...below 0
    INDISTINCT = "indistinct"  # the interval holds 0


@dataclass(frozen=True)
class Deal:
    """The hidden cards of one deal: the other seats' hands (the player's seat empty) and the
    stock (its top the end of the tuple), and the seed of the table's own shuffles."""

    hands: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]
    shuffle: int


@dataclass(frozen=True)
class PlayedOut:
    """Two choices of one puzzle played on over the same deals: discards (their card tokens) or
    buying and passing ("buy", "pass")."""

    puzzle_id: str
    criterion: str
    answer: str
    runner_up: str
    answer_points: tuple[float, ...]  # the player's relative points per deal after the answer
    runner_up_points: tuple[float, ...]  # ...after the runner-up

    @property
    def gains(self) -> tuple[float, ...]:
        """Per deal: the runner-up's relative points less the answer's (positive: the answer is better)."""
        return tuple(r - a for a, r in zip(self.answer_points, self.runner_up_points))

    @property
    def gain(self) -> Interval:
        return interval(self.gains)

    @property
    def standing(self) -> Standing:
        return standing_of(self.gain)


def standing_of(gain: Interval) -> Standing:
    """Better when the whole 95% interval of the gain is above 0, worse when below."""
    if gain.low is not None and gain.low > 0:
        return Standing.BETTER
    if gain.high is not None and gain.high < 0:
        return Standing.WORSE
    return Standing.INDISTINCT


# ---- the hidden cards ----------------------------------------------------------------------------


def unseen_cards(puzzle: Puzzle, rules: Rules) -> tuple[Card, ...]:
    """The deck for the table less the hand and every seen card (discard pile, melds, the offered
    card), in card order."""
    offered = [puzzle.offered] if puzzle.offered is not None else []
    left = (Counter(deck_cards(rules.deck_for(puzzle.players))) - Counter(puzzle.hand) - Counter(puzzle.seen)
            - Counter(offered))
    return tuple(sorted(left.elements(), key=Card.sort_key))


def hand_sizes_of_others(puzzle: Puzzle, rules: Rules) -> tuple[int, ...]:
    """Cards held by each seat (the player's 0): the deal, less the cards a seat has on the table
    (at least one). Buys the position does not record are not guessed."""
    deal = rules.round(puzzle.round).deal
    melded = [sum(len(meld.cards) for meld in melds) for melds in puzzle.table] or [0] * puzzle.players
    melded += [0] * (puzzle.players - len(melded))
    return tuple(0 if seat == puzzle.seat else max(deal - melded[seat], 1) for seat in range(puzzle.players))


def deal_hidden(puzzle: Puzzle, rules: Rules, seed: int, index: int) -> Deal:
    """Deal ``index`` of ``seed``: the unseen cards shuffled, the other hands dealt from them and
    the rest the stock (perhaps none: the table then turns the discard pile over). A pure function of the puzzle's position and its arguments."""
    rng = random.Random(f"{STREAM}/{puzzle.id}/{seed}/{index}")
    cards = list(unseen_cards(puzzle, rules))
    sizes = hand_sizes_of_others(puzzle, rules)
    if sum(sizes) > len(cards):  # buys the position does not record: the hands are not known
        raise InPlayError(f"puzzle {puzzle.id}: {len(cards)} unseen cards cannot fill hands of {sum(sizes)}")
    rng.shuffle(cards)
    hands = tuple(tuple(sorted((cards.pop() for _ in range(size)), key=Card.sort_key)) for size in sizes)
    return Deal(hands, tuple(cards), rng.randrange(2**63))


# ---- the round played on -------------------------------------------------------------------------


class _Decided:
    """The player's seat: the decision's play on the turn in hand, then a ``SimulatedPlayer``."""

    def __init__(self, player: SimulatedPlayer, play: Play) -> None:
        self.player, self.play = player, play
        self.decided = False

    def wants_discard(self, seat: SeatView, card: Card) -> bool:
        return self.player.wants_discard(seat, card)

    def wants_to_buy_at(self, seat: SeatView, card: Card) -> bool:
        return self.player.wants_to_buy_at(seat, card)

    def choose_play_after_draw(self, seat: SeatView) -> Play:
        if not self.decided:
            self.decided = True
            return self.play
        return self.player.choose_play_after_draw(seat)


class _Offered:
    """A seat whose first answer to an offer is the position's: the player's buy or pass, or the
    seat in turn declining the face-up card (as it did when the offer was made); then a
    ``SimulatedPlayer``."""

    def __init__(self, player: SimulatedPlayer, *, buys: bool | None = None, takes: bool | None = None) -> None:
        self.player, self.buys, self.takes = player, buys, takes

    def wants_discard(self, seat: SeatView, card: Card) -> bool:
        if self.takes is not None:
            takes, self.takes = self.takes, None
            return takes
        return self.player.wants_discard(seat, card)

    def wants_to_buy_at(self, seat: SeatView, card: Card) -> bool:
        if self.buys is not None:
            buys, self.buys = self.buys, None
            return buys
        return self.player.wants_to_buy_at(seat, card)

    def choose_play_after_draw(self, seat: SeatView) -> Play:
        return self.player.choose_play_after_draw(seat)


def play_offer(puzzle: Puzzle, rules: Rules, base: SimulatedPlayer, deal: Deal, buys: bool) -> Outcome:
    """A buy puzzle's round played on from the moment of the offer: the seat in turn (the one
    before the player) has declined the face-up card, which is offered to the player first; it
    buys or passes (``buys``), the others after it may buy what it passes, and the round goes on
    with the seat in turn's draw."""
    seats = puzzle.players
    in_turn = (puzzle.seat - 1) % seats
    player = base.for_one_round()
    policies: list[Policy] = [player] * seats
    policies[in_turn] = _Offered(player, takes=False)
    policies[puzzle.seat] = _Offered(player, buys=buys)
    hands = [list(hand) for hand in deal.hands]
    hands[puzzle.seat] = list(puzzle.hand)
    # Turns played: the player has played ``turn - 1``; the seat in turn as many when it sits
    # before the player, one fewer when the player is seat 0; the seats before it one more.
    base_turns = puzzle.turn - 1 - (puzzle.seat == 0)
    turns = [base_turns + (seat < in_turn) for seat in range(seats)]
    melds = [list(puzzle.table[seat]) if seat < len(puzzle.table) else [] for seat in range(seats)]
    buys_used = [puzzle.buys_used if seat == puzzle.seat else 0 for seat in range(seats)]
    assert puzzle.offered is not None
    table = Table(rules, puzzle.round, tuple(deck_cards(rules.deck_for(seats))), policies,
                  random.Random(deal.shuffle), hands, list(deal.stock), [*puzzle.discard_pile, puzzle.offered],
                  melds, buys_used, turns, current=in_turn, turn=sum(turns), offer_open=True,
                  last_buyer=puzzle.seat if puzzle.bought_last else None)
    return table.play()


def decision_play(puzzle: Puzzle, solver: RoundSolver, discard: Card, lays_down: bool) -> Play:
    """The play of the turn in hand: discard ``discard``, laying the contract down first when the
    discard table's row says it does (the best lay-down of the rest of the hand)."""
    if not lays_down:
        return Play((), (), discard)
    rest = list(puzzle.hand)
    rest.remove(discard)
    lay_down = solver.lay_down(tuple(rest))
    if not lay_down.leftover and solver.rules.discard_to_go_out == "never":
        lay_down = solver.lay_down(tuple(rest), meld_at_most=len(rest) - 1)
    if not lay_down.can_lay_down:
        raise InPlayError(f"puzzle {puzzle.id}: discarding {discard.token} does not lay down")
    return Play(lay_down.melds, (), discard)


def play_on(puzzle: Puzzle, rules: Rules, base: SimulatedPlayer, deal: Deal, play: Play) -> float:
    """The player's relative points when the round ends (``play_round``): its penalty points less
    the other seats' mean."""
    points = play_round(puzzle, rules, base, deal, play).penalty_points
    mine = points[puzzle.seat]
    return mine - (sum(points) - mine) / (puzzle.players - 1)


def play_round(puzzle: Puzzle, rules: Rules, base: SimulatedPlayer, deal: Deal, play: Play) -> Outcome:
    """The round played on from the puzzle's position with the hidden cards of ``deal`` and
    ``play`` as the turn in hand's play.

    The player's last card drawn is put back on the stock and drawn again (no offer of the face-up
    card: this turn's draw is made), so the table plays the turn through its own rules."""
    seats = puzzle.players
    player = base.for_one_round()
    policies: list[Policy] = [player] * seats
    policies[puzzle.seat] = _Decided(player, play)
    hands = [list(hand) for hand in deal.hands]
    hands[puzzle.seat] = list(puzzle.hand[:-1])
    turns = [puzzle.turn if seat < puzzle.seat else puzzle.turn - 1 for seat in range(seats)]
    melds = [list(puzzle.table[seat]) if seat < len(puzzle.table) else [] for seat in range(seats)]
    buys = [puzzle.buys_used if seat == puzzle.seat else 0 for seat in range(seats)]
    table = Table(rules, puzzle.round, tuple(deck_cards(rules.deck_for(seats))), policies,
                  random.Random(deal.shuffle), hands, list(deal.stock) + [puzzle.hand[-1]],
                  list(puzzle.discard_pile), melds, buys, turns, current=puzzle.seat, turn=sum(turns),
                  offer_open=False, last_buyer=puzzle.seat if puzzle.bought_last else None)
    return table.play()


def candidates(puzzle: Puzzle) -> tuple[dict[str, object], dict[str, object]]:
    """The accepted answer's row and the runner-up's, from the puzzle's stored margin."""
    if puzzle.kind is not Kind.DISCARD:
        raise InPlayError(f"puzzle {puzzle.id} is a {puzzle.kind} puzzle, not a discard puzzle")
    if not isinstance(puzzle.margin, DiscardMargin):
        raise InPlayError(f"puzzle {puzzle.id} has no top row and runner-up in its margin")
    return dict(puzzle.margin.top), dict(puzzle.margin.runner_up)


def judge(puzzle: Puzzle, deals: int = DEALS, seed: int = 0) -> PlayedOut:
    """The accepted answer against the runner-up, each played on over the same ``deals`` deals."""
    if puzzle.kind is Kind.BUY:
        return judge_buy(puzzle, deals, seed)
    top, runner = candidates(puzzle)
    rules = load_rules(puzzle.rules)
    solver = RoundSolver(rules, puzzle.round, rules.deck_for(puzzle.players), math.inf, work=WORK)
    base = SimulatedPlayer(solver)
    plays = [decision_play(puzzle, solver, Card.parse(str(row["card"])), bool(row["lays_down"]))
             for row in (top, runner)]
    points: tuple[list[float], list[float]] = ([], [])
    for index in range(deals):
        deal = deal_hidden(puzzle, rules, seed, index)
        for side, play in enumerate(plays):
            points[side].append(play_on(puzzle, rules, base, deal, play))
    return PlayedOut(puzzle.id, CRITERIA.get(puzzle.margin.criterion if isinstance(puzzle.margin, DiscardMargin) else "", "?"),
                     str(top["card"]), str(runner["card"]), tuple(points[0]), tuple(points[1]))


def judge_buy(puzzle: Puzzle, deals: int = DEALS, seed: int = 0) -> PlayedOut:
    """A buy puzzle's answer (buy or pass) against the other choice, each played on from the
    offer over the same ``deals`` deals (``play_offer``). Its criterion is the answer."""
    if puzzle.offered is None or not puzzle.answers or puzzle.answers[0] not in (BUY, PASS):
        raise InPlayError(f"puzzle {puzzle.id} has no offered card and answer to play on")
    rules = load_rules(puzzle.rules)
    if puzzle.players < 3:
        raise InPlayError(f"puzzle {puzzle.id}: an offer to buy needs 3 players or more")
    base = SimulatedPlayer(RoundSolver(rules, puzzle.round, rules.deck_for(puzzle.players), math.inf, work=WORK))
    answer = puzzle.answers[0]
    other = PASS if answer == BUY else BUY
    points: tuple[list[float], list[float]] = ([], [])
    for index in range(deals):
        deal = deal_hidden(puzzle, rules, seed, index)
        for side, choice in enumerate((answer, other)):
            outcome = play_offer(puzzle, rules, base, deal, choice == BUY)
            mine = outcome.penalty_points[puzzle.seat]
            points[side].append(mine - (sum(outcome.penalty_points) - mine) / (puzzle.players - 1))
    return PlayedOut(puzzle.id, answer, answer, other, tuple(points[0]), tuple(points[1]))


# ---- the report ----------------------------------------------------------------------------------


def summary(judgements: Sequence[PlayedOut]) -> list[tuple[str, dict[Standing, int], Interval]]:
    """Per criterion (in ``CRITERIA`` order, then all): the verdicts counted and the puzzles' mean
    gain with a 95% t interval over puzzles."""
    rows = []
    for name in [*CRITERIA.values(), "all"]:
        chosen = [j for j in judgements if name in ("all", j.criterion)]
        if not chosen:
            continue
        counts = Counter(j.standing for j in chosen)
        rows.append((name, {v: counts[v] for v in Standing}, interval([j.gain.mean for j in chosen])))
    return rows


def _bounds(gain: Interval) -> str:
    if gain.low is None or gain.high is None:
        return f"{gain.mean:+.1f}"
    return f"{gain.mean:+.1f} ({gain.low:+.1f}, {gain.high:+.1f})"


def describe(judgement: PlayedOut) -> str:
    return (f"{judgement.puzzle_id} {judgement.criterion:<10} {judgement.answer:>4} vs "
            f"{judgement.runner_up:<4} {judgement.standing.value:<10} gain {_bounds(judgement.gain)}")


def report(judgements: Sequence[PlayedOut]) -> list[str]:
    lines = ["criterion    n  better  worse  indistinct  mean gain (95% t over puzzles)"]
    for name, counts, gain in summary(judgements):
        n = sum(counts.values())
        lines.append(f"{name:<10} {n:>3}  {counts[Standing.BETTER]:>6}  {counts[Standing.WORSE]:>5}  "
                     f"{counts[Standing.INDISTINCT]:>10}  {_bounds(gain)}")
    return lines


def run(puzzles: Iterable[Puzzle], deals: int = DEALS, seed: int = 0) -> list[PlayedOut]:
    """Judge the discard and buy puzzles among ``puzzles``, printing each verdict as it comes, then
    the summary."""
    judgements = []
    for puzzle in puzzles:
        if puzzle.kind not in (Kind.DISCARD, Kind.BUY):
            continue
        try:
            judgement = judge(puzzle, deals, seed)
        except InPlayError as error:
            print(f"{puzzle.id} skipped: {error}", flush=True)
            continue
        judgements.append(judgement)
        print(describe(judgement), flush=True)
    for line in report(judgements):
        print(line)
    return judgements


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m puzzles.inplay SHARD... [--deals N] [--sample K] [--seed S]``."""
    import sys

    from puzzles.cli import run as puzzles

    return puzzles(["verify", "--in-play", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())
