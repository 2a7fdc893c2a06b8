"""A change to a policy measured by duplicate play across two versions of the code: each seed and
round played by the same match with the code before and after, then compared seed by seed.

    # with each checkout in turn (its own code on PYTHONPATH), the same match and seeds:
    PYTHONPATH=/path/to/before .venv/bin/python -m benchmarks.arena_pairs play before.jsonl \\
        --rules progressive --rounds 1-7 --challenger advised --opponents simulated --seeds 0-29
    PYTHONPATH=/path/to/after .venv/bin/python -m benchmarks.arena_pairs play after.jsonl ...
    .venv/bin/python -m benchmarks.arena_pairs compare before.jsonl after.jsonl

``play`` appends one JSON line per seed and round (``arena.duplicate.play_seed``: the seed's deal
with the challenger in every seat): its relative points, how many of its tables it went out
first, and the CPU seconds it took; a run stopped half way resumes where its file ends.
``compare`` prints per round and in total (each seed's mean over the rounds both files hold):
the relative points before and after with their 95% t intervals, and the paired difference
(after less before, per seed: negative means the change wins) with its interval; "differ" counts
the seeds whose tables came out differently at all, and the CPU seconds of each side.

``rummy-arena`` compares two policies of one version; this compares two versions of one policy
through the common opponent: a seed whose decisions all agree scores exactly 0, so most of the
deal's noise cancels and few seeds tell a small change apart.

``compare`` reads ``rummy-arena --save`` files too (the CPU column is then the challenger's
thinking, wall clock): two policies of one version, each against the same opponents on the same
seeds, compared seed by seed the same way:

    rummy-arena --rules shanghai --rounds 3-5 --challenger advised --seeds 0-19 --save advised.jsonl
    rummy-arena --rules shanghai --rounds 3-5 --challenger advised-completes --seeds 0-19 --save completes.jsonl
    .venv/bin/python -m benchmarks.arena_pairs compare advised.jsonl completes.jsonl

**Which decision is weak?** ``play --swap KIND`` plays the challenger with one kind of its
decisions made as the opponents' policy makes them (``Decisions``: taking the face-up card before
laying down, buying, the play after the draw before laying down, every decision once down), the
rest its own. Compared with the challenger's own file on the same seeds, a swap that scores
better points at the weaker decision:

    rummy-arena --rules progressive --rounds 1 --challenger advised --opponents greedy --seeds 0-39 --save advised.jsonl
    .venv/bin/python -m benchmarks.arena_pairs play take.jsonl --rules progressive --rounds 1 \
        --challenger advised --opponents greedy --seeds 0-39 --swap take
    .venv/bin/python -m benchmarks.arena_pairs compare advised.jsonl take.jsonl
"""

from __future__ import annotations

import argparse
import enum
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from analyzer import Card, Play, interval
from arena.duplicate import Match, PolicyMaker, play_seed
from arena.policies import ArenaPolicy, PolicyName, Round, Sight, make_policy
from arena.saved import seed_result


class Decisions(enum.StrEnum):
    """A kind of decision ``--swap`` hands to the opponents' policy."""

    TAKE = "take"  # taking the face-up card or drawing, before laying down
    BUY = "buy"  # buying an offered discard or passing it
    DISCARD = "discard"  # the play after the draw (lay down or discard), before laying down
    DOWN = "down"  # every decision once the contract is down (taking, lay-offs, the discard)


class Swapped:
    """A player making ``swapped`` decisions as ``other`` does and the rest as ``own`` does."""

    def __init__(self, own: ArenaPolicy, other: ArenaPolicy, swapped: Decisions) -> None:
        self.own, self.other, self.swapped = own, other, swapped

    def _deciding(self, sight: Sight, kind: Decisions) -> ArenaPolicy:
        if sight.melds:
            kind = Decisions.BUY if kind is Decisions.BUY else Decisions.DOWN
        return self.other if kind is self.swapped else self.own

    def wants_discard(self, sight: Sight, card: Card) -> bool:
        return self._deciding(sight, Decisions.TAKE).wants_discard(sight, card)

    def wants_to_buy_at(self, sight: Sight, card: Card) -> bool:
        return self._deciding(sight, Decisions.BUY).wants_to_buy_at(sight, card)

    def choose_play_after_draw(self, sight: Sight) -> Play:
        return self._deciding(sight, Decisions.DISCARD).choose_play_after_draw(sight)


def swapping(kind: Decisions, opponents: PolicyName) -> PolicyMaker:
    """Builds the challenger as ``Swapped``: its ``kind`` of decisions made as ``opponents`` does."""

    def make(name: PolicyName, at: Round, seed: str) -> ArenaPolicy:
        return Swapped(make_policy(name, at, seed), make_policy(opponents, at, f"{seed}/swapped"), kind)

    return make


def play(out: Path, rules: str, rounds: Sequence[int], challenger: str, opponents: str, seeds: Sequence[int],
         players: int, swap: Decisions | None = None) -> None:
    done = {(row["round"], row["seed"]) for row in _rows(out)} if out.exists() else set()
    match = Match(rules, players, PolicyName.named(challenger), PolicyName.named(opponents))
    make = make_policy if swap is None else swapping(swap, match.opponents)
    with out.open("a") as stream:
        for seed in seeds:
            for number in rounds:
                if (number, seed) in done:
                    continue
                start = time.process_time()
                result = play_seed(match, number, seed, make_challenger=make)
                stream.write(json.dumps({"round": number, "seed": seed, "rel": result.relative_points,
                                         "out": sum(t.went_out_first for t in result.tables),
                                         "cpu": round(time.process_time() - start, 3)}) + "\n")
                stream.flush()


def _rows(path: Path) -> list[dict[str, Any]]:
    """The lines of ``play``, or of a ``rummy-arena --save`` file read as such."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [_played(row) if "tables" in row else row for row in rows]


def _played(row: dict[str, Any]) -> dict[str, Any]:
    result = seed_result(row)
    return {"round": result.round_number, "seed": result.seed, "rel": result.relative_points,
            "out": sum(t.went_out_first for t in result.tables), "cpu": sum(t.seconds for t in result.tables)}


def compare(before: Path, after: Path) -> str:
    old = {(row["round"], row["seed"]): row for row in _rows(before)}
    new = {(row["round"], row["seed"]): row for row in _rows(after)}
    both = sorted(set(old) & set(new))
    rounds = sorted({number for number, _ in both})
    header = (f"{'round':>5} {'seeds':>5}  {'before (95% CI)':<24}{'after (95% CI)':<24}{'after less before':<24}"
              f"{'differ':>6}  {'CPU s before/after':>18}")
    lines = [header]
    every = [seed for seed in sorted({seed for _, seed in both}) if all((n, seed) in old and (n, seed) in new
                                                                        for n in rounds)]
    groups: list[tuple[str, list[list[tuple[int, int]]]]] = [
        (str(number), [[(number, seed)] for _, seed in both if _ == number]) for number in rounds]
    groups.append(("total", [[(number, seed) for number in rounds] for seed in every]))
    for name, seeds in groups:
        if not seeds:
            continue
        xs = [sum(old[key]["rel"] for key in keys) / len(keys) for keys in seeds]
        ys = [sum(new[key]["rel"] for key in keys) / len(keys) for keys in seeds]
        differences = [y - x for x, y in zip(xs, ys, strict=True)]
        cpu = (sum(old[key]["cpu"] for keys in seeds for key in keys),
               sum(new[key]["cpu"] for keys in seeds for key in keys))
        lines.append(f"{name:>5} {len(seeds):>5}  {_shown(xs):<24}{_shown(ys):<24}{_shown(differences):<24}"
                     f"{sum(abs(d) > 1e-9 for d in differences):>6}  {cpu[0]:>8.0f} / {cpu[1]:<8.0f}")
    return "\n".join(lines)


def _numbers(spec: str) -> list[int]:
    """``0-29`` or ``1,3,6`` (or both, ``1-3,7``) as the numbers they name."""
    numbers: list[int] = []
    for part in spec.split(","):
        first, _, last = part.partition("-")
        numbers.extend(range(int(first), int(last or first) + 1))
    return numbers


def _shown(values: Sequence[float]) -> str:
    found = interval(values)
    if found.low is None or found.high is None:
        return f"{found.mean:+.1f}"
    return f"{found.mean:+.1f} ({found.low:+.1f}, {found.high:+.1f})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    played = commands.add_parser("play", help="play the match's seeds and rounds with this code")
    played.add_argument("out", type=Path)
    played.add_argument("--rules", default="progressive")
    played.add_argument("--rounds", default="1-7")
    played.add_argument("--players", type=int, default=4)
    played.add_argument("--challenger", default="advised")
    played.add_argument("--opponents", default="simulated")
    played.add_argument("--seeds", default="0-29")
    played.add_argument("--swap", choices=list(Decisions), type=Decisions,
                        help="make this kind of the challenger's decisions as the opponents do")
    compared = commands.add_parser("compare", help="the paired table of two runs")
    compared.add_argument("before", type=Path)
    compared.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    if args.command == "compare":
        print(compare(args.before, args.after))
        return 0
    play(args.out, args.rules, _numbers(args.rounds), args.challenger, args.opponents, _numbers(args.seeds),
         args.players, args.swap)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
