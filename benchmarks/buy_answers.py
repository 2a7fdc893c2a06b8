"""Buy puzzles whose stored answer differs from plain "buy an out", judged in play.

    .venv/bin/python -m benchmarks.buy_answers puzzles/bank/*-buy.jsonl.gz

For every buy puzzle of the files, the plain rule (buy the offered card when it is one of the
hand's outs, no exceptions) is asked of the analyser; where the puzzle's stored answer differs,
the puzzle is played on from the offer with its answer and with the other choice over the same
deals (``puzzles.inplay.judge_buy``). Printed: one line a puzzle, then per kind of round (go-out
rounds, rounds whose contract needs more cards than are dealt, every other round) the count of
better / worse / indistinct and the mean gain of the stored answer with its 95% t interval over
puzzles (positive: the stored answer did better). docs/strength.md, "Buy puzzles in play".
"""

from __future__ import annotations

import argparse
from collections import defaultdict

from analyzer import Moment, advise, interval, preset
from analyzer.simulate import cards_to_lay_down
from puzzles.bank import read_puzzles
from puzzles.inplay import DEALS, PlayedOut, Standing, describe, judge_buy
from puzzles.model import Kind, Puzzle


def plain_rule_buys(puzzle: Puzzle) -> bool:
    """Whether the offered card is one of the hand's outs (the rule without its exceptions)."""
    advice = advise(puzzle.hand, puzzle.rules, puzzle.round, puzzle.players, seen=puzzle.seen,
                    moment=Moment.BEFORE_DRAW, time_limit=60)
    return bool(advice.lay_down.cards_away) and puzzle.offered in {out.card for out in advice.outs}


def kind_of_round(puzzle: Puzzle) -> str:
    rules = preset(puzzle.rules)
    rule = rules.round(puzzle.round)
    if rule.deal + 1 < cards_to_lay_down(rules, puzzle.round):
        return "needs more cards than are dealt"
    return "go-out round" if rule.go_out else "every other round"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+")
    parser.add_argument("--deals", type=int, default=DEALS)
    args = parser.parse_args(argv)
    judged: dict[str, list[PlayedOut]] = defaultdict(list)
    for path in args.files:
        for puzzle in read_puzzles(path):
            if puzzle.kind is not Kind.BUY or (puzzle.answers[0] == "buy") == plain_rule_buys(puzzle):
                continue
            judgement = judge_buy(puzzle, args.deals)
            judged[kind_of_round(puzzle)].append(judgement)
            print(f"{puzzle.rules} round {puzzle.round}: {describe(judgement)}", flush=True)
    for kind, judgements in judged.items():
        counts = [sum(j.standing is standing for j in judgements) for standing in Standing]
        gain = interval([j.gain.mean for j in judgements])
        bounds = "" if gain.low is None or gain.high is None else f" ({gain.low:+.1f}, {gain.high:+.1f})"
        print(f"{kind}: {len(judgements)} puzzles, better / worse / indistinct {' / '.join(map(str, counts))}, "
              f"mean gain {gain.mean:+.1f}{bounds}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
