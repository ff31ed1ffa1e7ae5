"""A pytest plugin that gives the test run its own Postgres and Redis (tests.harness).

It runs before pytest-django loads the settings, so DATABASE_URL, REDIS_URL and
INGEST_DATA_DIR point at private instances in a temporary directory: the suite never
touches the checkout's embedded services or the machine's shared ones, and tests may
stop and restart these freely. Both are removed when the run ends.

Under pytest-xdist (`pytest -n 2`, as `make test` runs) every worker is a pytest process
of its own and starts its own pair, so workers never share a database, a queue or a
data directory; the controller, which runs no test, starts none.
"""

import atexit
import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from config.tooling import embedded
from tests.harness import services as harness

_running: list[harness.PrivateServices] = []


@pytest.hookimpl(hookwrapper=True)
def pytest_load_initial_conftests(early_config, parser, args):
    os.environ.update(
        DJANGO_SECRET_KEY="tests-only-secret",
        # Never the paid API because someone has a key in their shell.
        INGEST_EMBED_PROVIDER="hashing",
        INGEST_RERANK_URL="",
    )
    if _runs_tests(early_config):
        _start_services()
    else:
        _controller_data_dir()
    yield


def _runs_tests(early_config: pytest.Config) -> bool:
    """False for an xdist controller: it hands the tests to workers and runs none."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return True
    options = early_config.known_args_namespace
    return not getattr(options, "numprocesses", None) or getattr(options, "dist", "") == "no"


def _start_services() -> None:
    services = harness.start(Path(tempfile.mkdtemp(prefix="ingest-tests-")))
    _running.append(services)
    atexit.register(_stop_services)
    os.environ.update(
        services.variables,
        INGEST_TEST_ROOT=str(services.root),
        # Named outright: an xdist worker inherits the controller's, which its settings set.
        PROMETHEUS_MULTIPROC_DIR=str(services.data_dir / "prometheus"),
    )


def _controller_data_dir() -> None:
    """The xdist controller loads the settings too: a data directory of its own keeps
    them off the checkout's var/."""
    root = tempfile.mkdtemp(prefix="ingest-tests-controller-")
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    os.environ["INGEST_DATA_DIR"] = root


def _services() -> harness.PrivateServices:
    return _running[0]


def redis_server() -> embedded.RedisServer:
    """The run's private Redis, for tests that stop or restart it."""
    redis = _services().redis
    assert redis is not None  # running until the run ends
    return redis


@contextlib.contextmanager
def postgres_stopped() -> Iterator[None]:
    """The run's private Postgres stopped (every session ended, nothing answering) for
    the block, then started again on the same socket. Use with transactional tests:
    the block ends every open transaction."""
    from django.db import connection  # settings are loaded by the time tests run

    try:
        with _services().postgres_stopped():
            yield
    finally:
        connection.close()  # this thread's connection died with the server


def restart_postgres() -> None:
    """A fast restart of the run's private Postgres: every session ends, and it answers
    again on the same socket when this returns."""
    from django.db import connection

    _services().restart_postgres()
    connection.close()  # this thread's connection died with the old server


def pytest_unconfigure(config: pytest.Config) -> None:
    _stop_services()


def _stop_services() -> None:
    """Stop what _start_services started; safe to call twice (atexit covers a run that
    fails before pytest_unconfigure)."""
    while _running:
        services = _running.pop()
        services.stop()
        if not os.environ.get("INGEST_KEEP_TEST_ROOT"):
            shutil.rmtree(services.root, ignore_errors=True)
