"""A pytest plugin that gives the test run its own Postgres and Redis.

It runs before pytest-django loads the settings, so DATABASE_URL, REDIS_URL and
INGEST_DATA_DIR point at private instances in a temporary directory: the suite never
touches the checkout's embedded services or the machine's shared ones, and tests may
stop and restart these freely. Both are removed when the run ends.
"""

import atexit
import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from config import embedded

_state: dict[str, object] = {}


@pytest.hookimpl(hookwrapper=True)
def pytest_load_initial_conftests(early_config, parser, args):
    _start_services()
    yield


def _start_services() -> None:
    root = Path(tempfile.mkdtemp(prefix="ingest-tests-"))
    server = embedded.start_postgres(root / "pg", cleanup_mode="stop")
    redis = embedded.RedisServer(root / "redis").start()
    _state.update(root=root, postgres=server, redis=redis)
    atexit.register(_stop_services)
    os.environ.update(
        INGEST_TEST_ROOT=str(root),
        DATABASE_URL=_url_for(server),
        REDIS_URL=redis.url,
        INGEST_DATA_DIR=str(root / "data"),
        DJANGO_SECRET_KEY="tests-only-secret",
        # Never the paid API because someone has a key in their shell.
        INGEST_EMBED_PROVIDER="hashing",
    )


def _url_for(server: object) -> str:
    info = server.get_postmaster_info()  # type: ignore[attr-defined]
    return embedded.socket_url(str(info.socket_dir), info.port, "postgres")


def redis_server() -> embedded.RedisServer:
    """The run's private Redis, for tests that stop or restart it."""
    return _state["redis"]  # type: ignore[return-value]


@contextlib.contextmanager
def postgres_stopped() -> Iterator[None]:
    """The run's private Postgres stopped (every session ended, nothing answering) for
    the block, then started again on the same socket. Use with transactional tests:
    the block ends every open transaction."""
    from django.db import connection  # settings are loaded by the time tests run

    server = _state["postgres"]
    pgdata = server.pgdata  # type: ignore[attr-defined]
    embedded.stop_postgres(pgdata)
    try:
        yield
    finally:
        server.ensure_postgres_running()  # type: ignore[attr-defined]
        connection.close()  # this thread's connection died with the server


def restart_postgres() -> None:
    """A fast restart of the run's private Postgres: every session ends, and it answers
    again on the same socket when this returns."""
    from django.db import connection

    embedded.restart_postgres(_state["postgres"].pgdata)  # type: ignore[attr-defined]
    connection.close()  # this thread's connection died with the old server


def pytest_unconfigure(config: pytest.Config) -> None:
    _stop_services()


def _stop_services() -> None:
    """Stop what _start_services started; safe to call twice (atexit covers a run that
    fails before pytest_unconfigure)."""
    redis = _state.pop("redis", None)
    if redis is not None:
        redis.stop()
    server = _state.pop("postgres", None)
    if server is not None:
        server.cleanup()
    root = _state.pop("root", None)
    if root is not None and not os.environ.get("INGEST_KEEP_TEST_ROOT"):
        shutil.rmtree(root, ignore_errors=True)
