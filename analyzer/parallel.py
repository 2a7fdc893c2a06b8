"""Pure jobs run in order: here, in worker processes on this machine, or as Ray tasks.

The one home of ``--workers N`` and ``--engine ray`` for the arena (a seed played), the puzzle
bank (a generation attempt), the bank's carry-over (a puzzle derived again) and the going-out
tables (an entry measured). Each job is a pure function of its argument, so the results are the
same, in the same order, whatever the number of workers or the engine.

- A few jobs are submitted ahead of the one whose result is taken next (``IN_FLIGHT`` per worker),
  never the whole list: a caller that stops early (the bank, once it has its puzzles) leaves no
  work queued, and the jobs may be a long lazy iterator.
- A worker process that dies (killed, out of memory) raises ``WorkerLost`` at once, where
  ``multiprocessing.Pool`` would wait for its job for ever (Ray reports a lost task itself).
- Leaving the iterator early (closed, or an exception) cancels the jobs not started and waits
  for the few running (each a bounded search) before the workers stop: a worker killed while it
  sends a large result would leave the pool's reader waiting for the rest of it for ever.
"""

from __future__ import annotations

import multiprocessing
from collections import deque
from collections.abc import Callable, Generator, Iterable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

ENGINES = ("process", "ray")  # worker processes on this machine, or Ray tasks on a Ray cluster
IN_FLIGHT = 2  # jobs submitted ahead per worker process, or per CPU of the Ray cluster

J = TypeVar("J")
R = TypeVar("R")


class EngineError(ValueError):
    """An engine this module does not know, no worker, or Ray asked for and not installed."""


class WorkerLost(RuntimeError):
    """A worker process stopped before its job was done."""


def ordered_map(fn: Callable[[J], R], jobs: Iterable[J], workers: int = 1,
                engine: str = "process") -> Generator[R, None, None]:
    """``fn`` of each job, in job order: in this process (``workers`` 1), in ``workers`` spawned
    processes, or (``engine="ray"``) as Ray tasks, joining the cluster ``RAY_ADDRESS`` names, else
    a local one, unless the caller has initialised Ray already. ``fn`` must be a module-level
    function (it is sent to the workers by name). A generator: close it (``contextlib.closing``)
    to stop the workers when the caller leaves early.

    >>> list(ordered_map(abs, [-3, 1, -2]))
    [3, 1, 2]
    """
    if engine not in ENGINES:
        raise EngineError(f"unknown engine {engine!r}; known: {', '.join(ENGINES)}")
    if workers < 1:
        raise EngineError(f"workers must be 1 or more, not {workers}")
    if engine == "ray":
        return _in_ray(fn, jobs)
    if workers == 1:
        return (fn(job) for job in jobs)
    return _in_processes(fn, jobs, workers)


def _in_processes(fn: Callable[[J], R], jobs: Iterable[J], workers: int) -> Generator[R, None, None]:
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
    pending: deque[Future[R]] = deque()
    try:
        for job in jobs:
            pending.append(pool.submit(fn, job))
            if len(pending) >= IN_FLIGHT * workers:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    except BrokenProcessPool:
        raise WorkerLost("a worker process stopped (killed, or out of memory?)") from None
    finally:
        # The executor's own thread stops and reaps the workers (at once when one died): waiting
        # for it, rather than joining them here as well, leaves no worker half reaped by two
        # threads, and no worker listed as a child once this ends.
        pool.shutdown(wait=True, cancel_futures=True)


def _in_ray(fn: Callable[[J], R], jobs: Iterable[J]) -> Generator[R, None, None]:
    try:
        import ray
    except ImportError:
        raise EngineError("--engine ray needs Ray: pip install '.[cluster]'") from None
    if not ray.is_initialized():
        ray.init(log_to_driver=False)
    task = ray.remote(num_cpus=1)(fn)
    ahead = max(1, IN_FLIGHT * int(ray.cluster_resources().get("CPU", 1)))
    return _ray_results(ray, task, jobs, ahead)


def _ray_results(ray: Any, task: Any, jobs: Iterable[J], ahead: int) -> Generator[Any, None, None]:
    pending: deque[Any] = deque()
    try:
        for job in jobs:
            pending.append(task.remote(job))
            if len(pending) >= ahead:
                yield ray.get(pending.popleft())
        while pending:
            yield ray.get(pending.popleft())
    finally:
        for waiting in pending:
            ray.cancel(waiting)
