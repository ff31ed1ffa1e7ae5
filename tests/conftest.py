import contextlib
import importlib
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import dramatiq
import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import override_settings
from rest_framework.test import APIClient

from jobs.models import TERMINAL_STATUSES, Job
from tests.harness import passwords


@pytest.fixture(scope="session", autouse=True)
def quick_password_hashing() -> Iterator[None]:
    """Users made in the tests get cheap password hashes (tests/harness/passwords.py)."""
    with override_settings(PASSWORD_HASHERS=passwords.HASHERS):
        yield


@pytest.fixture
def alice(db) -> User:
    return User.objects.create_user("alice", password="alice-password")


@pytest.fixture
def bob(db) -> User:
    return User.objects.create_user("bob", password="bob-password")


def client_for(user: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def alice_client(alice) -> APIClient:
    return client_for(alice)


@pytest.fixture
def bob_client(bob) -> APIClient:
    return client_for(bob)


def pdf_upload(content: bytes, name: str = "report.pdf") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content, content_type="application/pdf")


@pytest.fixture
def broker() -> dramatiq.Broker:
    """The configured Redis broker, on the run's private Redis, emptied."""
    declare_actors()
    broker = dramatiq.get_broker()
    broker.flush_all()  # the queues the actors declared
    return broker


def declare_actors() -> None:
    """Import the actors, which declare their queues on the broker, as `rundramatiq`
    does. Nothing else in a test process may have: the queue sends by name."""
    importlib.import_module("jobs.actors")
    importlib.import_module("jobs.ops.actors")  # the `alerts` queue
    importlib.import_module("jobs.webhooks.actors")  # the `webhooks` queue


@contextlib.contextmanager
def running_worker(broker: dramatiq.Broker, threads: int = 2) -> Iterator[dramatiq.Worker]:
    """A real Dramatiq worker in this process, stopped and detached from the broker after."""
    declare_actors()  # the queues the worker consumes
    worker = dramatiq.Worker(broker, worker_threads=threads, worker_timeout=100)
    worker.start()
    try:
        yield worker
    finally:
        worker.stop()
        # Each Worker adds a middleware to the broker; leave none behind for the next test.
        broker.middleware[:] = [
            m for m in broker.middleware if getattr(m, "worker", None) is not worker
        ]


@pytest.fixture
def worker(broker) -> Iterator[dramatiq.Worker]:
    """A real Dramatiq worker with two threads, in this process."""
    with running_worker(broker) as worker:
        yield worker


@pytest.fixture
def no_other_workers(db) -> None:
    """No worker process beating into the test database when the test starts, for tests
    that count live workers' threads. A server an earlier test file stopped after its last
    flush may have beaten once more; killed, it counts as alive until its beat is
    heartbeat.silence_seconds() late. Fails, naming them, if some still beat after that."""
    from jobs.models import WorkerProcess
    from jobs.worker import heartbeat

    deadline = time.monotonic() + heartbeat.silence_seconds() + 15
    while heartbeat.alive().exists():
        if time.monotonic() > deadline:
            rows = list(heartbeat.alive().values("name", "threads", "queues", "beat_at"))
            pytest.fail(f"worker processes still beat into the test database: {rows}")
        time.sleep(0.5)
    WorkerProcess.objects.all().delete()


def processed(client, content: bytes, name: str = "report.pdf") -> str:
    """The id of a document `client` uploads, once its job succeeded (a worker must run)."""
    sent = client.post("/api/documents/", {"file": pdf_upload(content, name)}).json()
    [job] = wait_until_terminal([sent["results"][0]["job_id"]])
    assert job.status == "succeeded", job.error_detail
    return sent["results"][0]["document_id"]


def new_version(client, document_id: str, content: bytes, name: str = "report.pdf") -> None:
    """Upload `content` as the document's next version, and wait until its job ended."""
    sent = client.post(
        f"/api/documents/{document_id}/versions/",
        {"file": pdf_upload(content, name)},
        format="multipart",
    ).json()
    wait_until_terminal([sent["job_id"]])


def wait_until_terminal(job_ids: list[uuid.UUID], timeout: float = 60) -> list[Job]:
    """Poll the database until every job has ended, or fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        jobs = list(Job.objects.filter(id__in=job_ids))
        if len(jobs) == len(job_ids) and all(job.status in TERMINAL_STATUSES for job in jobs):
            return jobs
        if time.monotonic() > deadline:
            states = {str(job.id): job.status for job in jobs}
            pytest.fail(f"jobs did not finish within {timeout} s: {states}")
        time.sleep(0.05)


T = TypeVar("T")


def eventually(probe: Callable[[], T], timeout: float = 60) -> T:
    """Call `probe` until it returns something truthy without raising; fail after
    `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            result = probe()
        except Exception:
            if time.monotonic() > deadline:
                raise
        else:
            if result:
                return result
            if time.monotonic() > deadline:
                raise AssertionError(f"still {result!r} after {timeout} s")
        time.sleep(0.05)


@pytest.fixture(autouse=True)
def isolated_media(settings, tmp_path):
    """Each test stores uploads in its own directory."""
    settings.MEDIA_ROOT = str(tmp_path / "media")


def at_once(task: Callable[[], T], count: int = 2) -> list[T]:
    """Run `task` in `count` threads released together; their results, in any order.

    Each thread has its own database connection, closed when it is done.
    """
    barrier = threading.Barrier(count)
    results: list[T] = []

    def run() -> None:
        try:
            barrier.wait()
            results.append(task())
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


# Modules whose tests take seconds each (real worker processes, servers, fuzzing, the
# benchmarks' smoke runs): `pytest -m "not slow"` leaves them out. Measured with
# `pytest --durations`; a module joins when its tests pass a few seconds each.
SLOW_MODULES = {
    "bench/test_mcp_bench.py",
    "bench/test_paraphrase_snippets.py",
    "config/test_https.py",
    "config/test_quick_start.py",
    "config/test_schema_fuzz.py",
    "config/tooling/test_embedded.py",
    "config/tooling/test_embedded_status.py",
    "documents/mcp/test_web_process.py",
    "documents/page/socket/test_consumer_daphne.py",
    "documents/page/socket/test_consumer_limits.py",
    "documents/upkeep/test_embedding_change.py",
    "documents/upkeep/test_reembed.py",
    "documents/upkeep/test_reocr.py",
    "jobs/ops/test_metrics_processes.py",
    "jobs/test_fair_workers.py",
    "jobs/test_lanes_workers.py",
    "jobs/webhooks/sending/test_delivery_hang.py",
    "jobs/worker/test_priority.py",
    "search/retrieval/test_search_recall.py",
    "search/test_bench_search.py",
    "search/test_corpus.py",
    "search/test_reader_pdfium.py",
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark each test `browser`, `chaos` and `slow` from where it lives and what it uses."""
    tests_root = Path(__file__).parent
    for item in items:
        where = item.path.relative_to(tests_root).as_posix()
        if "chromium_path" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)
        if where.startswith("chaos/"):
            item.add_marker(pytest.mark.chaos)
        if {"browser", "chaos"} & set(item.keywords) or where in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
