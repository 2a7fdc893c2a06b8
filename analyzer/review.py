"""The review of a game record: each decision of one seat beside the analyser's advice, as
mahjong reviewers show a game (docs/records.md, "Review").

For every decision of the seat (take the face-up card or draw, buy or pass, lay down or wait,
the lay-offs, the discard) the review replays the record to that moment, asks the public
advice what it would do there (outs, the discard table, the turn's best play, the answer to an
offered discard: the questions the arena's ``advised`` player asks), ranks the choices by the advice's own
figures, and puts an estimated cost in points on each choice the advice does not make.

How a cost is estimated (the advice's figures, never a new simulation; docs/records.md):

- a turn lost before laying down costs the points the hand then holds times the chance that
  another player goes out meanwhile (the going-out tables of the buy verdict); a card further
  from the contract is a turn lost, a draw that may miss an out is that turn times the chance,
  a discard that keeps fewer unseen outs that turn times the share of the outs let go;
- a discard before laying down also costs the points it keeps over the advice's discard;
- a buy or a pass against the advice's answer (buy an out) costs what the simulated buy verdict
  says the other choice gives up in compared points (the player's points less the others' mean),
  nothing when the simulation says the choice made is as good or better;
- once laid down, a card not laid off, or a discard cheaper than the costliest, costs its points.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from analyzer.advice import advise, discard_order
from analyzer.buy import MAX_TURN, AdviceError
from analyzer.cards import ALL_CARD_KINDS, Card, faces
from analyzer.hand import HandError, deck_copies
from analyzer.moves import LayOff, TableError, Turn, player
from analyzer.records import Decision, DecisionKind, RecordError, Replayed, replay
from analyzer.rules import Rules, RulesError
from analyzer.simulate import Position, going_out_chances
from analyzer.solver.work import deterministic_work
from analyzer.turn import Moment

WORK = 5.0  # deterministic work per solve, as the arena's: the same review on any machine
TIME_LIMIT = 600.0  # seconds that only guard against a runaway answer (the work bounds each solve)
BUY_SEED = 0  # the buy verdict's simulation seed
COSTLIEST = 3  # mistakes listed in the summary


@dataclass(frozen=True)
class Choice:
    """One choice of a decision, with the advice's figures for it; ``rank`` 1 is the advice's."""

    choice: str  # in words: "take 7♥", "draw", "discard K♠", "lay down", "lay off 9♥"...
    rank: int
    figures: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"choice": self.choice, "rank": self.rank, **self.figures}


@dataclass(frozen=True)
class Reviewed:
    """One decision of the seat: what was chosen, what the advice chooses, and the cost."""

    round: int
    event: int  # the record's event that shows the choice (``rounds[r].events[event]``)
    turn: int  # the seat's own turn (the one about to start for a take, a draw or a buy)
    kind: str  # "take or draw", "buy or pass", "lay down or wait", "lay off", "discard"
    hand: tuple[Card, ...]  # as the seat decides
    offered: Card | None
    chosen: str
    advised: str
    match: bool
    cost: float  # estimated, in points (0 when it matches)
    choices: tuple[Choice, ...]  # ranked by the advice, best first
    why: str  # the advice's reason, in words

    def to_dict(self) -> dict[str, Any]:
        return {"round": self.round, "event": self.event, "turn": self.turn, "decision": self.kind,
                "hand": [c.token for c in self.hand], "offered": None if self.offered is None else self.offered.token,
                "chosen": self.chosen, "advised": self.advised, "match": self.match, "cost": round(self.cost, 2),
                "why": self.why, "choices": [choice.to_dict() for choice in self.choices]}


@dataclass(frozen=True)
class Review:
    """Every decision of one seat in a record, and the summary."""

    rules: str
    seat: int
    name: str
    rounds: tuple[int, ...]
    decisions: tuple[Reviewed, ...]
    skipped: int = 0  # decisions the advice cannot read (a hand of a size no turn gives)
    costliest: tuple[Reviewed, ...] = field(init=False)

    def __post_init__(self) -> None:
        mistakes = sorted((d for d in self.decisions if not d.match), key=lambda d: (-d.cost, d.round, d.event))
        object.__setattr__(self, "costliest", tuple(mistakes[:COSTLIEST]))

    @property
    def matches(self) -> int:
        return sum(d.match for d in self.decisions)

    @property
    def match_rate(self) -> float:
        return self.matches / len(self.decisions) if self.decisions else 1.0

    @property
    def total_cost(self) -> float:
        return sum(d.cost for d in self.decisions)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules, "seat": self.seat, "player": self.name, "rounds": list(self.rounds),
            "summary": {"decisions": len(self.decisions), "matches": self.matches,
                        "match_rate": round(self.match_rate, 4), "estimated_cost": round(self.total_cost, 2),
                        "skipped": self.skipped,
                        "costliest": [{"round": d.round, "event": d.event, "decision": d.kind, "chosen": d.chosen,
                                       "advised": d.advised, "cost": round(d.cost, 2)} for d in self.costliest]},
            "decisions": [d.to_dict() for d in self.decisions],
        }


def review_game(record: Any, seat: int) -> Review:
    """The review of ``seat``'s decisions in a record (``RecordError`` if it does not replay)."""
    replayed = replay(record)
    players = len(replayed.players)
    if not 0 <= seat < players:
        raise RecordError(f"the record has seats 0 to {players - 1}, not {seat}")
    reviewed: list[Reviewed] = []
    skipped = 0
    with deterministic_work(WORK):
        for one in replayed.rounds:
            judge = _Judge(replayed, one.number)
            for decision in one.decisions:
                if decision.seat != seat:
                    continue
                try:
                    reviewed += judge.decision(decision)
                except (HandError, AdviceError, RulesError):
                    skipped += 1  # a hand no turn of the round gives (many buys): the advice cannot say
    return Review(replayed.rules.name, seat, replayed.players[seat], tuple(r.number for r in replayed.rounds),
                  tuple(reviewed), skipped)


class _Judge:
    """The advice for the decisions of one round."""

    def __init__(self, replayed: Replayed, round_number: int) -> None:
        self.rules: Rules = replayed.rules
        self.round_number = round_number
        self.players = len(replayed.players)
        self.deck = self.rules.deck_for(self.players)

    def decision(self, decision: Decision) -> list[Reviewed]:
        position = decision.position
        down = bool(position.melds[decision.seat])
        if decision.kind is DecisionKind.TAKE_OR_DRAW:
            return [self._take_laid_down(decision) if down else self._take(decision)]
        if decision.kind is DecisionKind.BUY_OR_PASS:
            return [self._buy_laid_down(decision) if down else self._buy(decision)]
        return self._play_laid_down(decision) if down else self._play(decision)

    # -- figures shared by the costs -----------------------------------------------------------------

    def points(self, cards: Sequence[Card]) -> int:
        return sum(self.rules.points_of(card) for card in cards)

    def turn_lost(self, turn: int, points: float) -> float:
        """A turn lost before laying down, the turn the hand could lay down at the earliest
        being ``turn``: ``points`` times the chance that another player goes out on that turn
        (each as likely as self-play says, ``analyzer.simulate.going_out_chances``)."""
        chance = going_out_chances(self.rules, self.round_number, self.players).chance(max(1, turn))
        return points * (1 - (1 - chance) ** (self.players - 1))

    def unseen(self, position: Position, offered: Card | None) -> int:
        """Cards the seat has not seen: the deck less its hand, what lies open and the offered card."""
        whole = sum(deck_copies(card, self.deck) for card in ALL_CARD_KINDS)
        return whole - len(position.hand) - len(position.seen) - (offered is not None)

    def _reviewed(self, decision: Decision, kind: str, chosen: str, choices: Sequence[Choice], cost: float,
                  why: str, event: int | None = None, advised: str | None = None) -> Reviewed:
        best = advised if advised is not None else choices[0].choice
        match = chosen == best or any(c.choice == chosen and c.rank == choices[0].rank for c in choices)
        return Reviewed(self.round_number, decision.event if event is None else event,
                        decision.position.turn + (decision.kind is not DecisionKind.PLAY), kind,
                        decision.position.hand, decision.offered, chosen, best, match, 0.0 if match else cost,
                        tuple(choices), why)

    # -- before laying down --------------------------------------------------------------------------

    def _take(self, decision: Decision) -> Reviewed:
        position, card = decision.position, decision.offered
        assert card is not None
        advice = advise(position.hand, self.rules, self.round_number, self.players, seen=position.seen,
                        moment=Moment.BEFORE_DRAW, time_limit=TIME_LIMIT)
        outs = {out.card: out.unseen for out in advice.outs}
        away = advice.lay_down.cards_away
        unseen = max(1, self.unseen(position, card))
        draw_out = advice.unseen_outs / unseen
        take, draw = f"take {card.face}", "draw"
        take_figures = {"is_out": card in outs, "cards_away": away,
                        "cards_away_after": None if away is None else away - (card in outs)}
        draw_figures = {"chance_of_an_out": round(draw_out, 4), "unseen_outs": advice.unseen_outs, "unseen": unseen}
        if card in outs:
            choices = [Choice(take, 1, take_figures), Choice(draw, 2, draw_figures)]
            why = f"the {card.face} is one of your outs: it brings you a card nearer the contract ({away} away)"
            cost = (1 - draw_out) * self.turn_lost(position.turn + 1 + _whole(away), self.points(position.hand))
        else:
            choices = [Choice(draw, 1, draw_figures), Choice(take, 2, take_figures)]
            why = (f"the {card.face} is not one of your outs; the draw is one with chance {draw_out:.0%} "
                   f"({advice.unseen_outs} of {unseen} unseen cards)")
            cost = draw_out * self.turn_lost(position.turn + 1 + _whole(away), self.points(position.hand))
        return self._reviewed(decision, "take or draw", take if decision.chosen else draw, choices, cost, why)

    def _buy(self, decision: Decision) -> Reviewed:
        position, card = decision.position, decision.offered
        assert card is not None
        advice = advise(position.hand, self.rules, self.round_number, self.players, seen=position.seen, buy=card,
                        seed=BUY_SEED, time_limit=TIME_LIMIT, buys_used=position.buys_used,
                        bought_last=position.bought_last, moment=Moment.BEFORE_DRAW,
                        turn=min(position.turn + 1, MAX_TURN))
        answer, verdict = advice.buy_answer, advice.buy
        assert answer is not None and verdict is not None
        buy, passing = f"buy {card.face}", f"pass {card.face}"
        options = {buy: {"is_out": answer.buys, **verdict.buying.to_dict()}, passing: verdict.passing.to_dict()}
        first = buy if answer.buys else passing
        second = passing if first == buy else buy
        choices = [Choice(first, 1, options[first]), Choice(second, 2, options[second])]
        chosen = buy if decision.chosen else passing
        # The simulation's compared points the other choice gives up (``difference`` is buying's less
        # passing's), never below 0: the answer is the rule, its cost as the simulation counts it.
        given_up = -verdict.difference if first == buy else verdict.difference
        cost = max(0.0, given_up) if math.isfinite(given_up) else 0.0
        why = f"{answer.reason} (the simulation: {verdict.verdict.value.upper()}: {verdict.reason})"
        return self._reviewed(decision, "buy or pass", chosen, choices, cost, why, event=decision.event)

    def _play(self, decision: Decision) -> list[Reviewed]:
        """Before laying down: lay down or wait (when the turn's best play can), then the discard."""
        from analyzer.api import analyze

        position, play = decision.position, decision.play
        assert play is not None
        hand, turn = position.hand, position.turn
        reviewed = []
        best = analyze(hand, self.rules, self.round_number, self.players, TIME_LIMIT, Moment.AFTER_DRAW)
        laid = bool(play.lay_down)
        kept_points = self.points(decision.kept)
        if best.can_lay_down:
            lay = Choice("lay down", 1, {"melds": [m.describe() for m in best.melds],
                                         "discard": None if best.discard is None else best.discard.face,
                                         "points_kept": best.points_after_discard, "goes_out": best.goes_out})
            wait = Choice("wait", 2, {"points_kept": kept_points if not laid else None})
            cost = self.turn_lost(turn + 1, kept_points) + max(0, kept_points - (best.points_after_discard or 0))
            reviewed.append(self._reviewed(decision, "lay down or wait", "lay down" if laid else "wait", [lay, wait],
                                           cost, "the turn's best play lays the contract down"))
            if not laid:
                return reviewed  # the turn is judged as a whole: its discard after waiting has no row
        if play.discard is None:
            return reviewed
        advice = advise(hand, self.rules, self.round_number, self.players, seen=position.seen, discards=True,
                        moment=Moment.AFTER_DRAW, time_limit=TIME_LIMIT)
        rows = [row for row in advice.discards or () if row.lays_down == laid] or list(advice.discards or ())
        chosen_row = next((row for row in rows if row.card == play.discard), None)
        if not rows or chosen_row is None:
            return reviewed
        top = rows[0]
        choices = [Choice(f"discard {row.card.face}", row.rank - top.rank + 1,
                          {"cards_away": row.cards_away, "unseen_outs": row.unseen_outs,
                           "points_kept": row.points_kept, "lays_down": row.lays_down, "goes_out": row.goes_out})
                   for row in rows]
        if laid:
            cost = max(0, kept_points - top.points_kept)
            why = "the discard table: the fewest points kept once the contract is down"
        else:
            further = _away(chosen_row.cards_away) - _away(top.cards_away)
            if further == 0 and top.unseen_outs > chosen_row.unseen_outs:
                further = 1 - chosen_row.unseen_outs / top.unseen_outs  # the share of the outs let go
            cost = max(0, chosen_row.points_kept - top.points_kept) + \
                max(0.0, further) * self.turn_lost(turn + 1 + _whole(chosen_row.cards_away), chosen_row.points_kept)
            why = "the discard table: " + discard_order(self.rules.round(self.round_number).go_out, top.cards_away)
        reviewed.append(self._reviewed(decision, "discard", f"discard {play.discard.face}", choices, cost, why,
                                       event=decision.event + laid + len(play.moves)))
        return reviewed

    # -- once laid down ------------------------------------------------------------------------------

    def _fits(self, position: Position, seat: int, card: Card) -> bool:
        turn = Turn(self.rules, self.round_number, seat, [*position.hand, card], position.melds)
        return any(_tries(turn, LayOff(card, target, index))
                   for target, melds in enumerate(position.melds) for index in range(len(melds)))

    def _take_laid_down(self, decision: Decision) -> Reviewed:
        card = decision.offered
        assert card is not None
        fits = self._fits(decision.position, decision.seat, card)
        take, draw = f"take {card.face}", "draw"
        figures = {"fits_a_meld": fits, "points": self.rules.points_of(card)}
        choices = [Choice(take, 1, figures), Choice(draw, 2, {})] if fits else \
            [Choice(draw, 1, {}), Choice(take, 2, figures)]
        why = f"the {card.face} {'fits' if fits else 'fits no'} meld on the table"
        return self._reviewed(decision, "take or draw", take if decision.chosen else draw, choices,
                              self.rules.points_of(card), why)

    def _buy_laid_down(self, decision: Decision) -> Reviewed:
        card = decision.offered
        assert card is not None
        penalty = self.rules.buy_penalty_in(self.round_number)
        buy, passing = f"buy {card.face}", f"pass {card.face}"
        choices = [Choice(passing, 1, {}), Choice(buy, 2, {"penalty_cards": penalty})]
        return self._reviewed(decision, "buy or pass", buy if decision.chosen else passing, choices,
                              self.rules.points_of(card), "once down, a buy only adds cards to go out with")

    def _play_laid_down(self, decision: Decision) -> list[Reviewed]:
        """Lay off every card that fits, costliest first; discard the costliest card left."""
        position, play, seat = decision.position, decision.play, decision.seat
        assert play is not None
        reviewed = []
        advised = self._greedy_lay_offs(position, seat)
        laid_off = [move.card for move in play.moves if isinstance(move, LayOff)]
        if advised or laid_off:
            best_points, chosen_points = self.points(advised), self.points(laid_off)
            choices = [Choice(f"lay off {faces(advised) or 'nothing'}", 1, {"points_laid_off": best_points})]
            chosen = f"lay off {faces(laid_off) or 'nothing'}"
            if chosen != choices[0].choice:
                choices.append(Choice(chosen, 1 if chosen_points >= best_points else 2,
                                      {"points_laid_off": chosen_points}))
            reviewed.append(self._reviewed(decision, "lay off", chosen, choices, max(0, best_points - chosen_points),
                                           "every card that fits a meld goes, the costliest first"))
        if play.discard is not None:
            left = Counter(position.hand) - Counter(laid_off)
            cards = sorted(left, key=lambda c: (-self.rules.points_of(c), c.sort_key()))
            top = self.rules.points_of(cards[0])
            choices = [Choice(f"discard {card.face}", 1 + sum(self.rules.points_of(o) > self.rules.points_of(card)
                                                                for o in cards), {"points": self.rules.points_of(card)})
                       for card in cards]
            choices.sort(key=lambda choice: choice.rank)
            reviewed.append(self._reviewed(decision, "discard", f"discard {play.discard.face}", choices,
                                           top - self.rules.points_of(play.discard), "the costliest card goes",
                                           event=decision.event + len(play.moves)))
        return reviewed

    def _greedy_lay_offs(self, position: Position, seat: int) -> list[Card]:
        """The cards the plain rule lays off: each that fits any meld it may play on, costliest
        first, the last card kept where going out needs a discard."""
        turn = Turn(self.rules, self.round_number, seat, position.hand, position.melds)
        laid: list[Card] = []
        must_discard = self.rules.discard_to_go_out.value == "required"
        progress = True
        while progress:
            progress = False
            for card in sorted(set(turn.held()), key=lambda c: (-self.rules.points_of(c), c.sort_key())):
                if must_discard and sum(turn.hand.values()) <= 1:
                    return laid
                if any(_tries(turn, LayOff(card, target, index), keep=True)
                       for target, melds in enumerate(turn.melds) for index in range(len(melds))):
                    laid.append(card)
                    progress = True
                    break
        return laid


def _tries(turn: Turn, move: LayOff, keep: bool = False) -> bool:
    """Whether the lay-off is legal on ``turn`` (made when ``keep``)."""
    if not keep:
        turn = Turn(turn.rules, turn.round_number, turn.seat, turn.held(), turn.melds)
    try:
        turn.lay_off(move)
    except TableError:
        return False
    return True


def _whole(cards_away: int | None) -> int:
    """Cards away as turns to wait, at least (never: as many as a round's chances are kept for)."""
    return 60 if cards_away is None else cards_away


def _away(cards_away: int | None) -> float:
    return math.inf if cards_away is None else cards_away


# ---- text for people -------------------------------------------------------------------------------


def render_review(review: Review) -> str:
    """The review as the command prints it: the summary, each decision, the costliest mistakes."""
    rounds = ", ".join(map(str, review.rounds))
    title = (f"Review of seat {review.seat} ({player(review.seat)}, {review.name}), {review.rules} round {rounds}: "
             f"{len(review.decisions)} decisions, {review.matches} as the advice ({review.match_rate:.0%}), "
             f"estimated cost {review.total_cost:.1f} points")
    lines = [title]
    for d in review.decisions:
        verdict = "as the advice" if d.match else f"advice: {d.advised} · estimated cost {d.cost:.1f} points"
        offered = f", {d.offered.face} offered" if d.offered is not None else ""
        lines += ["", f"turn {d.turn} · {d.kind}{offered} (event {d.event}) · hand {faces(d.hand)}",
                  f"  you: {d.chosen} · {verdict}", f"  why: {d.why}"]
        for choice in d.choices[:5]:
            figures = ", ".join(f"{key.replace('_', ' ')} {_shown(key, value)}"
                                for key, value in choice.figures.items() if value is not None)
            lines.append(f"    {choice.rank}. {choice.choice:<22} {figures}")
    if review.costliest:
        lines += ["", "Costliest mistakes:"]
        lines += [f"  {n}. turn {d.turn}, {d.kind}: you {d.chosen}, the advice {d.advised} "
                  f"(about {d.cost:.1f} points; event {d.event})" for n, d in enumerate(review.costliest, start=1)]
    if review.skipped:
        lines += ["", f"{review.skipped} decision(s) not reviewed: hands the advice cannot read"]
    lines += ["", "Costs are estimates from the advice's own figures (docs/records.md, \"Review\")."]
    return "\n".join(lines)


def _shown(key: str, value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.0%}" if "probability" in key or "chance" in key else f"{value:.1f}"
    if isinstance(value, list):
        return " | ".join(map(str, value))
    return str(value)


__all__ = ["Choice", "Review", "Reviewed", "render_review", "review_game"]
