"""Web benchmark: the served app on loopback against the analysis it wraps, measured in one run.

    .venv/bin/python -m benchmarks.web            # about a minute
    .venv/bin/python -m benchmarks.web --quick    # a smoke test

The server is ``rummy-trainer``'s (waitress, 4 threads) in its own process, with the rate limit
out of the way, its analyses answered by the worker pool (webapp/pool.py, one worker per core;
``--workers 0`` answers them in the request's own thread, as before the pool). Typical hands: every round of ``progressive``, deal size + 1 cards from the
4-player deck, as the analysis page's shared link asks them
(``/analyze?hand=...&rules=progressive&round=N&players=4``); each hand is asked once cold, so
the answer cache never helps unless said.

It prints, each as median / p99 / max with requests per second where there is load:
- in-process: ``advise`` on each hand, exactly as the page asks it (no Flask, no HTTP);
- the analysis page, one client at a time, on the same hands (each hand in-process, then its
  page, in turn): the median of page less in-process is what the web layer adds (goal: at most
  5 ms);
- the same pages again, now answered from the cache: the web layer alone, measured directly
  (reading the question, drawing the page, HTTP), beside the home page (HTTP and Flask alone);
- the analysis page (other hands, all cold) and the home page, each with 20 concurrent clients
  for a fixed time (keep-alive connections), so the page can be read beside the bare web layer;
  the analysis page's rate there is distinct analyses a second (every hand asked once).
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

from analyzer import advise, preset
from analyzer.cards import ALL_NATURALS, JOKER

PLAYERS = 4
CLIENTS = 20
SERVER = """
import logging, sys, waitress
from webapp import create_app
logging.getLogger("waitress").setLevel(logging.ERROR)  # "task queue depth" is the point of a load test
from webapp.db import upgrade
app = create_app()
upgrade(app.config["DATABASE_URL"])
print("ready", flush=True)
waitress.serve(app, host="127.0.0.1", port=int(sys.argv[1]), threads=4, _quiet=True)
"""


def typical_hands(count: int, seed: int) -> list[tuple[list[str], int]]:
    rules = preset("progressive")
    deck = rules.deck_for(PLAYERS)
    cards = list(ALL_NATURALS) * deck.decks + [JOKER] * deck.jokers
    rng = random.Random(seed)
    hands = []
    for i in range(count):
        number = i % len(rules.rounds) + 1
        hands.append(([card.token for card in rng.sample(cards, rules.round(number).deal + 1)], number))
    return hands


def page_path(hand: list[str], number: int) -> str:
    return "/analyze?" + urlencode({"hand": " ".join(hand), "rules": "progressive", "round": number,
                                    "players": PLAYERS})


def percentile(times: list[float], share: float) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def describe(name: str, times: list[float], seconds: float | None = None) -> str:
    rate = f"  {len(times) / seconds:7.1f} req/s" if seconds else ""
    return (f"{name:<44} n={len(times):<5} p50 {statistics.median(times) * 1000:7.1f} ms  "
            f"p99 {percentile(times, 0.99) * 1000:7.1f} ms  max {max(times) * 1000:7.1f} ms{rate}")


def in_process(hands: list[tuple[list[str], int]]) -> list[float]:
    rules = preset("progressive")
    times = []
    for hand, number in hands:
        started = time.perf_counter()
        advise(hand, rules, number, PLAYERS, time_limit=2.0)  # as webapp.questions.answer asks the page's
        times.append(time.perf_counter() - started)
    return times


def one_client(port: int, paths: list[str]) -> list[float]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    times = []
    for path in paths:
        started = time.perf_counter()
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        times.append(time.perf_counter() - started)
        if response.status != 200:
            raise SystemExit(f"{path} answered {response.status}")
    connection.close()
    return times


def load(port: int, paths: list[str], clients: int, seconds: float) -> tuple[list[float], float]:
    """``clients`` threads, each on its own keep-alive connection, asking ``paths`` in turn until
    ``seconds`` are up; every latency, and the time it really took."""
    times: list[float] = []
    failures: list[str] = []
    lock = threading.Lock()
    deadline = time.perf_counter() + seconds

    def client(offset: int) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        mine = []
        index = offset
        while time.perf_counter() < deadline:
            path = paths[index % len(paths)]
            index += clients
            started = time.perf_counter()
            connection.request("GET", path)
            response = connection.getresponse()
            response.read()
            mine.append(time.perf_counter() - started)
            if response.status != 200:
                failures.append(f"{path} -> {response.status}")
        connection.close()
        with lock:
            times.extend(mine)

    started = time.perf_counter()
    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise SystemExit(f"{len(failures)} failed requests, e.g. {failures[0]}")
    return times, time.perf_counter() - started


def cpu_seconds(root: int) -> float:
    """CPU time (user + system) of process ``root`` and every live process under it (the
    solver's workers and their fork server), from /proc; 0 where there is no /proc."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry.name)] = int(fields[1])
        times[int(entry.name)] = (int(fields[11]) + int(fields[12])) / tick
    tree, grown = {root}, True
    while grown:
        grown = False
        for pid, parent in parents.items():
            if parent in tree and pid not in tree:
                tree.add(pid)
                grown = True
    return sum(times.get(pid, 0.0) for pid in tree)


def start_server(port: int, instance: Path, workers: int | None = None) -> subprocess.Popen[str]:
    environment = {**os.environ, "RUMMY_INSTANCE_PATH": str(instance), "RUMMY_ANALYSIS_CACHE_SIZE": "100000",
                   "RUMMY_ANALYSIS_PER_MINUTE": "1000000000"}
    if workers is not None:
        environment["RUMMY_ANALYSIS_WORKERS"] = str(workers)
    environment.pop("DATABASE_URL", None)
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(port)], env=environment, stdout=subprocess.PIPE,
                              text=True)
    assert server.stdout is not None
    if server.stdout.readline().strip() != "ready":
        raise SystemExit("the server did not start")
    for _ in range(100):
        try:
            http.client.HTTPConnection("127.0.0.1", port, timeout=1).request("GET", "/")
            return server
        except OSError:
            time.sleep(0.05)
    raise SystemExit("the server does not answer")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small suites and short loads: a smoke test")
    parser.add_argument("--port", type=int, default=5071)
    parser.add_argument("--workers", type=int, default=None,
                        help="solver worker processes (default: one per core; 0: in the request's thread)")
    args = parser.parse_args(argv)
    sequential_count, loaded_count, seconds = (28, 150, 3.0) if args.quick else (140, 1200, 15.0)
    hands = typical_hands(sequential_count + loaded_count + 7, seed=1)
    paths = [page_path(hand, number) for hand, number in hands]
    warm_up, paths = paths[:7], paths[7:]
    hands = hands[7:sequential_count + 7]
    sequential_paths, loaded_paths = paths[:sequential_count], paths[sequential_count:]

    with tempfile.TemporaryDirectory() as instance:
        server = start_server(args.port, Path(instance), args.workers)
        try:
            one_client(args.port, warm_up)  # imports, templates, the solver's first models
            # Interleaved, hand by hand, so that load from elsewhere on the machine falls on both alike.
            inside, sequential = [], []
            for hand, path in zip(hands, sequential_paths, strict=True):
                inside += in_process([hand])
                sequential += one_client(args.port, [path])
            cached = one_client(args.port, sequential_paths)
            home_alone = one_client(args.port, ["/"] * len(sequential_paths))
            cpu_before = cpu_seconds(server.pid)
            page, page_seconds = load(args.port, loaded_paths, CLIENTS, seconds)
            page_cpu = cpu_seconds(server.pid) - cpu_before
            home, home_seconds = load(args.port, ["/"], CLIENTS, seconds)
        finally:
            server.terminate()
            server.wait()

    pool = "default (one per core)" if args.workers is None else str(args.workers)
    print(f"typical progressive hands (deal + 1 cards, {PLAYERS} players), {len(hands)} distinct; "
          f"server: waitress, 4 threads, solver workers {pool}; load: {CLIENTS} clients for {seconds:g} s")
    print(describe("in-process advise (the page's analysis)", inside))
    print(describe("analysis page, 1 client", sequential))
    print(describe("analysis page, 1 client, answers cached", cached))
    print(describe("home page, 1 client", home_alone))
    print(describe(f"analysis page, {CLIENTS} clients", page, page_seconds))
    print(describe(f"home page, {CLIENTS} clients", home, home_seconds))
    added = statistics.median(page - alone for page, alone in zip(sequential, inside, strict=True))
    print(f"web layer adds at p50 (1 client): {added * 1000:.1f} ms (median of page less in-process, hand by hand), "
          f"{statistics.median(cached) * 1000:.1f} ms measured alone (goal <= 5 ms); "
          f"ratio page / in-process p50: {statistics.median(sequential) / statistics.median(inside):.2f}")
    distinct = min(len(page), len(loaded_paths))
    print(f"distinct analyses per second at {CLIENTS} clients: {distinct / page_seconds:.1f}; the server's CPU "
          f"{page_cpu / distinct * 1000:.1f} ms an analysis (workers included), "
          f"{page_cpu / page_seconds:.2f} cores busy of {os.cpu_count()}")
    if len(page) > len(loaded_paths):
        print(f"(the loaded run asked {len(page)} pages of {len(loaded_paths)} distinct hands: some from the cache)")
    print(f"20 clients: analysis page p50 / home page p50 = "
          f"{statistics.median(page) / statistics.median(home):.1f}; home page throughput / analysis page "
          f"throughput = {(len(home) / home_seconds) / (len(page) / page_seconds):.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
