"""Solver benchmark: seeded suites, per-hand medians and tails, and ratios to the brute-force
reference (tests/reference.py) measured in the same run.

    .venv/bin/python -m benchmarks.solver            # full run (a few minutes)
    .venv/bin/python -m benchmarks.solver --quick    # smaller suites, for a smoke test
    .venv/bin/python -m benchmarks.solver --solver-only --clock cpu   # the solver's times alone,
        # in CPU time: to compare two versions of the solver back to back on a loaded machine

Suites:
- typical: every round of ``progressive``, deal size + 1 cards from a 4-player deck
  (two decks and a joker); also the same for the other presets, for information.
- hard: every preset, 17-23 cards (at most what a turn of the round can hold) with 4-6 jokers
  where the deck has them, every round; ``ill-buy-it``'s also against the reference.

Goals: typical median under 3 ms in-process; no hard hand over 50 ms; the whole
``analyze --batch`` process on the hard suite at most 0.15 of the reference's time.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from analyzer import PRESETS, analyze, preset
from analyzer.cards import ALL_NATURALS, JOKER, Card
from analyzer.round_solver import PROVEN
from analyzer.rules import Rules
from analyzer.turn import Moment, hand_sizes
from tests.reference import reference_best, reference_cards_away

Hand = tuple[Card, ...]
Case = tuple[Hand, int]  # a hand and its round
REFERENCE_MAX_EXTRA = 2  # the reference looks for at most this many missing cards


def typical_suite(rules: Rules, per_round: int, seed: int, players: int) -> list[Case]:
    rng = random.Random(seed)
    deck = rules.deck_for(players)
    cards = list(ALL_NATURALS) * deck.decks + [JOKER] * deck.jokers
    return [(tuple(rng.sample(cards, rule.deal + 1)), number)
            for number, rule in enumerate(rules.rounds, start=1) for _ in range(per_round)]


def hard_suite(rules: Rules, size: int, seed: int) -> list[Case]:
    rng = random.Random(seed)
    deck = rules.deck_for(None)
    naturals = list(ALL_NATURALS) * deck.decks
    suite = []
    for i in range(size):
        number = i % len(rules.rounds) + 1
        jokers = rng.randint(min(4, deck.jokers), min(6, deck.jokers))
        largest = max(hand_sizes(rules, number)[Moment.AFTER_DRAW])  # with every buy allowed
        total = rng.randint(min(17, largest), min(23, largest))
        suite.append((tuple(rng.sample(naturals, total - jokers)) + (JOKER,) * jokers, number))
    return suite


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
clock = time.perf_counter  # set by --clock


def timed(run: Callable[[], object]) -> float:
    """One question from scratch: nothing proven by an earlier one kept (the same hands are
    asked again by later suites)."""
    PROVEN.clear()
    start = clock()
    run()
    return clock() - start


def solver_times(suite: list[Case], rules: Rules, moment: str = "before-draw") -> list[float]:
    """The lay-down solver (``before-draw``: the best lay-down of the hand as it is), or with
    ``after-draw`` the turn's best play (melds, discard, going out)."""
    return [timed(lambda: analyze(hand, rules, number, moment=moment)) for hand, number in suite]


def reference_answer(hand: Hand, rules: Rules, number: int, cards_away: bool) -> tuple[int | None, int | None]:
    """The reference's best leftover points and, if asked, its cards away (up to a limit).

    On the hard suite the reference is asked only the first question: its search for missing
    cards takes minutes a hand there, so its measured time is a lower bound of the real one."""
    best = reference_best(hand, rules, number)
    if best is not None:
        return best, 0
    if not cards_away:
        return None, None
    return None, reference_cards_away(hand, rules, number, rules.deck_for(None), REFERENCE_MAX_EXTRA)


def reference_times(suite: list[Case], rules: Rules, cards_away: bool) -> list[float]:
    return [timed(lambda: reference_answer(hand, rules, number, cards_away)) for hand, number in suite]


def check_agreement(suite: list[Case], rules: Rules, cards_away: bool) -> int:
    """The benchmark also compares answers: a fast wrong solver is no result."""
    disagreements = 0
    for hand, number in suite:
        result = analyze(hand, rules, number, moment="before-draw")
        best, away = reference_answer(hand, rules, number, cards_away)
        ours_away = result.cards_away
        if (not cards_away and ours_away) or (ours_away is not None and ours_away > REFERENCE_MAX_EXTRA):
            ours_away = None
        ours = (result.leftover_points if result.can_lay_down else None, ours_away)
        if ours != (best, away):
            disagreements += 1
            print(f"  DISAGREE {rules.name} round {number}: {' '.join(c.token for c in hand)}: "
                  f"solver {ours}, reference {(best, away)}")
    return disagreements


def describe(name: str, times: list[float]) -> str:
    ms = sorted(t * 1000 for t in times)
    p99 = ms[min(len(ms) - 1, round(0.99 * (len(ms) - 1)))]
    return (f"{name:<34} n={len(ms):<4} median {statistics.median(ms):7.2f} ms   "
            f"p99 {p99:7.2f} ms   max {ms[-1]:7.2f} ms")


def batch_process_time(suite: list[Case], rules_name: str) -> float:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "hard.jsonl"
        path.write_text("".join(json.dumps({"hand": " ".join(c.token for c in hand), "round": number,
                                            "rules": rules_name, "moment": "before-draw"}) + "\n"
                                for hand, number in suite))
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "analyzer", "--batch", str(path)],
                              capture_output=True, text=True, check=True)
        elapsed = time.perf_counter() - start
    lines = done.stdout.splitlines()
    assert len(lines) == len(suite) and not any('"error"' in line for line in lines), done.stdout[:500]
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small suites, for a smoke test")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--solver-only", action="store_true",
                        help="time the solver alone: no brute-force reference, answers not compared")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                        help="wall (default) or cpu: this process's CPU time, steadier on a shared machine")
    args = parser.parse_args(argv)
    global clock
    clock = CLOCKS[args.clock]
    per_round = 6 if args.quick else 40
    hard_size = 16 if args.quick else 120

    analyze("7H 8H 9H 10H 5C 5D 5S", "progressive", 2)  # load OR-Tools before timing

    print("== typical hands: deal size + 1, 4 players (two decks), in-process analyze(), best lay-down")
    progressive = preset("progressive")
    typical = typical_suite(progressive, per_round, args.seed, players=4)
    ours = solver_times(typical, progressive)
    print(describe("progressive, all rounds", ours))
    for number in range(1, len(progressive.rounds) + 1):
        print(describe(f"  round {number}", [t for t, (_, n) in zip(ours, typical) if n == number]))
    turns = solver_times(typical, progressive, moment="after-draw")
    print(describe("the turn's best play, same hands", turns))
    print(f"ratio of medians turn / lay-down: {statistics.median(turns) / statistics.median(ours):.2f}")
    bad = 0
    if not args.solver_only:
        reference = reference_times(typical, progressive, cards_away=True)
        print(describe("brute-force reference, same hands", reference))
        print(f"throughput ratio solver/reference: {sum(reference) / sum(ours):.1f}x "
              f"(reference time / solver time)")
        bad += check_agreement(typical, progressive, cards_away=True)

    print("\n== other rule sets, typical hands (for information)")
    for name in ("ill-buy-it", "contract", "pagat", "may-i", "shanghai", "shanghai-powe", "kolsov", "eveleigh"):
        rules = preset(name)
        players = max(4, rules.deck_for(None).min_players) if name != "eveleigh" else 4
        suite = typical_suite(rules, max(2, per_round // 4), args.seed, players=min(players, rules.deck_for(None).max_players))
        print(describe(name, solver_times(suite, rules)))

    print("\n== hard hands, every preset: 17-23 cards (at most what a turn of the round can hold), "
          "4-6 jokers where the deck has them; lay-down only (goal: none over 50 ms)")
    for name in PRESETS:
        rules = preset(name)
        print(describe(name, solver_times(hard_suite(rules, max(8, hard_size // 4), args.seed), rules)), flush=True)

    print("\n== hard hands: ill-buy-it, 17-23 cards, 4-6 jokers")
    ill = preset("ill-buy-it")
    hard = hard_suite(ill, hard_size, args.seed)
    hard_ours = solver_times(hard, ill)
    print(describe("in-process analyze()", hard_ours))
    if args.solver_only:
        return 0
    hard_reference = reference_times(hard, ill, cards_away=False)
    print(describe("brute-force reference (lay-down only)", hard_reference))
    bad += check_agreement(hard, ill, cards_away=False)
    process = batch_process_time(hard, "ill-buy-it")
    print(f"analyze --batch, whole process:  {process:.2f} s for {len(hard)} hands")
    print(f"brute-force reference, in-process: {sum(hard_reference):.2f} s")
    print(f"ratio batch process / reference: {process / sum(hard_reference):.3f} (goal <= 0.15)")
    print(f"\nanswers that disagree with the reference: {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
