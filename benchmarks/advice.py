"""Advice benchmark: outs plus the discard table, and the buy verdict, on seeded suites.

    .venv/bin/python -m benchmarks.advice            # full run (a few minutes)
    .venv/bin/python -m benchmarks.advice --quick    # smaller suites, for a smoke test
    .venv/bin/python -m benchmarks.advice --buy-only --buy-rules shanghai eveleigh pagat

Suites: 12-card ``progressive`` hands (round 6: deal size + 1; for the buy, hands as dealt in
rounds 6 and 7, before the draw, and one more card offered) dealt from a 4-player deck (two decks and a joker), half of them at random, half from two suits
and a few neighbouring ranks (hands near their contract, where outs and discards matter most).

Measured in the same run:
- ``advise(..., discards=True)`` in-process, each hand from scratch: outs of the hand and of
  every hand one card smaller, through the solver's ``find_outs``;
- the naive baseline: the same answers by re-solving for every discard and every card kind
  (``analyzer.round_solver.outs_by_resolving``), checked equal to the fast ones;
- ``advise(..., buy=...)`` with default settings (the rest of the round, turn 2), the offered card
  drawn from the deck; with ``--buy-rules PRESET...`` on those presets' hands too (reported only).

Goals (issue 3): outs plus the table of a 12-card hand, median at most 150 ms, p95 at most
400 ms; a buy verdict over the rest of the round with default settings, median at most 1 s and
p95 at most 3 s on ``progressive``'s hands.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any
from unittest import mock

from analyzer import advise, preset, round_solver, solver
from analyzer.cards import ALL_NATURALS, JOKER, Card, Suit
from analyzer.rules import Rules
from analyzer.simulate import SimulatedPlayer

PLAYERS = 4
Case = tuple[tuple[Card, ...], int]  # a hand and its round


def suite(rules: Rules, size: int, seed: int, rounds: tuple[int, ...], cards_each: int = 12) -> list[Case]:
    """``size`` hands of ``cards_each`` cards, for the given rounds in turn."""
    rng = random.Random(seed)
    deck = rules.deck_for(PLAYERS)
    cards = list(ALL_NATURALS) * deck.decks + [JOKER] * deck.jokers
    cases = []
    for i in range(size):
        number = rounds[i % len(rounds)]
        pool = cards
        if i % 2:
            suits = rng.sample(list(Suit), 2)
            low = rng.randint(1, 7)
            pool = [c for c in cards if c.is_joker or (c.suit in suits and c.rank is not None and low <= c.rank < low + 7)]
        cases.append((tuple(rng.sample(pool, cards_each)), number))
    return cases


def percentile(times: list[float], share: float) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def describe(name: str, times: list[float]) -> str:
    ms = [t * 1000 for t in times]
    return (f"{name:<40} n={len(ms):<4} median {statistics.median(ms):8.1f} ms   "
            f"p95 {percentile(ms, 0.95):8.1f} ms   max {max(ms):8.1f} ms")


BUY_ROUNDS = {"eveleigh": (9, 10, 12), "shanghai": (2, 4, 6), "pagat": (2, 4, 6)}  # rounds with buying


def buy_cases(rules: Rules, rounds: tuple[int, ...], size: int, seed: int) -> list[Case]:
    """``size`` hands before the draw (the round's deal) for the given rounds in turn, each with
    one more card: the one offered."""
    per_round = [suite(rules, size, seed + number, rounds=(number,), cards_each=rules.round(number).deal + 1)
                 for number in rounds]
    return [per_round[i % len(rounds)][i // len(rounds)] for i in range(size)]


def buy_suite(rules: Rules, cases: list[Case]) -> tuple[list[float], list[str]]:
    """Time ``advise(..., buy=...)`` with default settings: each hand's last card is offered.
    Also counts the solver calls (CP-SAT solves) and the simulated own turns behind each."""
    advise(cases[0][0][:-1], rules, cases[0][1], players=PLAYERS, buy=cases[0][0][-1])  # going-out chances loaded
    counts = {"solves": 0, "turns": 0}
    solve, play_turn = solver.solve_lay_down, SimulatedPlayer.play_turn

    def counted_solve(*args: Any, **kwargs: Any) -> Any:
        counts["solves"] += 1
        return solve(*args, **kwargs)

    def counted_turn(*args: Any, **kwargs: Any) -> Any:
        counts["turns"] += 1
        return play_turn(*args, **kwargs)

    times, verdicts, solves, turns = [], [], [], []
    with mock.patch.object(solver, "solve_lay_down", counted_solve), \
            mock.patch.object(SimulatedPlayer, "play_turn", counted_turn):
        for hand, number in cases:
            held, offered = hand[:-1], hand[-1]
            counts.update(solves=0, turns=0)
            start = time.perf_counter()
            result = advise(held, rules, number, players=PLAYERS, buy=offered)
            times.append(time.perf_counter() - start)
            assert result.buy is not None
            verdicts.append(result.buy.verdict.value)
            solves.append(counts["solves"])
            turns.append(counts["turns"])
    print(f"  solver calls per verdict: median {statistics.median(solves):.0f}, max {max(solves)}; "
          f"per simulated own turn: {sum(solves) / max(1, sum(turns)):.3f} ({sum(turns)} turns)")
    return times, verdicts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small suites, for a smoke test")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--buy-rules", nargs="*", default=[], metavar="PRESET",
                        help="also time the buy verdict on these presets (reported, no goal)")
    parser.add_argument("--buy-only", action="store_true", help="skip the outs and discard table part")
    args = parser.parse_args(argv)
    rules = preset("progressive")
    size, buys = (8, 4) if args.quick else (40, 20)
    advise("7H 8H 10H 5C 5D 5S", rules, 2)  # load OR-Tools before timing

    fast: list[float] = []
    naive: list[float] = []
    disagreements = 0
    if not args.buy_only:
        print(f"== outs + discard table, {size} hands of 12 cards (round 6), 4 players, in-process")
        twelve = suite(rules, size, args.seed, rounds=(6,))
        for hand, number in twelve:
            start = time.perf_counter()
            ours = advise(hand, rules, number, players=PLAYERS, discards=True)
            fast.append(time.perf_counter() - start)
            with mock.patch.object(round_solver, "outs_finder", lambda: round_solver.outs_by_resolving):
                start = time.perf_counter()
                baseline = advise(hand, rules, number, players=PLAYERS, discards=True)
                naive.append(time.perf_counter() - start)
            if ours != baseline:
                disagreements += 1
                print(f"  DISAGREE round {number}: {' '.join(c.token for c in hand)}")
        print(describe("advise(discards=True)", fast))
        print(describe("naive: re-solve every discard and card", naive))
        print(f"{'ratio of medians (fast / naive)':<40} {statistics.median(fast) / statistics.median(naive):.3f}")
        print(f"disagreements with the naive baseline: {disagreements}")

    print(f"\n== buy verdict over the rest of the round, default settings, {buys} hands as dealt "
          "(11 cards in round 6, 12 in round 7) and one more card offered")
    times, verdicts = buy_suite(rules, buy_cases(rules, (6, 7), buys, args.seed + 1))
    print(describe("advise(buy=...)", times))
    print("verdicts:", ", ".join(f"{v} {verdicts.count(v)}" for v in sorted(set(verdicts))))
    for name in args.buy_rules:
        other = preset(name)
        rounds = tuple(n for n in BUY_ROUNDS.get(name, (2, 4, 6)) if other.buys_in(n) != 0)
        cases = buy_cases(other, rounds, max(len(rounds), buys // 2), args.seed + 2)
        other_times, other_verdicts = buy_suite(other, cases)
        print(describe(f"{name} rounds {','.join(map(str, rounds))}", other_times)
              + "   verdicts: " + ", ".join(f"{v} {other_verdicts.count(v)}" for v in sorted(set(other_verdicts))))

    goals = [
        ("buy verdict median <= 1 s", statistics.median(times) <= 1.0),
        ("buy verdict p95 <= 3 s", percentile(times, 0.95) <= 3.0),
    ]
    if not args.buy_only:
        goals = [
            ("outs + table median <= 150 ms", statistics.median(fast) <= 0.150),
            ("outs + table p95 <= 400 ms", percentile(fast, 0.95) <= 0.400),
            ("agrees with the naive baseline", disagreements == 0),
        ] + goals
    print()
    for goal, met in goals:
        print(f"{'met ' if met else 'MISSED'}  {goal}")
    return 0 if all(met for _, met in goals) else 1


if __name__ == "__main__":
    raise SystemExit(main())
