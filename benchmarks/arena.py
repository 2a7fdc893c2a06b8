"""Arena benchmark: advised rounds per CPU-minute at 4 players, and where the advised player's time
goes (its three decisions), per round of the preset.

    .venv/bin/python -m benchmarks.arena                      # progressive, 14 tables (rounds 1-7 twice)
    .venv/bin/python -m benchmarks.arena --tables 28 --rules shanghai

A round is one table: a deal played to its end with ``advised`` in one seat and ``simulated`` in
the others (table ``i`` is round ``1 + i % rounds`` of seed ``i``, the challenger in seat
``i % 4``), one process, CPU time by ``time.process_time`` (the buy verdict's rollout threads
included; the machine's other load does not count). Goal (the arena's): >= 100 advised rounds per
CPU-minute at 4 players, so a published figure can rest on >= 2,000 rounds per preset.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

from analyzer import deterministic_work, preset
from arena.duplicate import WORK, Match, deal_seed, play_table
from arena.policies import AdvisedPlayer, PolicyName, Round

GOAL = 100  # advised rounds per CPU-minute
DECISIONS = ("wants_discard", "wants_to_buy_at", "choose_play_after_draw")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rules", default="progressive")
    parser.add_argument("--tables", type=int, default=14)
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args(argv)

    spent: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])  # decision -> [count, CPU seconds]
    for name in DECISIONS:  # the advised player's own decisions, timed (laid down ones included)
        original = getattr(AdvisedPlayer, name)

        def timed(self: AdvisedPlayer, *args_: object, _original: object = original, _name: str = name) -> object:
            start = time.process_time()
            try:
                return _original(self, *args_)  # type: ignore[operator]
            finally:
                spent[_name][0] += 1
                spent[_name][1] += time.process_time() - start

        setattr(AdvisedPlayer, name, timed)

    rules = preset(args.rules)
    rounds = len(rules.rounds)
    match = Match(args.rules, args.players, PolicyName.ADVISED, PolicyName.SIMULATED)
    per_round: dict[int, list[float]] = defaultdict(list)
    with deterministic_work(WORK):
        for index in range(args.tables):
            number = 1 + index % rounds
            at = Round(rules, number, args.players)
            start = time.process_time()
            play_table(match, at, deal_seed(rules.name, number, index), index % args.players, f"bench/{index}")
            per_round[number].append(time.process_time() - start)
    total = sum(sum(times) for times in per_round.values())
    print(f"{args.rules}, {args.players} players, advised against simulated: {args.tables} tables")
    print(f"{'round':>5} {'tables':>6} {'CPU s/table':>11}")
    for number, times in sorted(per_round.items()):
        print(f"{number:>5} {len(times):>6} {sum(times) / len(times):>11.2f}")
    print(f"advised rounds per CPU-minute: {60 * args.tables / total:.1f} (goal >= {GOAL}); "
          f"{total:.1f} CPU s in all")
    for name in DECISIONS:
        count, seconds = spent[name]
        print(f"  {name:24} {int(count):5} calls  {seconds:7.1f} CPU s ({seconds / total:5.1%})  "
              f"{1000 * seconds / max(count, 1):7.1f} ms each")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
