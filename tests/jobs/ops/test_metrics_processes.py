"""/metrics adds up what separate processes counted: real uploads over HTTP to gunicorn
with two worker processes, real jobs in a Dramatiq worker with two processes, and one
scrape over HTTP from gunicorn before and one after, as Prometheus would read them.

The servers are the browser tests' `Stack` (tests/harness/servers.py), without a browser:
they inherit this process's environment, so they share the test run's Postgres, Redis and
PROMETHEUS_MULTIPROC_DIR (settings put it in os.environ).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import dramatiq
import psutil
import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.db.models import Sum
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.parser import text_string_to_metric_families

from config.accounts.tokens import issue_token
from documents.models import Document
from jobs.models import Job, JobStatus, Lane, WorkerProcess
from search.models import Chunk
from tests.chaos.conftest import database_url
from tests.conftest import declare_actors, wait_until_terminal
from tests.factories import make_pdf
from tests.harness.servers import Stack
from tests.jobs.ops.metrics_reader import delta, value

pytestmark = pytest.mark.django_db(transaction=True)

WEB_PROCESSES = 2
WORKER_PROCESSES = 2
SETTLE_SECONDS = 15  # counters move just after the commit that ends a job
Samples = dict[tuple[str, tuple], float]


def option(command: list[str], name: str) -> int:
    """The value of `--name=N` or `--name N` in a command line."""
    for position, part in enumerate(command):
        if part.startswith(f"{name}="):
            return int(part.split("=", 1)[1])
        if part == name:
            return int(command[position + 1])
    raise AssertionError(f"no {name} in {command}")


def with_option(command: list[str], name: str, number: int) -> list[str]:
    """The command with `--name` set to `number`, whichever way it was written."""
    kept: list[str] = []
    skip = False
    for part in command:
        if skip:
            skip = False
        elif part == name:
            skip = True
        elif not part.startswith(f"{name}="):
            kept.append(part)
    return [*kept, f"{name}={number}"]


@pytest.fixture(scope="module")
def stack(django_db_setup, tmp_path_factory) -> Iterator[Stack]:
    """gunicorn (two workers), daphne and a Dramatiq worker (two processes) on the test
    database, for this module only: their worker would take other tests' jobs."""
    declare_actors()
    dramatiq.get_broker().flush_all()  # no message of an earlier test for this worker
    logs = tmp_path_factory.mktemp("metrics-servers")
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "REDIS_URL": settings.REDIS_URL,
        "INGEST_MEDIA_ROOT": str(logs / "media"),
        "WEB_CONCURRENCY": str(WEB_PROCESSES),
        "WEB_THREADS": "4",
        "LOG_LEVEL": "INFO",
        "INGEST_MAX_ATTEMPTS": "2",
        "INGEST_RETRY_BASE_SECONDS": "0.5",
        "INGEST_RETRY_MAX_SECONDS": "1",
    }
    stack = Stack(env, logs)
    stack.worker.command = with_option(stack.worker.command, "--processes", WORKER_PROCESSES)
    try:
        stack.ensure_running()
        yield stack
    finally:
        stack.stop()


@contextlib.contextmanager
def logs_on_failure(stack: Stack) -> Iterator[None]:
    try:
        yield
    except BaseException:
        print(stack.logs())
        raise


def scrape(stack: Stack) -> Samples:
    """{(sample name, sorted labels): value} of one scrape of gunicorn's /metrics."""
    with urllib.request.urlopen(f"{stack.base_url}/metrics", timeout=10) as answer:
        assert answer.status == 200
        assert answer.headers["Content-Type"].startswith("text/plain; version=")
        text = answer.read().decode()
    samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def upload(stack: Stack, token: str, *files: tuple[str, bytes]) -> tuple[int, dict]:
    """POST /api/documents/ with these files, as a client would: (status, body)."""
    boundary = uuid.uuid4().hex
    parts = [
        (
            f"--{boundary}\r\n"
            f'Content-Disposition: form-data; name="file"; filename="{name}"\r\n'
            "Content-Type: application/pdf\r\n\r\n"
        ).encode()
        + content
        + b"\r\n"
        for name, content in files
    ]
    request = urllib.request.Request(
        f"{stack.base_url}/api/documents/",
        data=b"".join(parts) + f"--{boundary}--\r\n".encode(),
        method="POST",
        headers={
            "Authorization": f"Token {token}",
            "Content-Type": f"multipart/form-data; boundary={boundary}",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def counter_pids(directory: Path) -> set[int]:
    return {
        int(match.group(1))
        for path in directory.iterdir()
        if (match := re.fullmatch(r"counter_(\d+)\.db", path.name))
    }


def accepted_by_pid(directory: Path, pids: set[int]) -> dict[int, float]:
    """ingest_uploads_total{outcome="accepted"} as each process's own file holds it."""
    counts = dict.fromkeys(pids, 0.0)
    for pid in pids:
        path = directory / f"counter_{pid}.db"
        if not path.exists():
            continue
        for family in MultiProcessCollector.merge([str(path)], accumulate=False):
            for sample in family.samples:
                if sample.name == "ingest_uploads_total" and sample.labels == {
                    "outcome": "accepted",
                    "code": "",
                }:
                    counts[pid] += sample.value
    return counts


def expected_counts() -> dict[str, float]:
    """What the counters' deltas must be, from what the database holds now."""
    succeeded = Job.objects.filter(status=JobStatus.SUCCEEDED).count()
    return {
        "ingest_job_attempts_total": succeeded,
        # Observed a moment after the attempt is counted, by the same thread.
        "ingest_document_time_to_ready_seconds_count": succeeded,
        "ingest_pages_extracted_total": Document.objects.aggregate(n=Sum("page_count"))["n"] or 0,
        "ingest_chunks_stored_total": Chunk.objects.count(),
    }


def counted(before: Samples, after: Samples) -> dict[str, float]:
    return {
        "ingest_job_attempts_total": delta(
            before, after, "ingest_job_attempts_total", outcome="succeeded"
        ),
        "ingest_document_time_to_ready_seconds_count": delta(
            before, after, "ingest_document_time_to_ready_seconds_count"
        ),
        "ingest_pages_extracted_total": delta(before, after, "ingest_pages_extracted_total"),
        "ingest_chunks_stored_total": delta(before, after, "ingest_chunks_stored_total"),
    }


def settled_scrape(stack: Stack, before: Samples) -> Samples:
    """A scrape once the workers' counters caught up with the database: each job's
    counters move after the commit that ended it, a moment after the test can see it."""
    deadline = time.monotonic() + SETTLE_SECONDS
    while True:
        after = scrape(stack)
        if counted(before, after) == expected_counts() or time.monotonic() > deadline:
            return after
        time.sleep(0.2)


def test_metrics_add_up_across_gunicorn_and_worker_processes(stack, transactional_db):
    multiproc = Path(os.environ["PROMETHEUS_MULTIPROC_DIR"])
    # One directory for this process and every server process (they inherit it).
    assert multiproc == settings.PROMETHEUS_MULTIPROC_DIR
    assert stack.env["PROMETHEUS_MULTIPROC_DIR"] == str(multiproc)
    web_pids = {child.pid for child in psutil.Process(stack.web.popen.pid).children()}
    assert len(web_pids) == WEB_PROCESSES, web_pids

    user = User.objects.create_user("metrics-user", password="unused")
    token = issue_token(user).key
    pages = [1 + n % 3 for n in range(8)]  # 17 pages in all
    pdfs = [make_pdf(pages=n, words_per_page=250, seed=seed) for seed, n in enumerate(pages)]
    assert len(set(pdfs)) == len(pdfs)

    with logs_on_failure(stack):
        before = scrape(stack)
        uploads_before = accepted_by_pid(multiproc, web_pids)

        # Four requests of two files at once, so both gunicorn workers may serve some.
        batches = [
            [(f"doc-{n}.pdf", pdfs[n]), (f"doc-{n + 1}.pdf", pdfs[n + 1])]
            for n in range(0, len(pdfs), 2)
        ]
        with ThreadPoolExecutor(len(batches)) as pool:
            answers = list(pool.map(lambda files: upload(stack, token, *files), batches))
        assert [status for status, _ in answers] == [202] * len(batches), answers
        job_ids = [result["job_id"] for _, body in answers for result in body["results"]]
        assert len(job_ids) == len(pdfs)
        status, again = upload(stack, token, ("again.pdf", pdfs[0]))
        assert status == 202, again
        assert again["results"][0]["duplicate"] is True, again
        status, refused = upload(stack, token, ("notes.pdf", b"just some text, no PDF"))
        assert 400 <= status < 500, refused
        assert refused["results"][0]["error"]["code"] == "not_a_pdf", refused

        wait_until_terminal(job_ids, timeout=45)
        after = settled_scrape(stack, before)

        # The uploads, counted by whichever gunicorn worker took each request.
        new_documents = Document.objects.count()
        assert new_documents == len(pdfs)
        assert delta(before, after, "ingest_uploads_total", outcome="accepted", code="") == (
            new_documents
        )
        assert delta(before, after, "ingest_uploads_total", outcome="duplicate", code="") == 1
        assert (
            delta(before, after, "ingest_uploads_total", outcome="rejected", code="not_a_pdf") == 1
        )
        # Five 202s: the four batches and the duplicate.
        assert delta(before, after, "ingest_upload_ack_seconds_count") == len(batches) + 1

        # The jobs, counted by whichever worker process ran each one.
        succeeded = Job.objects.filter(status=JobStatus.SUCCEEDED).count()
        assert succeeded == len(pdfs)
        assert counted(before, after) == expected_counts()
        assert delta(before, after, "ingest_pages_extracted_total") == sum(pages)
        assert delta(before, after, "ingest_chunks_stored_total") >= succeeded
        assert delta(before, after, "ingest_document_time_to_ready_seconds_count") == succeeded

        # The gauges the database answers, whichever process serves the scrape.
        for state in JobStatus.values:
            for lane in Lane.values:
                held = Job.objects.filter(status=state, lane=lane).count()
                assert ("ingest_jobs", (("lane", lane), ("status", state))) in after
                assert value(after, "ingest_jobs", status=state, lane=lane) == held, (state, lane)
        command = stack.worker.command
        threads, processes = option(command, "--threads"), option(command, "--processes")
        assert processes == WORKER_PROCESSES
        assert value(after, "ingest_worker_threads") == threads * processes
        assert value(after, "ingest_worker_processes") == processes
        assert value(after, "ingest_workers_busy") == 0
        assert value(after, "ingest_metrics_database_up") == 1

        # Every server process wrote its counters to the one directory: both gunicorn
        # workers and both worker processes (their pids are in the heartbeat rows).
        worker_pids = set(WorkerProcess.objects.values_list("pid", flat=True))
        assert len(worker_pids) == processes
        assert web_pids | worker_pids <= counter_pids(multiproc)
        # What each gunicorn worker's own file counted adds up to what /metrics says.
        uploads_after = accepted_by_pid(multiproc, web_pids)
        split = {pid: uploads_after[pid] - uploads_before[pid] for pid in web_pids}
        print(f"accepted uploads by gunicorn worker pid: {split}")
        assert sum(split.values()) == new_documents
