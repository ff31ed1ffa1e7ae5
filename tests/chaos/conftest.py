"""Real worker processes for tests that kill, stall and restart things.

Each `WorkerProcess` is `manage.py rundramatiq` (a Dramatiq master and its worker
processes) in its own session, on the test run's private Postgres (the test database)
and Redis, so a test can SIGKILL it like the OOM killer would.
"""

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from django.db import connection

from tests.harness.faults import kill_group
from tests.harness.services import database_url as url_of

ROOT = Path(__file__).resolve().parents[2]
LEASE_SECONDS = 3


def database_url() -> str:
    """The test database (pytest-django's), as a URL a subprocess can use."""
    return url_of(connection.settings_dict)


class WorkerProcess:
    def __init__(
        self, env: dict[str, str], log: Path, threads: int = 2, processes: int = 1
    ) -> None:
        self.env, self.log_path = env, log
        self.command = [
            sys.executable,
            "manage.py",
            "rundramatiq",
            "--processes",
            str(processes),
            "--threads",
            str(threads),
            "--worker-shutdown-timeout",
            "5000",
        ]
        self.popen: subprocess.Popen | None = None

    def start(self) -> "WorkerProcess":
        self.log = open(self.log_path, "ab")  # noqa: SIM115 - closed in stop()
        self.popen = subprocess.Popen(
            self.command,
            cwd=ROOT,
            env=self.env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.wait_ready()
        return self

    def wait_ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.popen.poll() is not None:
                raise AssertionError(f"worker exited early:\n{self.output()}")
            if "ready for action" in self.output():
                return
            time.sleep(0.1)
        raise AssertionError(f"worker not ready in {timeout} s:\n{self.output()}")

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")

    def worker_pids(self) -> set[int]:
        """The pids of the processes that run actors (the master's children)."""
        try:
            return {child.pid for child in psutil.Process(self.popen.pid).children(recursive=True)}
        except psutil.NoSuchProcess:
            return set()

    def kill(self) -> None:
        """SIGKILL every process of this worker, as the OOM killer would."""
        kill_group(self.popen.pid)
        self.popen.wait(10)

    def stop(self) -> None:
        if self.popen is not None and self.popen.poll() is None:
            with_suppressed(os.killpg, self.popen.pid, signal.SIGTERM)
            try:
                self.popen.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()
        self.log.close()


def with_suppressed(fn, *args) -> None:
    with contextlib.suppress(ProcessLookupError):  # already gone
        fn(*args)


@pytest.fixture
def worker_env(settings, tmp_path) -> dict[str, str]:
    """What a worker process needs to share this test's database, Redis and files."""
    settings.INGEST_LEASE_SECONDS = LEASE_SECONDS
    env = dict(os.environ)
    env.update(
        DATABASE_URL=database_url(),
        REDIS_URL=settings.REDIS_URL,
        INGEST_MEDIA_ROOT=str(settings.MEDIA_ROOT),
        INGEST_LEASE_SECONDS=str(LEASE_SECONDS),
        LOG_LEVEL="INFO",
    )
    return env


@pytest.fixture
def start_worker(worker_env, tmp_path) -> Iterator:
    """start_worker(**env) → a running WorkerProcess; all are stopped after the test."""
    started: list[WorkerProcess] = []

    def start(threads: int = 2, **extra_env: str) -> WorkerProcess:
        env = {**worker_env, **extra_env}
        worker = WorkerProcess(env, tmp_path / f"worker-{len(started)}.log", threads=threads)
        started.append(worker)
        return worker.start()

    yield start
    for worker in started:
        worker.stop()


@pytest.fixture
def slow_openai(settings) -> Iterator:
    """A fake OpenAI embeddings API for worker processes, with the `openai` provider set
    for them (worker_env) and for this process."""
    from search.embedding import PROBE_TEXT
    from search.embedding.ratelimit import shared_limiter
    from tests.fakes.openai_server import FakeOpenAI

    with FakeOpenAI(api_key="test-key") as server:
        server.prompt = {PROBE_TEXT}  # a worker starts at once, whatever the delay
        shared_limiter().clear()
        yield server
        shared_limiter().clear()


def openai_env(server) -> dict[str, str]:
    return {
        "INGEST_EMBED_PROVIDER": "openai",
        "OPENAI_BASE_URL": server.url + "/v1",
        "OPENAI_API_KEY": "test-key",
        "INGEST_EMBED_TIMEOUT_SECONDS": "30",
        "INGEST_RETRY_BASE_SECONDS": "0.5",
        "INGEST_RETRY_MAX_SECONDS": "3",
    }
