"""Why "more unseen outs" does not show in play: each ``more-outs`` discard puzzle judged in play
(``puzzles.inplay``) beside what the counts and the simulated player see, one JSON line each.

    .venv/bin/python -m benchmarks.inplay_outs puzzles/bank/progressive-discard.jsonl.gz > outs.jsonl
    .venv/bin/python -m benchmarks.inplay_outs puzzles/bank/progressive-discard.jsonl.gz \\
        --least-away 2 --replan-within 2 > replan2.jsonl
    .venv/bin/python -m benchmarks.inplay_outs --table outs.jsonl

Per puzzle: cards away, the counted unseen outs of the answer and the runner-up, the unseen copies
of the cards the ``SimulatedPlayer``'s own plan misses ("plan outs": all it takes when more than
``REPLAN_WITHIN`` away), the gain with its 95% interval and verdict, how often the player went out
first. ``--replan-within N`` sets ``analyzer.simulate.REPLAN_WITHIN`` for this process only: an
experiment on the continuing player, not an option of the product (docs/strength.md).
"""

from __future__ import annotations

import argparse
import json
import math
from collections import Counter
from collections.abc import Callable
from typing import Any

from analyzer import Card, RoundSolver, SimulatedPlayer, interval, load_rules
from puzzles import inplay
from puzzles.bank import read_puzzles


def measure(shards: list[str], deals: int, least_away: int) -> None:
    for shard in shards:
        for p in read_puzzles(shard):
            if p.kind != "discard" or p.margin is None or p.margin.criterion != "outs" or p.margin.top["cards_away"] < least_away:
                continue
            rules = load_rules(p.rules)
            if sum(inplay.hand_sizes_of_others(p, rules)) > len(inplay.unseen_cards(p, rules)):
                continue
            solver = RoundSolver(rules, p.round, rules.deck_for(p.players), math.inf, work=inplay.WORK)
            base = SimulatedPlayer(solver)
            rows = (p.margin.top, p.margin.runner_up)
            unseen = Counter(inplay.unseen_cards(p, rules))
            plan_outs = []
            for row in rows:
                rest = list(p.hand)
                rest.remove(Card.parse(row["card"]))
                plan_outs.append(sum(unseen[card] for card in set(base.start(tuple(rest)).missing)))
            plays = [inplay.decision_play(p, solver, Card.parse(row["card"]), row["lays_down"]) for row in rows]
            relative: tuple[list[float], list[float]] = ([], [])
            first = [0, 0]
            for index in range(deals):
                deal = inplay.deal_hidden(p, rules, 0, index)
                for side, play in enumerate(plays):
                    outcome = inplay.play_round(p, rules, base, deal, play)
                    points = outcome.penalty_points
                    mine = points[p.seat]
                    relative[side].append(mine - (sum(points) - mine) / (p.players - 1))
                    first[side] += outcome.winner == p.seat
            gain = interval([r - a for a, r in zip(*relative)])
            assert gain.low is not None and gain.high is not None
            print(json.dumps({
                "id": p.id, "rules": p.rules, "round": p.round, "turn": p.turn, "away": rows[0]["cards_away"],
                "cards": [row["card"] for row in rows], "card_points": [row["card_points"] for row in rows],
                "outs": [row["unseen_outs"] for row in rows], "plan_outs": plan_outs, "first": first,
                "gain": [round(gain.mean, 1), round(gain.low, 1), round(gain.high, 1)],
                "verdict": inplay.verdict_of(gain).value,
            }), flush=True)


def table(paths: list[str]) -> None:
    rows = []
    for path in paths:
        with open(path) as lines:
            rows += [json.loads(line) for line in lines]

    def show(name: str, chosen: Callable[[dict[str, Any]], bool]) -> None:
        some = [row for row in rows if chosen(row)]
        if not some:
            return
        counts = Counter(row["verdict"] for row in some)
        gain = interval([row["gain"][0] for row in some])
        bounds = "" if gain.low is None or gain.high is None else f" ({gain.low:+.1f}, {gain.high:+.1f})"
        print(f"| {name} | {len(some)} | {counts['better']} | {counts['worse']} | {counts['indistinct']} "
              f"| {gain.mean:+.1f}{bounds} |")

    print("| more-outs puzzles | n | better | worse | indistinct | mean gain (95% t over puzzles) |")
    print("|---|---|---|---|---|---|")
    show("all", lambda row: True)
    show("1 card away", lambda row: row["away"] == 1)
    show("2 cards away", lambda row: row["away"] == 2)
    show("3+ cards away", lambda row: row["away"] >= 3)
    show("2+ away, the answer keeps no more plan outs than the runner-up",
         lambda row: row["away"] >= 2 and row["plan_outs"][0] <= row["plan_outs"][1])
    show("the answer discards the costlier card", lambda row: row["card_points"][0] > row["card_points"][1])
    show("the answer discards the cheaper card", lambda row: row["card_points"][0] < row["card_points"][1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("shards", nargs="*")
    parser.add_argument("--deals", type=int, default=inplay.DEALS)
    parser.add_argument("--least-away", type=int, default=0, help="only puzzles at least this many cards away")
    parser.add_argument("--replan-within", type=int, help="the continuing player replans this near (experiment)")
    parser.add_argument("--table", nargs="+", metavar="JSONL", help="summarise measured lines instead")
    args = parser.parse_args(argv)
    if args.table:
        table(args.table)
        return 0
    if args.replan_within is not None:
        import analyzer.simulate

        analyzer.simulate.REPLAN_WITHIN = args.replan_within
    measure(args.shards, args.deals, args.least_away)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
