"""Puzzle generation benchmark: accepted puzzles per CPU-minute and the acceptance rate, per kind
and preset, on fixed seed ranges; and the time to verify a bank.

    .venv/bin/python -m benchmarks.puzzles                         # progressive, every kind
    .venv/bin/python -m benchmarks.puzzles --rules shanghai pagat --seeds 20
    .venv/bin/python -m benchmarks.puzzles --quick                 # a smoke test
    .venv/bin/python -m benchmarks.puzzles --verify-bank           # re-derive the whole shipped bank

Each attempt is ``generate(kind, preset, round, seed)`` for seeds 0, 1, ... with the round cycling
through the preset's rounds (as the bank's plan does), one process, CPU time measured with
``time.process_time`` (the machine's other load does not count). "from play" and "planted"
(lay-down only) are reported apart.

Goals for ``progressive`` on one core: lay-down >= 300, discard >= 30, buy >= 6
accepted puzzles per CPU-minute.
"""

from __future__ import annotations

import argparse
import statistics
import time

from analyzer import preset
from puzzles.bank import load_bank
from puzzles.generate import generate
from puzzles.model import KINDS
from puzzles.verify import verify

GOALS = {"lay-down": 300, "discard": 30, "buy": 6}


def measure(kind: str, rules: str, seeds: int, source: str) -> tuple[int, int, float]:
    """(accepted, attempts, CPU seconds) over seeds 0 .. seeds - 1."""
    rule_set = preset(rules)
    rounds = [n for n in range(1, len(rule_set.rounds) + 1) if kind != "buy" or rule_set.buys_in(n) != 0]
    accepted = 0
    started = time.process_time()
    for seed in range(seeds):
        accepted += generate(kind, rules, rounds[seed % len(rounds)], seed, source=source) is not None
    return accepted, seeds, time.process_time() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rules", nargs="+", default=["progressive"])
    parser.add_argument("--kinds", nargs="+", default=list(KINDS), choices=KINDS)
    parser.add_argument("--seeds", type=int, default=60, help="attempts per kind and preset (buy: a third)")
    parser.add_argument("--quick", action="store_true", help="a few seeds only")
    parser.add_argument("--verify-bank", action="store_true", help="verify every puzzle of the shipped bank")
    args = parser.parse_args(argv)

    if args.verify_bank:
        puzzles = load_bank()
        times: dict[str, list[float]] = {kind: [] for kind in KINDS}
        failed = 0
        for puzzle in puzzles:
            started = time.process_time()
            failed += bool(verify(puzzle))
            times[puzzle.kind].append(time.process_time() - started)
        for kind, spent in times.items():
            if spent:
                print(
                    f"verify {kind:9} {len(spent):5} puzzles  "
                    f"median {statistics.median(spent) * 1000:8.1f} ms  "
                    f"total {sum(spent):7.1f} s"
                )
        print(f"{len(puzzles)} puzzles, {failed} failed")
        return 1 if failed else 0

    seeds = 6 if args.quick else args.seeds
    print(f"{'preset':14} {'kind':9} {'source':8} {'accepted':>8} {'rate':>6} {'per CPU-min':>11}  goal")
    for rules in args.rules:
        for kind in args.kinds:
            sources = ["play", "planted"] if kind == "lay-down" else ["play"]
            for source in sources:
                count = max(2, seeds // 3) if kind == "buy" else seeds
                accepted, attempts, spent = measure(kind, rules, count, source)
                rate = accepted / attempts
                per_minute = accepted / spent * 60 if spent else 0.0
                goal = f">= {GOALS[kind]}" if rules == "progressive" and source == "play" else ""
                print(
                    f"{rules:14} {kind:9} {source:8} {accepted:4}/{attempts:<3} {rate:6.0%} "
                    f"{per_minute:11.1f}  {goal}",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
