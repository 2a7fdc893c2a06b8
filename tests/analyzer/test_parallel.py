"""``analyzer.parallel.ordered_map``: the same results in job order in worker processes, a few jobs
taken ahead of the results, a dead worker reported at once, the workers stopped on leaving."""

from __future__ import annotations

import contextlib
import itertools
import multiprocessing
import os
import signal
from collections.abc import Iterator

import pytest

from analyzer.parallel import IN_FLIGHT, EngineError, WorkerLost, ordered_map


def _square_or_die(number: int) -> int:
    """A job: its square, but job 5 kills its own worker process (as the out-of-memory killer)."""
    if number == 5:
        os.kill(os.getpid(), signal.SIGKILL)
    return number * number


def test_processes_give_the_results_of_one_process_in_job_order() -> None:
    jobs = [9, -3, 4, 0, 7, -8, 2, 6, -1]
    here = list(ordered_map(abs, jobs))
    assert here == [9, 3, 4, 0, 7, 8, 2, 6, 1]
    assert list(ordered_map(abs, jobs, workers=2)) == here
    assert not multiprocessing.active_children()


def test_only_a_few_jobs_are_taken_ahead_of_the_results() -> None:
    """A long lazy job list (the bank's attempts) is not drawn whole: taking 3 results draws at
    most IN_FLIGHT jobs a worker beyond them, and closing stops the workers."""
    drawn = 0

    def jobs() -> Iterator[int]:
        nonlocal drawn
        for number in itertools.count(10):
            drawn += 1
            yield number

    with contextlib.closing(ordered_map(abs, jobs(), workers=2)) as results:
        assert list(itertools.islice(results, 3)) == [10, 11, 12]
    assert 3 <= drawn <= 3 + IN_FLIGHT * 2
    assert not multiprocessing.active_children()


def test_a_worker_that_dies_raises_worker_lost_and_stops_the_other() -> None:
    taken: list[int] = []
    with pytest.raises(WorkerLost, match="a worker process stopped"):
        taken.extend(ordered_map(_square_or_die, range(12), workers=2))  # the results before it kept
    assert taken == [number * number for number in range(len(taken))] and len(taken) <= 5
    assert not multiprocessing.active_children()


@pytest.mark.parametrize(("workers", "engine", "message"), [
    (2, "threads", "unknown engine 'threads'; known: process, ray"),
    (0, "process", "workers must be 1 or more, not 0"),
])
def test_a_bad_engine_or_worker_count_is_refused_before_any_job(workers: int, engine: str, message: str) -> None:
    with pytest.raises(EngineError) as error:
        ordered_map(abs, [1], workers, engine)
    assert str(error.value) == message
