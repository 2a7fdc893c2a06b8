"""Should you buy the offered discard? Passing and buying compared by a simulated player
(docs/advice.md defines the model and every number)."""

from __future__ import annotations

import enum
import math
import random
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from analyzer.cards import ALL_CARD_KINDS, Card, Rank
from analyzer.result import LayDown, PlacedMeld
from analyzer.round_solver import RoundSolver
from analyzer.rules import MeldKind, Rules

DEFAULT_HORIZON = 3  # the player's next own turns the buy comparison looks at
DEFAULT_ROLLOUTS = 120  # most simulated deals per option when exact enumeration is too dear
MIN_ROLLOUTS = 40  # deals before the simulation may stop early with a settled verdict...
SETTLE_EVERY = 20  # ...looked at this often...
SETTLED = 3.0  # ...when the difference is this many standard errors clear of the margin
MAX_HORIZON = 10
MAX_ROLLOUTS = 100_000
MARGIN_POINTS = 3.0  # a verdict needs the expected points to differ by at least this...
MARGIN_SHARE = 0.10  # ...or by this share of passing's expected points, whichever is larger
EXACT_LIMIT = 400  # most draw sequences the exact enumeration may visit (about a second)


class AdviceError(ValueError):
    """A question the advice cannot answer as asked: a buy the rules forbid, a bad horizon..."""


class Verdict(enum.Enum):
    """What to do with an offered discard."""

    BUY = "buy"
    PASS = "pass"
    CLOSE_CALL = "close call"



@dataclass(frozen=True)
class BuyOption:
    """Passing or buying, over the player's next ``horizon`` own turns."""

    hand_size: int  # cards held when the next turn starts (buying: hand + offered + penalty)
    lay_down_probability: float  # of having laid the contract down by the horizon
    expected_points: float  # penalty points held at the horizon (leftover if laid down)

    def to_dict(self) -> dict[str, Any]:
        return {
            "hand_size": self.hand_size,
            "lay_down_probability": round(self.lay_down_probability, 4),
            "expected_points": round(self.expected_points, 2),
        }


@dataclass(frozen=True)
class BuyAdvice:
    """Passing and buying the offered discard compared, with a verdict and its reason."""

    offered: Card
    penalty_cards: int  # taken blind from the stock with the offered card
    passing: BuyOption
    buying: BuyOption
    verdict: Verdict
    difference: float  # buying's expected points less passing's (negative: buying holds fewer)
    margin: float  # |difference| at most this is a close call
    std_error: float | None  # of the difference (Monte Carlo); None when exact
    reason: str
    horizon: int
    rollouts: int | None  # simulated deals; None when exact
    seed: int
    method: str  # "exact" or "monte-carlo"

    def to_dict(self) -> dict[str, Any]:
        return {
            "offered": self.offered.token,
            "penalty_cards": self.penalty_cards,
            "passing": self.passing.to_dict(),
            "buying": self.buying.to_dict(),
            "verdict": self.verdict.value,
            "difference": round(self.difference, 2),
            "margin": round(self.margin, 2),
            "std_error": None if self.std_error is None else round(self.std_error, 2),
            "reason": self.reason,
            "horizon": self.horizon,
            "rollouts": self.rollouts,
            "seed": self.seed,
            "method": self.method,
        }



def check_buy_allowed(rules: Rules, round_number: int, buys_used: int, bought_last: bool) -> None:
    allowed = rules.buys_in(round_number)
    if allowed == 0:
        raise AdviceError(f"{rules.name!r} allows no buying in round {round_number}")
    if buys_used < 0:
        raise AdviceError(f"buys used must be 0 or more, not {buys_used}")
    if allowed is not None and buys_used >= allowed:
        raise AdviceError(f"{rules.name!r} allows {allowed} buy{'s' if allowed != 1 else ''} in round "
                          f"{round_number} and you have used {buys_used}")
    if bought_last and rules.no_consecutive_buys:
        raise AdviceError(f"{rules.name!r} does not let the same player buy twice in succession")


def check_simulation(horizon: int, rollouts: int) -> None:
    if not 1 <= horizon <= MAX_HORIZON:
        raise AdviceError(f"the horizon is 1 to {MAX_HORIZON} of your turns, not {horizon}")
    if not 1 <= rollouts <= MAX_ROLLOUTS:
        raise AdviceError(f"rollouts must be 1 to {MAX_ROLLOUTS}, not {rollouts}")



# ---- should you buy? ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _State:
    """The simulated player's hand between turns, with its plan: the nearest lay-down the
    solver found (cards it leaves unused, cards it still misses)."""

    held: tuple[Card, ...]
    away: int | None  # cards away of ``held`` (None: never)
    unused: tuple[Card, ...]  # held cards the plan leaves unused (0 away: the best leftover)
    missing: tuple[Card, ...]  # cards the plan still needs


class _Player:
    """The simulated player (docs/advice.md). Each own turn it draws one card. If the hand can
    then lay down, it lays down the best lay-down and discards its costliest leftover card;
    otherwise it discards the costliest natural card its plan leaves unused.

    The hand is solved again only when the drawn card may matter: not when the hand is more
    cards away than it has turns left (it cannot lay down in time), nor when a quick test shows
    the card cannot be part of any meld of a nearer (or, 0 away, a better) lay-down; then the
    plan just takes the card, filling a missing place or as one more unused card."""

    def __init__(self, analyser: RoundSolver) -> None:
        self.analyser = analyser
        self.rules = analyser.rules
        self.go_out = analyser.rules.round(analyser.round_number).go_out

    def start(self, held: Sequence[Card]) -> _State:
        return self._state(self.analyser.lay_down(held), None)

    def _state(self, lay_down: LayDown, discarded: Card | None) -> _State:
        """The state after discarding ``discarded`` from ``lay_down``'s hand."""
        held = list(lay_down.hand)
        unused = list(lay_down.leftover if lay_down.can_lay_down else
                      lay_down.kept_with_missing() if lay_down.cards_away else lay_down.hand)
        if discarded is not None:
            held.remove(discarded)
            if discarded not in unused:  # the plan needed it: find the new nearest plan
                return self.start(held)
            unused.remove(discarded)
        return _State(tuple(held), lay_down.cards_away, tuple(unused), lay_down.missing)

    def turn(self, state: _State, drawn: Card, turns_left: int) -> tuple[bool, _State, int]:
        """Draw ``drawn`` with ``turns_left`` turns to go (this one included): (laid down?, the
        state after the turn, the points then held)."""
        if state.away is None or state.away > turns_left:
            return False, *self._keep_plan(state, drawn)
        if not self.may_help(state, drawn):
            if state.away == 0 and not self.go_out:
                # The best lay-down stands; the card can only be left over with the rest.
                kept = self._after_lay_down(state.unused + (drawn,))
                return True, _State(kept, 0, kept, ()), self.analyser.points(kept)
            return False, *self._keep_plan(state, drawn)
        lay_down = self.analyser.lay_down(state.held + (drawn,))
        if lay_down.can_lay_down:
            kept = self._after_lay_down(lay_down.leftover)
            return True, _State(kept, 0, kept, ()), self.analyser.points(kept)
        after = self._state(lay_down, self.discard(lay_down))
        return False, after, self.analyser.points(after.held)

    def may_help(self, state: _State, drawn: Card) -> bool:
        """A quick test that ``drawn`` might be an out, or for a hand 0 away might be melded
        (False: it certainly is not).

        Such a card is part of some meld of a lay-down that misses at most ``away - 1`` cards
        (none when 0 away); the meld's other cards are held cards or those missing ones, so a
        set needs ``size - max(away, 1)`` held cards of its rank or wild, a run as many held
        naturals on distinct places of one window around the card, or wild cards (no more than
        a meld may take)."""
        rules = self.rules
        if rules.is_wild(drawn):
            return True
        assert state.away is not None and drawn.rank is not None
        spare = max(state.away - 1, 0)  # missing cards the meld may still lack
        held_wilds = sum(1 for card in state.held if rules.is_wild(card))
        naturals = [card for card in state.held if not rules.is_wild(card)]

        def enough(held_naturals: int, size: int) -> bool:
            # Wild cards the meld can take from the hand: within the per-meld limit and, when
            # they may not outnumber the naturals, no more than the naturals it can have.
            wilds = held_wilds if rules.max_wilds_per_meld is None else min(held_wilds, rules.max_wilds_per_meld)
            if not rules.wilds_may_outnumber_naturals:
                wilds = min(wilds, held_naturals + 1 + spare)
            return held_naturals + wilds >= size - 1 - spare

        for spec in set(rules.round(self.analyser.round_number).contract):
            if spec.kind != MeldKind.RUN:
                if enough(sum(1 for card in naturals if card.rank == drawn.rank), spec.size):
                    return True
                continue
            places = {p for card in naturals if card.suit == drawn.suit for p in _run_places(card, rules)}
            for place in _run_places(drawn, rules):
                for first in range(max(place - spec.size + 1, 1 if rules.ace_low else 2),
                                   min(place, (14 if rules.ace_high else 13) - spec.size + 1) + 1):
                    window = set(range(first, first + spec.size)) - {place}
                    if enough(len(window & places), spec.size):
                        return True
        return False

    def _keep_plan(self, state: _State, drawn: Card) -> tuple[_State, int]:
        """A turn that cannot bring the hand to a lay-down in time, or whose card cannot bring it
        closer: the plan stays, the drawn card fills one of its missing places or joins the
        unused cards, and the costliest unused natural card goes."""
        missing, unused, away = list(state.missing), list(state.unused), state.away
        if drawn in missing:
            missing.remove(drawn)
            away = None if away is None else away - 1
        else:
            unused.append(drawn)
        held = list(state.held) + [drawn]
        discarded = self._costliest([c for c in unused if not self.rules.is_wild(c)] or unused
                                    or [c for c in held if not self.rules.is_wild(c)] or held)
        held.remove(discarded)
        if discarded in unused:
            unused.remove(discarded)
        return _State(tuple(held), away, tuple(unused), tuple(missing)), self.analyser.points(held)

    def _after_lay_down(self, leftover_cards: Sequence[Card]) -> tuple[Card, ...]:
        """What the player holds after laying down with this leftover and discarding."""
        leftover = list(leftover_cards)
        if not leftover:
            return ()
        if len(leftover) == 1 and self.rules.discard_to_go_out == "never":
            return tuple(leftover)  # it may not go out by discarding: the last card stays
        leftover.remove(self._costliest(leftover))
        return tuple(leftover)

    def discard(self, lay_down: LayDown) -> Card:
        """The costliest natural card the nearest plan leaves unused (else any unused card, else
        the costliest natural card held): a player keeps its melds and its wild cards."""
        unused = lay_down.kept_with_missing() if lay_down.cards_away else lay_down.hand
        choices = ([c for c in unused if not self.rules.is_wild(c)] or list(unused)
                   or [c for c in lay_down.hand if not self.rules.is_wild(c)] or list(lay_down.hand))
        return self._costliest(choices)

    def _costliest(self, cards: Sequence[Card]) -> Card:
        return max(cards, key=lambda card: (self.rules.points_of(card), card.sort_key()))

    def play(self, held: Sequence[Card], draws: Sequence[Card]) -> tuple[bool, int]:
        """Turns with these draws: (laid down by the last one?, points held at the end)."""
        state = self.start(held)
        for number, drawn in enumerate(draws):
            laid, state, points = self.turn(state, drawn, len(draws) - number)
            if laid:
                return True, points
        return False, self.analyser.points(state.held)

    def expect(self, state: _State, stock: Counter[Card], turns: int) -> tuple[float, float]:
        """Exactly: (chance of laying down within ``turns``, expected points held then)."""
        total = sum(stock.values())
        if turns == 0 or total == 0:
            return 0.0, float(self.analyser.points(state.held))
        chance = points = 0.0
        for card in [c for c in ALL_CARD_KINDS if stock[c]]:
            weight = stock[card] / total
            laid, after, held_points = self.turn(state, card, turns)
            if laid:
                chance, points = chance + weight, points + weight * held_points
                continue
            stock[card] -= 1
            later_chance, later_points = self.expect(after, stock, turns - 1)
            stock[card] += 1
            chance, points = chance + weight * later_chance, points + weight * later_points
        return chance, points

    def expect_after(self, held: tuple[Card, ...], stock: Counter[Card], blind: int,
                     turns: int) -> tuple[float, float]:
        """As ``expect``, after first taking ``blind`` cards from the stock (a buy's penalty)."""
        total = sum(stock.values())
        if blind == 0 or total == 0:
            return self.expect(self.start(held), stock, turns)
        chance = points = 0.0
        for card in [c for c in ALL_CARD_KINDS if stock[c]]:
            weight = stock[card] / total
            stock[card] -= 1
            later_chance, later_points = self.expect_after(held + (card,), stock, blind - 1, turns)
            stock[card] += 1
            chance, points = chance + weight * later_chance, points + weight * later_points
        return chance, points


def _run_places(card: Card, rules: Rules) -> tuple[int, ...]:
    """Places a natural card can take in a run: 1 (low ace) to 14 (high ace)."""
    assert card.rank is not None
    if card.rank != Rank.ACE:
        return (int(card.rank),)
    return tuple(p for p, allowed in ((1, rules.ace_low), (14, rules.ace_high)) if allowed)


def _margin(pass_points: float) -> float:
    return max(MARGIN_POINTS, MARGIN_SHARE * pass_points)


def _std_error(passing: Sequence[int], buying: Sequence[int]) -> float | None:
    """Standard error of the mean difference, buying less passing, deal by deal."""
    if len(passing) < 2:
        return None
    return statistics.stdev([b - p for b, p in zip(buying, passing, strict=True)]) / math.sqrt(len(passing))


def _settled(passing: Sequence[int], buying: Sequence[int]) -> bool:
    """Whether more deals would hardly change the verdict: the mean difference lies more than
    ``SETTLED`` standard errors clear of the margin, on whichever side it is."""
    error = _std_error(passing, buying)
    difference = statistics.fmean(buying) - statistics.fmean(passing)
    return error is not None and abs(abs(difference) - _margin(statistics.fmean(passing))) > SETTLED * error


def _tree_size(kinds: int, turns: int, blind: int) -> int:
    """Draw sequences an exact enumeration visits: one solver call each, at most."""
    size, level = 0, 1
    for _ in range(blind):
        level *= kinds
    for _ in range(turns):
        level *= kinds
        size += level
    return size


def buy_verdict(analyser: RoundSolver, cards: tuple[Card, ...], offered: Card, unseen: dict[Card, int],
                horizon: int, rollouts: int, seed: int) -> BuyAdvice:
    rules = analyser.rules
    penalty = rules.buy_penalty_in(analyser.round_number)
    stock = Counter({card: n for card, n in unseen.items() if n})
    bought = cards + (offered,)
    player = _Player(analyser)
    kinds = len(stock)
    std_error: float | None
    if _tree_size(kinds, horizon, 0) + _tree_size(kinds, horizon, penalty) <= EXACT_LIMIT:
        method, used_rollouts, std_error = "exact", None, None
        pass_chance, pass_points = player.expect(player.start(cards), stock, horizon)
        buy_chance, buy_points = player.expect_after(bought, stock, penalty, horizon)
    else:
        method = "monte-carlo"
        # Common random numbers: both options see the same draws, buying takes its penalty
        # cards from further down the same shuffled stock. The comparison is then fair and far
        # less noisy than two independent samples.
        rng = random.Random(seed)
        pile = list(stock.elements())
        laid: Counter[str] = Counter()
        held: dict[str, list[int]] = {"pass": [], "buy": []}
        for done in range(1, rollouts + 1):
            drawn = rng.sample(pile, min(len(pile), horizon + penalty))
            draws, blind = drawn[:horizon], drawn[horizon:]
            for option, start in (("pass", cards), ("buy", bought + tuple(blind))):
                option_laid, points = player.play(start, draws)
                laid[option] += option_laid
                held[option].append(points)
            if done >= MIN_ROLLOUTS and done % SETTLE_EVERY == 0 and _settled(held["pass"], held["buy"]):
                break
        used_rollouts = len(held["pass"])
        pass_chance, pass_points = laid["pass"] / used_rollouts, statistics.fmean(held["pass"])
        buy_chance, buy_points = laid["buy"] / used_rollouts, statistics.fmean(held["buy"])
        std_error = _std_error(held["pass"], held["buy"])

    difference = buy_points - pass_points
    margin = _margin(pass_points)
    verdict = Verdict.BUY if difference < -margin else Verdict.PASS if difference > margin else Verdict.CLOSE_CALL
    passing_option = BuyOption(len(cards), pass_chance, pass_points)
    buying_option = BuyOption(len(bought) + penalty, buy_chance, buy_points)
    mean_stock = sum(rules.points_of(c) * n for c, n in stock.items()) / max(1, sum(stock.values()))
    reason = _reason(analyser, cards, offered, penalty, mean_stock, horizon, passing_option, buying_option)
    return BuyAdvice(offered, penalty, passing_option, buying_option, verdict, difference, margin,
                     std_error, reason, horizon, used_rollouts, seed, method)


def _reason(analyser: RoundSolver, cards: tuple[Card, ...], offered: Card, penalty: int, mean_stock: float,
            horizon: int, passing: BuyOption, buying: BuyOption) -> str:
    """One sentence: what the offered card does for the hand and what the extra cards cost."""
    before = analyser.lay_down(cards)
    after = analyser.lay_down(cards + (offered,))
    penalty_points = penalty * mean_stock
    blind = (f"the penalty card costs {penalty_points:.1f} points on average" if penalty == 1 else
             f"the {penalty} penalty cards cost {penalty_points:.1f} points on average" if penalty else
             "there is no penalty card")
    extra = 1 + penalty
    adds = (f"buying adds {extra} card{'s' if extra != 1 else ''} worth "
            f"{analyser.rules.points_of(offered) + penalty_points:.1f} points on average")
    turns = f"{horizon} turns" if horizon != 1 else "your next turn"
    chance = (f"your chance of laying down within {turns} goes from {passing.lay_down_probability:.0%} "
              f"to {buying.lay_down_probability:.0%}")
    if before.can_lay_down:
        return f"You can lay down already, so the {offered.face} is not needed; {adds}."
    if after.can_lay_down:
        meld = _meld_with(after.melds, offered)
        return (f"Buying the {offered.face} completes your contract"
                + (f" (the {meld.kind.value} {meld.describe()})" if meld else "")
                + f", so you lay down on your next turn; {blind}.")
    if after.cards_away is not None and before.cards_away is None:
        return f"The {offered.face} makes your contract reachable ({after.cards_away} cards away); {blind}."
    if after.cards_away is not None and before.cards_away is not None and after.cards_away < before.cards_away:
        meld = _meld_with(after.with_missing, offered)
        return (f"The {offered.face} takes you from {before.cards_away} cards away to {after.cards_away}"
                + (f" (it goes into the {meld.kind.value} {meld.describe()})" if meld else "")
                + f"; {blind}, and {chance}.")
    return f"The {offered.face} fits none of your melds; {adds}."


def _meld_with(melds: Sequence[PlacedMeld], card: Card) -> PlacedMeld | None:
    return next((meld for meld in melds if card in meld.cards), None)


__all__ = [
    "DEFAULT_HORIZON",
    "DEFAULT_ROLLOUTS",
    "AdviceError",
    "BuyAdvice",
    "BuyOption",
    "Verdict",
    "buy_verdict",
    "check_buy_allowed",
    "check_simulation",
]
