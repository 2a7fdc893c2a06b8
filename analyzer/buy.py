"""Should you buy the offered discard? The advice's answer is a rule measured in play: buy it
when it is one of your outs, else pass (``BuyAnswer``). Beside it, for the player to read,
passing and buying compared over the rest of the round by a simulated player, the other players
going out as often as self-play says they do, by the score that decides games: the player's
points less the other players' mean points when the round ends (``buy_verdict``;
docs/advice.md defines the model and every number, docs/strength.md how the two were measured
against each other)."""

from __future__ import annotations

import collections
import contextlib
import enum
import math
import random
import statistics
from collections import Counter
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from analyzer.cards import ALL_CARD_KINDS, Card
from analyzer.result import LayDown, PlacedMeld
from analyzer.round_solver import SOLVER_THREADS, RoundSolver
from analyzer.rules import Rules
from analyzer.simulate import (
    GoingOut,
    PlayerState,
    SimulatedPlayer,
    cards_to_lay_down,
    extend_meld,
    going_out_chances,
)

DEFAULT_HORIZON: int | None = None  # None: the rest of the round; a number caps the own turns played
DEFAULT_TURN = 2  # the own turn of the round the player is about to play (the buy comes before it)
DEFAULT_PLAYERS = 4  # players at the table when the advice is not told
DEFAULT_ROLLOUTS = 120  # most simulated rounds per option when exact enumeration is too dear
MIN_ROLLOUTS = 40  # rounds before the simulation may stop early with a settled verdict...
SETTLE_EVERY = 10  # ...looked at this often...
SETTLED = 3.0  # ...when the difference is this many standard errors clear of the margin
MAX_HORIZON = 60
MAX_TURN = 60
MAX_OWN_TURNS = 60  # a round nobody has gone out of by then is scored as it stands...
MIN_SURVIVAL = 0.002  # ...as is one this unlikely to last any longer
MAX_ROLLOUTS = 100_000
MARGIN_POINTS = 3.0  # a verdict needs the compared points to differ by more than this...
MARGIN_SHARE = 0.10  # ...or by this share of passing's compared points (their size), whichever is larger
EXACT_LIMIT = 400  # most draw sequences the exact enumeration may visit (about a second)
ROLLOUT_THREADS = SOLVER_THREADS  # simulated rounds played at once, as the solver's hands elsewhere

T = TypeVar("T")
R = TypeVar("R")


class AdviceError(ValueError):
    """A question the advice cannot answer as asked: a buy the rules forbid, a bad horizon..."""


class BuyObjective(enum.Enum):
    """What the verdict compares between passing and buying, at the end of the round."""

    AGAINST_TABLE = "against the table"  # the player's points less the other players' mean points
    OWN_POINTS = "own points"  # the player's points alone (the verdict before the table counted)


class Verdict(enum.Enum):
    """What to do with an offered discard."""

    BUY = "buy"
    PASS = "pass"
    CLOSE_CALL = "close call"
    UNDECIDED = "undecided"  # the time budget ran out before a verdict could be reached


@dataclass(frozen=True)
class BuyOption:
    """Passing or buying, played to the end of the round (or the horizon)."""

    hand_size: int  # cards held when the next turn starts (buying: hand + offered + penalty)
    lay_down_probability: float  # of having laid the contract down when the round ends
    expected_points: float  # penalty points caught in hand when the round ends (0: went out first)
    go_out_probability: float  # of going out first
    opponent_points: float = math.nan  # the other players' mean points when the round ends

    @property
    def relative_points(self) -> float:
        """The player's points less the others' mean: the score that decides games (lower is better)."""
        return self.expected_points - self.opponent_points

    def to_dict(self) -> dict[str, Any]:
        return {
            "hand_size": self.hand_size,
            "lay_down_probability": _rounded(self.lay_down_probability, 4),
            "go_out_probability": _rounded(self.go_out_probability, 4),
            "expected_points": _rounded(self.expected_points, 2),
            "opponent_points": _rounded(self.opponent_points, 2),
            "relative_points": _rounded(self.relative_points, 2),
        }


def _rounded(value: float, digits: int) -> float | None:
    """For JSON: None for a figure the time budget left unknown (NaN)."""
    return None if math.isnan(value) else round(value, digits)


@dataclass(frozen=True)
class BuyAdvice:
    """Passing and buying the offered discard compared, with a verdict and its reason."""

    offered: Card
    penalty_cards: int  # taken blind from the stock with the offered card
    passing: BuyOption
    buying: BuyOption
    verdict: Verdict
    difference: float  # buying's compared points less passing's (negative: buying does better)
    margin: float  # |difference| at most this is a close call
    std_error: float | None  # of the difference (Monte Carlo); None when exact
    reason: str
    horizon: int | None  # own turns played at most; None: to the end of the round
    rollouts: int | None  # simulated rounds; None when exact
    seed: int
    method: str  # "exact" or "monte-carlo"
    turn: int  # the own turn of the round about to be played
    players: int  # at the table, for how soon the others go out
    # Not in ``to_dict``: the advice's ``buy_finished`` and ``unfinished`` carry them.
    finished: bool = True  # False: the time budget stopped the simulation early (``stopped`` says where)
    stopped: str = ""  # in words, when not finished
    objective: BuyObjective = BuyObjective.AGAINST_TABLE  # what ``difference`` and ``margin`` compare

    def why_still(self) -> str:
        """The verdict explained where its reason's last figure points the other way (``why_still``)."""
        return why_still(self.verdict, self.objective, self.passing, self.buying, self.difference)

    def to_dict(self) -> dict[str, Any]:
        return {
            "offered": self.offered.token,
            "penalty_cards": self.penalty_cards,
            "passing": self.passing.to_dict(),
            "buying": self.buying.to_dict(),
            "verdict": self.verdict.value,
            "difference": _rounded(self.difference, 2),
            "margin": _rounded(self.margin, 2),
            "std_error": None if self.std_error is None else round(self.std_error, 2),
            "reason": self.reason,
            "horizon": self.horizon,
            "turn": self.turn,
            "players": self.players,
            "rollouts": self.rollouts,
            "seed": self.seed,
            "method": self.method,
            "objective": self.objective.value,
        }


@dataclass(frozen=True)
class BuyAnswer:
    """The advice's answer to an offered discard: BUY when the card is one of the hand's outs
    (it brings the contract a card closer), else PASS; in a go-out round, where laying down
    melds every card, the penalty cards too, PASS unless buying is free; and BUY whatever is
    offered when the contract needs more cards than the hand holds after its draw.
    Measured in duplicate play, this rule beat buying by the simulated verdict
    (docs/strength.md, "The buy verdict measured"), so it is the advice; the verdict's table is
    shown beside it for the player to read."""

    offered: Card
    verdict: Verdict  # BUY or PASS
    cards_away: int | None  # of the hand before the offer; None: the contract is out of reach
    reason: str

    @property
    def buys(self) -> bool:
        return self.verdict is Verdict.BUY

    def to_dict(self) -> dict[str, Any]:
        return {"offered": self.offered.token, "verdict": self.verdict.value, "cards_away": self.cards_away,
                "reason": self.reason}


def answer_buy(offered: Card, hand_size: int, cards_away: int | None, outs: Iterable[Card], rules: Rules,
               round_number: int) -> BuyAnswer:
    """The advice's answer for a hand of ``hand_size`` cards before its draw, ``cards_away``
    from the round's contract, whose outs are ``outs``.

    >>> from analyzer.cards import parse_cards
    >>> from analyzer.rules import preset
    >>> answer_buy(Card.parse("9H"), 7, 2, parse_cards("9H JK"), preset("progressive"), 2).reason
    'The 9♥ is one of your outs: it takes you from 2 cards away to 1.'
    >>> answer_buy(Card.parse("2D"), 7, 0, (), preset("progressive"), 2).reason
    'You can lay down already: the 2♦ is not needed, and buying adds 2 cards to your hand.'
    """
    penalty = rules.buy_penalty_in(round_number)
    extra = 1 + penalty
    adds = f"buying adds {extra} card{'s' if extra != 1 else ''} to your hand"
    is_out = offered in set(outs) and bool(cards_away)
    need = cards_to_lay_down(rules, round_number)
    if hand_size + 1 < need and cards_away != 0:  # some cards away, or out of reach without buying
        return BuyAnswer(offered, Verdict.BUY, cards_away,
                         f"Laying down takes {need} cards and you will hold {hand_size + 1} after your draw: only "
                         f"buying gets you down, and {adds}"
                         + (f" (the {offered.face} is one of your outs)." if is_out else "."))
    if is_out and rules.round(round_number).go_out and penalty:
        return BuyAnswer(offered, Verdict.PASS, cards_away,
                         f"The {offered.face} is one of your outs, but in this go-out round laying down melds "
                         f"every card you hold: {adds}, {'the penalty cards' if penalty > 1 else 'the penalty card'} "
                         f"to be melded too.")
    if is_out:
        assert cards_away
        closer = ("it completes your contract" if cards_away == 1 else
                  f"it takes you from {cards_away} cards away to {cards_away - 1}")
        return BuyAnswer(offered, Verdict.BUY, cards_away, f"The {offered.face} is one of your outs: {closer}.")
    if cards_away == 0:
        why = f"You can lay down already: the {offered.face} is not needed, and {adds}."
    elif cards_away is None:
        why = f"Your contract is out of reach with these cards and the {offered.face} does not change that."
    else:
        why = (f"The {offered.face} is not one of your outs: you stay {cards_away} card{'s' if cards_away != 1 else ''} "
               f"away, and {adds}.")
    return BuyAnswer(offered, Verdict.PASS, cards_away, why)


def check_buys_held(rules: Rules, round_number: int, buys_used: int) -> None:
    """The buys a player has made this round: 0 or more, and no more than the round allows
    (where buying is unlimited, than the deck has cards for)."""
    if buys_used < 0:
        raise AdviceError(f"buys used must be 0 or more, not {buys_used}")
    most = rules.buys_held_at_most(round_number)
    if buys_used <= most:
        return
    if rules.buys_in(round_number) is not None:
        raise AdviceError(f"{_buys_allowed(rules, round_number)}, not the {buys_used} used")
    raise AdviceError(f"no hand of round {round_number} of {rules.name!r} holds the cards of {buys_used} buys: "
                      f"the largest deck ({rules.deck_for(None).cards} cards) has cards for {most} buys beyond "
                      "the deal")


def _buys_allowed(rules: Rules, round_number: int) -> str:
    allowed = rules.buys_in(round_number)
    if allowed == 0:
        return f"{rules.name!r} allows no buying in round {round_number}"
    return f"{rules.name!r} allows {allowed} buy{'s' if allowed != 1 else ''} in round {round_number}"


def check_buy_allowed(rules: Rules, round_number: int, buys_used: int, bought_last: bool) -> None:
    allowed = rules.buys_in(round_number)
    if allowed == 0:
        raise AdviceError(_buys_allowed(rules, round_number))
    check_buys_held(rules, round_number, buys_used)
    if allowed is not None and buys_used >= allowed:
        raise AdviceError(f"{_buys_allowed(rules, round_number)} and you have used {buys_used}")
    if bought_last and rules.no_consecutive_buys:
        raise AdviceError(f"{rules.name!r} does not let the same player buy twice in succession")


def check_simulation(horizon: int | None, rollouts: int, turn: int = DEFAULT_TURN) -> None:
    if horizon is not None and not 1 <= horizon <= MAX_HORIZON:
        raise AdviceError(f"the horizon is 1 to {MAX_HORIZON} of your turns, not {horizon}")
    if not 1 <= rollouts <= MAX_ROLLOUTS:
        raise AdviceError(f"rollouts must be 1 to {MAX_ROLLOUTS}, not {rollouts}")
    if not 1 <= turn <= MAX_TURN:
        raise AdviceError(f"the turn is 1 to {MAX_TURN}, not {turn}")


def table_players(rules: Rules, players: int | None) -> int:
    """The player count the others' going out is measured for: the given one, else
    ``DEFAULT_PLAYERS`` within the rule set's range."""
    if players is not None:
        return players
    low = min(deck.min_players for deck in rules.decks)
    high = max(deck.max_players for deck in rules.decks)
    return min(max(DEFAULT_PLAYERS, low), high)


# ---- the rest of the round, one seat played, the others going out by chance ----------------------


@dataclass(frozen=True)
class _Score:
    """One simulated stock played out, the other players' going out weighed exactly."""

    points: float  # expected points caught in hand when the round ends (0 once the player is out)
    went_out: float  # chance it goes out first
    laid_down: float  # chance it has laid down when the round ends
    others: float  # the other players' expected mean points when the round ends

    def compared(self, objective: BuyObjective) -> float:
        return self.points - self.others if objective is BuyObjective.AGAINST_TABLE else self.points


class _Rest:
    """The buy verdict's model of the rest of the round (docs/advice.md): the player is a
    ``SimulatedPlayer`` drawing from a shuffled stock of the unseen cards; the other players
    discard unseen cards, which it may buy as the rules allow (all but the player just before
    it, whose discard it could take in turn), and go out with the chances self-play measured.
    When the round ends each other player still in holds the points self-play measured for a
    player still in play on that turn; the one who went out, if not the player, holds none.

    Whether another player has gone out does not depend on the player's cards, so a simulated
    stock is played until the player goes out, and every own turn is weighed by the chance that
    nobody else has gone out before it (``survival``) instead of drawing that moment at random:
    the same answer with far less noise."""

    def __init__(self, player: SimulatedPlayer, going_out: GoingOut, players: int, turn: int,
                 horizon: int | None) -> None:
        self.player, self.horizon = player, horizon
        self.rules = player.rules
        self.penalty = self.rules.buy_penalty_in(player.round_number)
        self.offers = max(0, players - 2)  # discards between own turns it may buy
        # When another player goes out the rest of the others hold their points; the winner none.
        self.share = (players - 2) / (players - 1)
        # survival[j]: nobody else has gone out before own turn j + 1 (the player just before
        # plays first; between two own turns every other player plays once).
        survival = [1 - going_out.chance(turn)]
        cap = min(horizon or MAX_OWN_TURNS, MAX_OWN_TURNS)
        while len(survival) < cap and survival[-1] > MIN_SURVIVAL:
            now = turn + len(survival) - 1
            survival.append(survival[-1] * (1 - going_out.chance(now)) ** (players - 2)
                            * (1 - going_out.chance(now + 1)))
        self.survival = tuple(survival)
        # held[j]: the points another player still in holds when the round ends at own turn j + 1
        # (the last: after the last turn played).
        self.held = tuple(going_out.points(turn + j) for j in range(len(survival) + 1))

    def play(self, player: SimulatedPlayer, state: PlayerState, pile: Sequence[Card], buys_left: int | None,
             bought_last: bool) -> _Score:
        """One option on one simulated stock, played by ``player`` (``self.player`` or one of its
        copies ``for_one_round``): own draws and penalty cards from its front, the others'
        discards from its back."""
        front, back = 0, len(pile)
        points = laid = others = 0.0
        alive = 1.0  # nobody else has gone out yet
        last = len(self.survival)  # the turn the round is scored at if nobody goes out
        for played, survive in enumerate(self.survival):
            if player.solver.expired:
                break  # past the deadline: this round will not be counted (``buy_verdict``)
            # Another player goes out before this turn: the round ends as the hand stands.
            held = player.solver.points(state.held)
            points += (alive - survive) * held
            laid += (alive - survive) * state.laid_down
            others += (alive - survive) * self.share * self.held[played]
            alive = survive
            if front >= back:
                last = played
                break  # the stock is spent: the round is scored as it stands
            drawn = pile[front]
            front += 1
            turns_left = None if self.horizon is None else self.horizon - played
            result = player.play_turn(state, drawn, turns_left)
            state = result.state
            if result.went_out:  # every other player is caught with its hand
                return _Score(points, alive, laid + alive, others + alive * self.held[played])
            for _ in range(self.offers if played + 1 < len(self.survival) else 0):
                if back - front <= self.penalty:
                    break
                back -= 1
                card = pile[back]
                if ((buys_left is None or buys_left > 0) and not (bought_last and self.rules.no_consecutive_buys)
                        and player.wants_to_buy(state, card, self.penalty)):
                    state = player.with_cards(state, (card,) + tuple(pile[front:front + self.penalty]))
                    front += self.penalty
                    buys_left = None if buys_left is None else buys_left - 1
                    bought_last = True
        # The horizon, or so late that the round is all but surely over: scored as it stands.
        return _Score(points + alive * player.solver.points(state.held), 0.0, laid + alive * state.laid_down,
                      others + alive * self.held[last])


def _margin(pass_points: float) -> float:
    """A close call's margin for passing's compared points: negative ones (against the table,
    passing that makes the others pay) are as large as positive ones."""
    return max(MARGIN_POINTS, MARGIN_SHARE * abs(pass_points))


def _std_error(passing: Sequence[float], buying: Sequence[float]) -> float | None:
    """Standard error of the mean difference, buying less passing, round by round."""
    if len(passing) < 2:
        return None
    return statistics.stdev([b - p for b, p in zip(buying, passing, strict=True)]) / math.sqrt(len(passing))


class _RunningDifference:
    """Running sums of the rounds played so far, for the settle check: each check costs the
    same however many rounds there are (not a pass over all of them)."""

    def __init__(self) -> None:
        self.count = 0
        self.pass_total = self.total = self.squares = 0.0

    def add(self, passing: float, buying: float) -> None:
        difference = buying - passing
        self.count += 1
        self.pass_total += passing
        self.total += difference
        self.squares += difference * difference

    def settled(self) -> bool:
        """Whether more rounds would hardly change the verdict: the mean difference lies more
        than ``SETTLED`` standard errors clear of the margin, on whichever side it is."""
        if self.count < 2:
            return False
        mean = self.total / self.count
        variance = max(0.0, (self.squares - self.count * mean * mean) / (self.count - 1))
        error = math.sqrt(variance / self.count)
        return abs(abs(mean) - _margin(self.pass_total / self.count)) > SETTLED * error


def _tree_size(kinds: int, turns: int, blind: int) -> int:
    """Draw sequences an exact enumeration visits: one solver call each, at most."""
    size: int = kinds ** (blind + turns)
    return size


def _monte_carlo(analyser: RoundSolver, player: SimulatedPlayer, rest: _Rest, stock: Counter[Card],
                 hands: tuple[tuple[Card, ...], tuple[Card, ...]], penalty: int, rollouts: int, seed: int,
                 buys: tuple[int | None, int | None], bought_last: bool, objective: BuyObjective,
                 ) -> tuple[tuple[float, float, float, float], tuple[float, float, float, float], int, float | None, str]:
    """Passing and buying played over ``rollouts`` shuffled stocks (``buy_verdict``'s Monte Carlo
    branch): (passing, buying, rounds used, standard error, why it stopped or "")."""
    cards, bought = hands
    pass_buys, buys_left = buys
    stopped = ""
    # Common random numbers: in each round both options see the same stock, the same
    # discards and the same moment another player goes out; buying takes its penalty cards
    # from the bottom of that stock, which passing never reaches. The comparison is then far
    # less noisy than two independent samples.
    rng = random.Random(seed)
    pile = [card for card in ALL_CARD_KINDS for _ in range(stock[card])]
    scores: dict[str, list[_Score]] = {"pass": [], "buy": []}
    running = _RunningDifference()
    start_pass, start_buy = player.start(cards), player.start(bought)

    def shuffled_stocks() -> Iterator[tuple[Card, ...]]:
        for _ in range(rollouts):
            rng.shuffle(pile)
            yield tuple(pile)

    def both_options(shuffled: tuple[Card, ...]) -> tuple[_Score, _Score]:
        # Played by a copy of the player with plans of its own: a round's figures are then
        # the same whichever rounds were played before it or beside it.
        own = player.for_one_round()
        stock_order, blind = shuffled[:len(shuffled) - penalty], shuffled[len(shuffled) - penalty:]
        return (rest.play(own, start_pass, stock_order, pass_buys, bought_last),
                rest.play(own, own.with_cards(start_buy, blind), stock_order, buys_left, True))

    done = 0
    # Closed on the way out (a settled verdict, the deadline, Ctrl-C): no round is left running.
    with contextlib.closing(_side_by_side(both_options, shuffled_stocks(), stop=lambda: analyser.expired)) as rounds:
        for pass_score, buy_score in rounds:
            if analyser.expired:
                break  # a solve in this round may have stopped at the deadline: the round is not counted
            done += 1
            scores["pass"].append(pass_score)
            scores["buy"].append(buy_score)
            running.add(pass_score.compared(objective), buy_score.compared(objective))
            if done >= MIN_ROLLOUTS and done % SETTLE_EVERY == 0 and running.settled():
                break
    used_rollouts = len(scores["pass"])
    if analyser.expired:
        stopped = (f"the buy verdict stopped after {used_rollouts} of at most {rollouts} simulated rounds "
                   f"at the time limit" + ("" if used_rollouts >= MIN_ROLLOUTS else
                                           f" (fewer than the {MIN_ROLLOUTS} it takes to settle a verdict)"))
    if not used_rollouts:
        passing = buying = (math.nan, math.nan, math.nan, math.nan)
    else:
        passing, buying = (_summary(scores[option]) for option in ("pass", "buy"))
    std_error = _std_error([s.compared(objective) for s in scores["pass"]],
                           [s.compared(objective) for s in scores["buy"]])
    return passing, buying, used_rollouts, std_error, stopped


def buy_verdict(analyser: RoundSolver, cards: tuple[Card, ...], offered: Card, unseen: dict[Card, int],
                horizon: int | None, rollouts: int, seed: int, *, players: int | None = None,
                turn: int = DEFAULT_TURN, buys_used: int = 0, bought_last: bool = False,
                objective: BuyObjective = BuyObjective.AGAINST_TABLE) -> BuyAdvice:
    """Passing and buying ``offered`` compared for the hand ``cards`` before its draw, by
    ``objective``: the player's points less the others' mean (the default), or its own alone.

    A pure function of its inputs whenever it is ``finished``: the rollouts are seeded, the
    other players' chances come from a table or from self-play bounded by deterministic work,
    and the simulated player's solves are the analyser's (bounded by deterministic work when
    the caller asks, ``analyzer.deterministic_work``). Seconds only stop it: the verdict then
    says so (``finished`` False, ``stopped``), and a caller that needs reproducible verdicts
    (the puzzles) rejects it.
    """
    rules = analyser.rules
    round_number = analyser.round_number
    penalty = rules.buy_penalty_in(round_number)
    allowed = rules.buys_in(round_number)
    buys_left = None if allowed is None else max(0, allowed - buys_used - 1)
    seats = table_players(rules, players)
    stock = Counter({card: n for card, n in unseen.items() if n})
    bought = cards + (offered,)
    player = SimulatedPlayer(analyser)
    with analyser.deadline.paused() if analyser.deadline is not None else contextlib.nullcontext():
        going_out = going_out_chances(rules, round_number, seats)  # measured once a process for house rules
    rest = _Rest(player, going_out, seats, turn, horizon)
    std_error: float | None
    stopped = ""
    if horizon == 1 and _tree_size(len(stock), 1, penalty) <= EXACT_LIMIT:
        method, used_rollouts, std_error = "exact", None, None
        passing = _exact(rest, player.start(cards), stock, 0)
        buying = _exact(rest, player.start(bought), stock, penalty)
        if analyser.expired:
            stopped = ("the buy verdict was not finished within the time limit: the exact count of every "
                       "draw was cut short")
            passing = buying = (math.nan, math.nan, math.nan, math.nan)
    else:
        method = "monte-carlo"
        passing, buying, used_rollouts, std_error, stopped = _monte_carlo(
            analyser, player, rest, stock, (cards, bought), penalty, rollouts, seed,
            (None if allowed is None else allowed - buys_used, buys_left), bought_last, objective)

    def compared(option: tuple[float, float, float, float]) -> float:
        return option[2] - option[3] if objective is BuyObjective.AGAINST_TABLE else option[2]

    difference = compared(buying) - compared(passing)
    margin = _margin(compared(passing))
    verdict = Verdict.BUY if difference < -margin else Verdict.PASS if difference > margin else Verdict.CLOSE_CALL
    if stopped and (method == "exact" or used_rollouts == 0):
        verdict = Verdict.UNDECIDED
    passing_option = BuyOption(len(cards), passing[0], passing[2], passing[1], passing[3])
    buying_option = BuyOption(len(bought) + penalty, buying[0], buying[2], buying[1], buying[3])
    mean_stock = sum(rules.points_of(c) * n for c, n in stock.items()) / max(1, sum(stock.values()))
    reason = stopped[0].upper() + stopped[1:] + "." if verdict is Verdict.UNDECIDED else \
        _reason(analyser, cards, offered, penalty, mean_stock, horizon, passing_option, buying_option)
    return BuyAdvice(offered, penalty, passing_option, buying_option, verdict, difference, margin,
                     std_error, reason, horizon, used_rollouts, seed, method, turn, seats,
                     finished=not stopped, stopped=stopped, objective=objective)


def _side_by_side(play: Callable[[T], R], items: Iterable[T], stop: Callable[[], bool]) -> Generator[R, None, None]:
    """``play`` of each item, in the items' order, ``ROLLOUT_THREADS`` at a time: CP-SAT lets go
    of the interpreter while it solves, so two simulated rounds run side by side (the machines
    here have two cores). Only a few items are started ahead of the one awaited, so that a
    caller that stops early (a settled verdict, Ctrl-C) wastes little; ``stop`` ends the
    starting of more (the deadline)."""
    with ThreadPoolExecutor(max_workers=ROLLOUT_THREADS) as pool:
        started: collections.deque[Future[R]] = collections.deque()
        try:
            for item in items:
                if stop():
                    break
                started.append(pool.submit(play, item))
                if len(started) >= 2 * ROLLOUT_THREADS:
                    yield started.popleft().result()
            while started:
                yield started.popleft().result()
        finally:
            for future in started:
                future.cancel()


def _summary(scores: Sequence[_Score]) -> tuple[float, float, float, float]:
    """(chance of having laid down, chance of going out first, mean points, the others' mean points)."""
    return (statistics.fmean(s.laid_down for s in scores), statistics.fmean(s.went_out for s in scores),
            statistics.fmean(s.points for s in scores), statistics.fmean(s.others for s in scores))


def _exact(rest: _Rest, state: PlayerState, stock: Counter[Card], blind: int) -> tuple[float, float, float, float]:
    """A horizon of one own turn, exactly: (chance of laying down, of going out, mean points, the
    others' mean points). The player just before may go out first; else every draw (after
    ``blind`` penalty cards) weighted by its unseen copies."""
    player = rest.player
    total = sum(stock.values())
    if blind:
        laid = out = points = others = 0.0
        for card in [c for c in ALL_CARD_KINDS if stock[c]]:
            weight = stock[card] / total
            stock[card] -= 1
            a, b, c, d = _exact(rest, player.with_cards(state, (card,)), stock, blind - 1)
            stock[card] += 1
            laid, out, points, others = laid + weight * a, out + weight * b, points + weight * c, others + weight * d
        return laid, out, points, others
    first = 1 - rest.survival[0]  # the player just before goes out first
    laid = out = points = 0.0
    for card in [c for c in ALL_CARD_KINDS if stock[c]]:
        weight = stock[card] / total
        result = player.play_turn(state, card, 1)
        laid += weight * result.state.laid_down
        out += weight * result.went_out
        points += weight * (0 if result.went_out else player.solver.points(result.state.held))
    held = player.solver.points(state.held)
    # As ``_Rest.play``: the others hold their points of this turn when the round ends before it
    # or by the player going out on it, else those of the turn after (the round scored as it stands).
    others = first * rest.share * rest.held[0] + (1 - first) * (out * rest.held[0] + (1 - out) * rest.held[1])
    return (1 - first) * laid, (1 - first) * out, first * held + (1 - first) * points, others


# ---- the reason -----------------------------------------------------------------------------------


def _reason(analyser: RoundSolver, cards: tuple[Card, ...], offered: Card, penalty: int, mean_stock: float,
            horizon: int | None, passing: BuyOption, buying: BuyOption) -> str:
    """One sentence: what the offered card does for the hand, what the extra cards cost, and
    how the chance of going out first changes."""
    rules = analyser.rules
    before = analyser.lay_down(cards, before_draw=True)
    after = analyser.lay_down(cards + (offered,), before_draw=True)
    penalty_points = penalty * mean_stock
    blind = (f"the penalty card costs {penalty_points:.1f} points on average" if penalty == 1 else
             f"the {penalty} penalty cards cost {penalty_points:.1f} points on average" if penalty else
             "there is no penalty card")
    extra = 1 + penalty
    adds = (f"buying adds {extra} card{'s' if extra != 1 else ''} worth "
            f"{rules.points_of(offered) + penalty_points:.1f} points on average")
    when = "by the end of the round" if horizon is None else (
        f"within {horizon} turns" if horizon != 1 else "on your next turn")
    chance = (f"your chance of going out first goes from {passing.go_out_probability:.0%} "
              f"to {buying.go_out_probability:.0%}" if passing.go_out_probability or buying.go_out_probability
              else f"your chance of laying down {when} goes from {passing.lay_down_probability:.0%} "
                   f"to {buying.lay_down_probability:.0%}" if passing.lay_down_probability or buying.lay_down_probability
              else f"you cannot lay down {when} either way")
    need = cards_to_lay_down(rules, analyser.round_number)
    discard = " (with the discard that ends the turn)" if need > sum(
        spec.size for spec in rules.round(analyser.round_number).contract) else ""
    short = (f"This round needs more cards than are dealt: laying down takes {need} cards{discard} and you "
             f"will hold {len(cards) + 1} after your draw, so only buying gets you down; "
             if len(cards) + 1 < need else "")
    held = Counter(cards)
    whole = [meld for meld in before.melds or before.with_missing if not Counter(meld.cards) - held]
    extends = _extended_meld(whole, offered, analyser)
    what = _what_it_does(before, after, offered, extends, penalty, blind, adds, chance)
    return short + what[0].lower() + what[1:] if short else what


def _what_it_does(before: LayDown, after: LayDown, offered: Card, extends: PlacedMeld | None, penalty: int,
                  blind: str, adds: str, chance: str) -> str:
    if before.can_lay_down:
        what = f"You can lay down already, so the {offered.face} is not needed for the contract"
        if extends:
            what += f" (it would extend the {extends.kind.value} {extends.describe()})"
        return f"{what}; {adds}, and {chance}."
    if after.can_lay_down:
        meld = _meld_with(after.melds, offered)
        # In a go-out round every card goes down at once: the penalty cards too.
        then = (", so you lay down on your next turn" if not after.go_out or not penalty else
                ", but in this go-out round the penalty cards must be melded too")
        return (f"Buying the {offered.face} completes your contract"
                + (f" (the {meld.kind.value} {meld.describe()})" if meld else "")
                + f"{then}; {blind}, and {chance}.")
    if after.cards_away is not None and before.cards_away is None:
        return (f"The {offered.face} makes your contract reachable ({after.cards_away} cards away); "
                f"{blind}, and {chance}.")
    if after.cards_away is not None and before.cards_away is not None and after.cards_away < before.cards_away:
        meld = _meld_with(after.with_missing, offered)
        return (f"The {offered.face} takes you from {before.cards_away} cards away to {after.cards_away}"
                + (f" (it goes into the {meld.kind.value} {meld.describe()})" if meld else "")
                + f"; {blind}, and {chance}.")
    if extends:
        return (f"The {offered.face} extends the {extends.kind.value} {extends.describe()} but brings you "
                f"no closer to your contract; {adds}, and {chance}.")
    return f"The {offered.face} fits none of your melds; {adds}, and {chance}."


def why_still(verdict: Verdict, objective: BuyObjective, passing: BuyOption, buying: BuyOption,
              difference: float) -> str:
    """Why the verdict stands when the chance the reason ends on (of going out first, else of
    laying down) moves the other way: a buy that makes going out first rarer, a pass that makes
    it likelier. The verdict counts points when the round ends, not that chance; this says so and
    what buying does to those points. Empty when the chance agrees with the verdict.

    >>> passing = BuyOption(10, 0.53, 25.7, 0.07, 13.0)
    >>> buying = BuyOption(12, 0.94, 14.2, 0.02, 12.6)
    >>> print(why_still(Verdict.BUY, BuyObjective.AGAINST_TABLE, passing, buying, -11.1))
    Still a buy: going out first is not what the verdict counts. It counts the points you hold when the round ends less the other players' mean (lower is better): buying, you lay down in 94% of rounds instead of 53% and hold 14.2 points on average instead of 25.7, 11.1 points better off against the table.
    """
    if verdict not in (Verdict.BUY, Verdict.PASS) or math.isnan(difference):
        return ""
    buys = verdict is Verdict.BUY
    going_out = (round(passing.go_out_probability * 100), round(buying.go_out_probability * 100))
    laying = (round(passing.lay_down_probability * 100), round(buying.lay_down_probability * 100))
    # The chance ``_reason`` quotes: going out first when either is above 0, else laying down.
    quoted, (before, after) = (("going out first", going_out) if passing.go_out_probability or buying.go_out_probability
                               else ("laying down", laying))
    if not (after < before if buys else after > before):
        return ""
    table = objective is BuyObjective.AGAINST_TABLE
    counts = ("the points you hold when the round ends less the other players' mean (lower is better)" if table
              else "the points you hold when the round ends (lower is better)")
    done = []
    if quoted != "laying down" and (laying[1] > laying[0] if buys else laying[1] < laying[0]):
        done.append(f"lay down in {laying[1]}% of rounds instead of {laying[0]}%")
    done.append(f"hold {buying.expected_points:.1f} points on average instead of {passing.expected_points:.1f}")
    others = ""
    if table and (buying.expected_points >= passing.expected_points if buys
                  else buying.expected_points <= passing.expected_points):
        others = (f", and the others hold {buying.opponent_points:.1f} instead of "
                  f"{passing.opponent_points:.1f}")
    side = "better" if buys else "worse"
    return (f"Still a {verdict.value}: {quoted} is not what the verdict counts. It counts {counts}: buying, "
            f"you {' and '.join(done)}{others}, {abs(difference):.1f} points {side} off"
            f"{' against the table' if table else ''}.")


def _meld_with(melds: Sequence[PlacedMeld], card: Card) -> PlacedMeld | None:
    return next((meld for meld in melds if card in meld.cards), None)


def _extended_meld(melds: Sequence[PlacedMeld], card: Card, analyser: RoundSolver) -> PlacedMeld | None:
    """The first of the hand's planned melds, of cards it holds, that the card would extend."""
    return next((meld for meld in melds if extend_meld(meld, card, analyser.rules) is not None), None)


__all__ = [
    "DEFAULT_HORIZON",
    "DEFAULT_ROLLOUTS",
    "DEFAULT_TURN",
    "AdviceError",
    "BuyAdvice",
    "BuyAnswer",
    "BuyObjective",
    "BuyOption",
    "Verdict",
    "answer_buy",
    "buy_verdict",
    "check_buy_allowed",
    "check_simulation",
    "why_still",
]
