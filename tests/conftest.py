import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from analyzer.round_solver import PROVEN

settings.register_profile("dev", max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", max_examples=150, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


@pytest.fixture(autouse=True)
def nothing_proven_yet() -> None:
    """Each test asks its questions from scratch: the answers an earlier test proved are not
    kept across (``analyzer.round_solver.PROVEN``), so no test depends on which ran before."""
    PROVEN.clear()


@pytest.fixture(scope="session")
def local_ray() -> Iterator[None]:
    """A local Ray for the ``--engine ray`` tests (one CPU, started once a run); the test is
    skipped, saying why, where Ray is not installed (``pip install '.[cluster]'``; CI installs it)."""
    ray = pytest.importorskip("ray", reason="Ray is not installed: pip install '.[cluster]' (the optional cluster extra)")
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()
