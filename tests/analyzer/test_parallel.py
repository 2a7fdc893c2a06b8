"""``analyzer.parallel.ordered_map``: the same results in job order in worker processes, a few jobs
taken ahead of the results, a job's error and a dead worker reported, no worker left running."""

from __future__ import annotations

import contextlib
import itertools
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from analyzer.parallel import IN_FLIGHT, EngineError, WorkerLost, ordered_map


def _square_or_die(number: int) -> int:
    """A job: its square, but job 5 kills its own worker process (as the out-of-memory killer)."""
    if number == 5:
        os.kill(os.getpid(), signal.SIGKILL)
    return number * number


@pytest.fixture
def no_worker_left() -> Iterator[None]:
    """The test leaves no child process it started running (children of earlier tests aside)."""
    before = set(multiprocessing.active_children())
    yield
    assert set(multiprocessing.active_children()) <= before


def _slow_mark(path: str) -> str:
    """A job that takes a while, then leaves a file behind to say it ran."""
    time.sleep(0.3)
    Path(path).touch()
    return path


def _within(seconds: float, work: Callable[[], object]) -> list[object]:
    """``work()`` in a thread: its result or exception, or a failure if it takes longer (a pool
    that waits for a dead worker's job for ever must fail the test, not hang it)."""
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(work())
        except Exception as error:  # noqa: BLE001 - handed to the test
            outcome.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still running after {seconds} s"
    return outcome


def test_processes_give_the_results_of_one_process_in_job_order(no_worker_left: None) -> None:
    jobs = [9, -3, 4, 0, 7, -8, 2, 6, -1]
    here = list(ordered_map(abs, jobs))
    assert here == [9, 3, 4, 0, 7, 8, 2, 6, 1]
    assert list(ordered_map(abs, jobs, workers=2)) == here


def test_only_a_few_jobs_are_taken_ahead_of_the_results(no_worker_left: None) -> None:
    """A long lazy job list (the bank's attempts) is not drawn whole: taking 3 results draws at
    most IN_FLIGHT jobs a worker beyond them."""
    drawn = 0

    def jobs() -> Iterator[int]:
        nonlocal drawn
        for number in range(10, 10_000):
            drawn += 1
            yield number

    with contextlib.closing(ordered_map(abs, jobs(), workers=2)) as results:
        assert list(itertools.islice(results, 3)) == [10, 11, 12]
    assert 3 <= drawn <= 3 + IN_FLIGHT * 2


def test_leaving_early_with_jobs_running_stops_the_workers(no_worker_left: None, tmp_path: Path) -> None:
    """Closed after the first result, with the next jobs running: those finish, the jobs not
    started are dropped."""
    jobs = [str(tmp_path / f"job-{number}") for number in range(20)]
    with contextlib.closing(ordered_map(_slow_mark, jobs, workers=2)) as results:
        assert next(results) == jobs[0]
    ran = sorted(int(path.name.split("-")[1]) for path in tmp_path.iterdir())
    assert ran == list(range(len(ran))) and 1 <= len(ran) <= 1 + IN_FLIGHT * 2


def test_an_error_in_a_job_reaches_the_caller_as_itself(no_worker_left: None) -> None:
    with pytest.raises(ValueError, match="invalid literal"):
        list(ordered_map(int, ["1", "2", "three", "4"], workers=2))


def test_a_worker_that_dies_raises_worker_lost_and_stops_the_other(no_worker_left: None) -> None:
    taken: list[int] = []
    [outcome] = _within(60, lambda: taken.extend(ordered_map(_square_or_die, range(12), workers=2)))
    assert isinstance(outcome, WorkerLost) and str(outcome).startswith("a worker process stopped")
    assert taken == [number * number for number in range(len(taken))] and len(taken) <= 5


@pytest.mark.parametrize(("workers", "engine", "message"), [
    (2, "threads", "unknown engine 'threads'; known: process, ray"),
    (0, "process", "workers must be 1 or more, not 0"),
])
def test_a_bad_engine_or_worker_count_is_refused_before_any_job(workers: int, engine: str, message: str) -> None:
    with pytest.raises(EngineError) as error:
        ordered_map(abs, [1], workers, engine)
    assert str(error.value) == message
