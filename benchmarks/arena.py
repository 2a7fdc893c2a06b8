"""Arena benchmark: advised rounds per CPU-minute at 4 players, and where the advised player's time
goes (its three decisions), per round of the preset, beside a reference measured in the same run.

    .venv/bin/python -m benchmarks.arena                      # progressive, 14 tables (rounds 1-7 twice)
    .venv/bin/python -m benchmarks.arena --tables 56 --rules shanghai-powe

A round is one table: a deal played to its end with ``advised`` in one seat and ``simulated`` in
the others (table ``i`` is round ``1 + i % rounds`` of seed ``i``, the challenger in seat
``i % 4``), one process, CPU time by ``time.process_time`` (the solver's threads included; the
machine's other load does not count). Goal (the arena's): >= 100 advised rounds per CPU-minute
at 4 players, so a published figure can rest on >= 2,000 rounds per preset.

The reference: each deal played again, right after, with ``simulated`` in every seat. CPU time
moves with the machine (the same code has read 139 advised rounds a CPU-minute on one machine of
this kind and 284 on another), so runs on different machines are compared by the ratio of the
two. Each table starts with no proven answers kept (``PROVEN`` cleared), so the reference's
solves never serve the advised table of its deal, nor the other way round.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time
from collections import defaultdict
from collections.abc import Iterator

from analyzer import deterministic_work, preset
from analyzer.round_solver import PROVEN
from analyzer.rules import Rules
from arena.duplicate import WORK, Match, deal_seed, play_table
from arena.policies import AdvisedPlayer, PolicyName, Round

GOAL = 100  # advised rounds per CPU-minute
DECISIONS = ("wants_discard", "wants_to_buy_at", "choose_play_after_draw")


def _positive(text: str) -> int:
    number = int(text) if text.isdigit() else 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"a whole number of at least 1, not {text!r}")
    return number


@contextlib.contextmanager
def _timed_decisions() -> Iterator[dict[str, list[float]]]:
    """The advised player's own decisions timed while inside (laid down ones included):
    decision -> [count, CPU seconds]."""
    spent: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    originals = {name: getattr(AdvisedPlayer, name) for name in DECISIONS}
    for name, original in originals.items():
        def timed(self: AdvisedPlayer, *args_: object, _original: object = original, _name: str = name) -> object:
            start = time.process_time()
            try:
                return _original(self, *args_)  # type: ignore[operator]
            finally:
                spent[_name][0] += 1
                spent[_name][1] += time.process_time() - start

        setattr(AdvisedPlayer, name, timed)
    try:
        yield spent
    finally:
        for name, original in originals.items():
            setattr(AdvisedPlayer, name, original)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rules", default="progressive")
    parser.add_argument("--tables", type=_positive, default=14)
    parser.add_argument("--players", type=_positive, default=4)
    args = parser.parse_args(argv)
    try:
        rules = preset(args.rules)
        rules.deck_for(args.players)
    except ValueError as error:
        parser.error(str(error))
    with _timed_decisions() as spent:
        _run(args, rules, spent)
    return 0


def _run(args: argparse.Namespace, rules: Rules, spent: dict[str, list[float]]) -> None:
    rounds = len(rules.rounds)
    match = Match(args.rules, args.players, PolicyName.ADVISED, PolicyName.SIMULATED)
    reference = Match(args.rules, args.players, PolicyName.SIMULATED, PolicyName.SIMULATED)
    per_round: dict[int, list[tuple[float, float]]] = defaultdict(list)  # (advised, reference) CPU s
    with deterministic_work(WORK):
        for index in range(args.tables):
            number = 1 + index % rounds
            at = Round(rules, number, args.players)
            shuffle, seat = deal_seed(rules.name, number, index), index % args.players
            times = []
            for played in (match, reference):
                PROVEN.clear()
                start = time.process_time()
                play_table(played, at, shuffle, seat, f"bench/{index}")
                times.append(time.process_time() - start)
            per_round[number].append((times[0], times[1]))
    tables = [pair for pairs in per_round.values() for pair in pairs]
    total, base = sum(t for t, _ in tables), sum(r for _, r in tables)
    print(f"{args.rules}, {args.players} players, advised against simulated: {args.tables} tables")
    print(f"{'round':>5} {'tables':>6} {'CPU s/table':>11} {'reference':>9}")
    for number, pairs in sorted(per_round.items()):
        print(f"{number:>5} {len(pairs):>6} {sum(t for t, _ in pairs) / len(pairs):>11.2f} "
              f"{sum(r for _, r in pairs) / len(pairs):>9.2f}")
    advised = sorted(t for t, _ in tables)
    print(f"advised rounds per CPU-minute: {60 * args.tables / total:.1f} (goal >= {GOAL}); "
          f"{total:.1f} CPU s in all")
    print(f"  CPU s a table: median {statistics.median(advised):.2f}, p95 {_p95(advised):.2f}, "
          f"max {advised[-1]:.2f}")
    print(f"reference (simulated in every seat, the same deals): {60 * args.tables / base:.1f} rounds per "
          f"CPU-minute; advised / reference CPU {total / base:.2f} (median of the tables' ratios "
          f"{statistics.median(t / r for t, r in tables):.2f})")
    for name in DECISIONS:
        count, seconds = spent[name]
        print(f"  {name:24} {int(count):5} calls  {seconds:7.1f} CPU s ({seconds / total:5.1%})  "
              f"{1000 * seconds / max(count, 1):7.1f} ms each")


def _p95(ordered: list[float]) -> float:
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


if __name__ == "__main__":
    raise SystemExit(main())
