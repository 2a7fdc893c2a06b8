"""Advice benchmark: outs plus the discard table, and the buy verdict, per preset, on seeded suites.

    .venv/bin/python -m benchmarks.advice                     # every preset (several minutes)
    .venv/bin/python -m benchmarks.advice --quick             # smaller suites, for a smoke test
    .venv/bin/python -m benchmarks.advice --rules kolsov pagat --table-only

Suites, per preset, dealt from a 4-player deck, half of the hands at random, half from two suits
and a few neighbouring ranks (hands near their contract, where outs and discards matter most):
- the discard table: hands after the draw (the deal and one card) in the preset's go-out round,
  its round with the most runs and its first round mixing sets and runs (``preset_rounds``);
- the buy verdict: hands as dealt (before the draw) in those rounds where buying is allowed
  (``progressive``: rounds 6 and 7; ``eveleigh``: 9, 10 and 12), and one more card offered.

Measured in the same run:
- ``advise(..., discards=True)`` in-process, each hand from scratch: outs of the hand and of
  every hand one card smaller, through the solver's ``find_outs``;
- the naive baseline on the first hands of each suite: the same answers by re-solving for every
  discard and every card kind (``analyzer.round_solver.outs_by_resolving``), checked equal to
  the fast ones, and the ratio of the fast path's time to it on those hands;
- ``advise(..., buy=...)`` with default settings (the rest of the round, turn 2).

Goals, per preset: outs plus the table median at most 150 ms, p95 at most 400 ms, max
at most 1 s; a buy verdict with default settings, median at most 1 s and p95 at most 3 s.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any
from unittest import mock

from analyzer import PRESETS, advise, preset, round_solver, solver
from analyzer.cards import ALL_NATURALS, JOKER, Card, Suit
from analyzer.rules import MeldKind, Rules
from analyzer.simulate import SimulatedPlayer

PLAYERS = 4
TABLE_TIME_LIMIT = 600.0  # the whole table's budget: its real cost is measured, not the default 5 s cut
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


BUY_ROUNDS = {"eveleigh": (9, 10, 12), "progressive": (6, 7)}  # else the suite rounds (those with buying)


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
            verdicts.append(result.buy.verdict.value + ("" if result.buy.finished else " (stopped at the time limit)"))
            solves.append(counts["solves"])
            turns.append(counts["turns"])
    print(f"  solver calls per verdict: median {statistics.median(solves):.0f}, max {max(solves)}; "
          f"per simulated own turn: {sum(solves) / max(1, sum(turns)):.3f} ({sum(turns)} turns)")
    return times, verdicts


def preset_rounds(rules: Rules) -> tuple[int, ...]:
    """The rounds a preset's suite deals: its go-out rounds, the round with the most runs, and
    the first round that mixes sets and runs (each once, in order)."""
    numbered = list(enumerate(rules.rounds, start=1))

    def runs(rule: Any) -> int:
        return sum(1 for spec in rule.contract if spec.kind == MeldKind.RUN)

    picked = [n for n, rule in numbered if rule.go_out][-1:]
    picked.append(max(numbered, key=lambda item: (runs(item[1]), item[0]))[0])
    picked += [n for n, rule in numbered if runs(rule) and runs(rule) < len(rule.contract)][:1]
    return tuple(sorted(dict.fromkeys(picked)))


def table_suite(rules: Rules, size: int, seed: int) -> list[Case]:
    """``size`` hands after the draw (the deal and one card) of the preset's suite rounds."""
    rounds = preset_rounds(rules)
    per_round = [suite(rules, size, seed + number, rounds=(number,), cards_each=rules.round(number).deal + 1)
                 for number in rounds]
    return [per_round[i % len(rounds)][i // len(rounds)] for i in range(size)]


def table_times(rules: Rules, cases: list[Case], naive_count: int) -> tuple[list[float], list[float], int]:
    """``advise(discards=True)`` on every case; the naive re-solving on the first ``naive_count``,
    with the answers compared."""
    fast: list[float] = []
    naive: list[float] = []
    disagreements = 0
    for index, (hand, number) in enumerate(cases):
        round_solver.PROVEN.clear()  # each hand from scratch, nothing kept from the last
        start = time.perf_counter()
        ours = advise(hand, rules, number, players=PLAYERS, discards=True, time_limit=TABLE_TIME_LIMIT)
        fast.append(time.perf_counter() - start)
        if ours.unfinished:
            print(f"  STOPPED AT THE TIME LIMIT {rules.name} round {number}: {' '.join(c.token for c in hand)}")
        if index >= naive_count:
            continue
        round_solver.PROVEN.clear()
        with mock.patch.object(round_solver, "outs_finder", lambda: round_solver.outs_by_resolving):
            start = time.perf_counter()
            baseline = advise(hand, rules, number, players=PLAYERS, discards=True, time_limit=TABLE_TIME_LIMIT)
            naive.append(time.perf_counter() - start)
        if ours != baseline:
            disagreements += 1
            print(f"  DISAGREE {rules.name} round {number}: {' '.join(c.token for c in hand)}")
    return fast, naive, disagreements


def summary(times: list[float]) -> tuple[float, float, float]:
    ms = [t * 1000 for t in times]
    return statistics.median(ms), percentile(ms, 0.95), max(ms)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small suites, for a smoke test")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--rules", nargs="*", default=list(PRESETS), metavar="PRESET",
                        help="the presets to measure (default: all)")
    parser.add_argument("--hands", type=int, help="hands per preset for the discard table (default 8, quick 3)")
    parser.add_argument("--naive", type=int, help="of which re-solved naively too (default 2, quick 1)")
    parser.add_argument("--buys", type=int, help="buy verdicts per preset (default 6, quick 2)")
    parser.add_argument("--buy-only", action="store_true", help="skip the outs and discard table part")
    parser.add_argument("--table-only", action="store_true", help="skip the buy verdict part")
    args = parser.parse_args(argv)
    hands = args.hands or (3 if args.quick else 8)
    naive_count = args.naive if args.naive is not None else (1 if args.quick else 2)
    buys = args.buys or (2 if args.quick else 6)
    advise("7H 8H 10H 5C 5D 5S", "progressive", 2)  # load OR-Tools before timing

    rows: list[tuple[str, str, str]] = []
    goals: list[tuple[str, bool]] = []
    for name in args.rules:
        rules = preset(name)
        table = buy = ""
        if not args.buy_only:
            cases = table_suite(rules, hands, args.seed)
            fast, naive, disagreements = table_times(rules, cases, naive_count)
            median, p95, top = summary(fast)
            ratio = ""
            if naive:
                same = fast[:len(naive)]
                ratio = f"{sum(same) / sum(naive):.3f}"
            print(f"{name:<14} rounds {','.join(map(str, preset_rounds(rules))):<8} outs + table  "
                  f"median {median:7.1f}  p95 {p95:7.1f}  max {top:7.1f} ms;  naive on {len(naive)}: "
                  f"{sum(naive) * 1000 / max(1, len(naive)):8.1f} ms mean, ratio {ratio}, disagreements {disagreements}",
                  flush=True)
            table = f"{median:.0f} / {p95:.0f} / {top:.0f} | {ratio}"
            goals += [(f"{name}: outs + table median <= 150 ms, p95 <= 400 ms, max <= 1 s",
                       median <= 150 and p95 <= 400 and top <= 1000),
                      (f"{name}: agrees with the naive baseline", disagreements == 0)]
        if not args.table_only:
            rounds = tuple(n for n in BUY_ROUNDS.get(name, preset_rounds(rules)) if rules.buys_in(n) != 0)
            if rounds:
                times, verdicts = buy_suite(rules, buy_cases(rules, rounds, max(len(rounds), buys), args.seed + 1))
                median, p95, top = summary(times)
                print(f"{name:<14} rounds {','.join(map(str, rounds)):<8} buy verdict   "
                      f"median {median:7.1f}  p95 {p95:7.1f}  max {top:7.1f} ms;  verdicts "
                      + ", ".join(f"{v} {verdicts.count(v)}" for v in sorted(set(verdicts))), flush=True)
                buy = f"{median:.0f} / {p95:.0f} / {top:.0f}"
                goals.append((f"{name}: buy median <= 1 s, p95 <= 3 s", median <= 1000 and p95 <= 3000))
        rows.append((name, table, buy))

    print("\n| preset | outs + table median / p95 / max (ms) | ratio to naive | buy median / p95 / max (ms) |")
    print("|---|---|---|---|")
    for name, table, buy in rows:
        cells = table.split(" | ") if table else ["", ""]
        print(f"| {name} | {cells[0]} | {cells[1]} | {buy} |")
    print()
    for goal, met in goals:
        print(f"{'met ' if met else 'MISSED'}  {goal}")
    return 0 if all(met for _, met in goals) else 1


if __name__ == "__main__":
    raise SystemExit(main())
