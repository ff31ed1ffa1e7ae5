"""Each lane has its own worker processes: a full batch lane never delays a fast-lane file,
and scans are read by OCR on workers of their own.

Real `rundramatiq` processes, started as the Procfile's `worker-fast` and `worker-batch`
lines start them (only their lane's queues, one message prefetched per thread), and the
Procfile's `worker-ocr` line itself, run as the Procfile runner runs it.
"""

import contextlib
import os
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from config.tooling.procfile import read_procfile
from jobs.lanes import lane_queues
from jobs.models import AttemptOutcome, Job, JobAttempt, JobStatus, Lane
from jobs.models import WorkerProcess as WorkerRow
from search.embedding import PROBE_TEXT
from search.embedding.ratelimit import shared_limiter
from search.models import Chunk
from tests.chaos.conftest import WorkerProcess, database_url, openai_env
from tests.conftest import eventually, pdf_upload, wait_until_terminal
from tests.factories import make_pdf, scanned_pdf
from tests.fakes.openai_server import FakeOpenAI

pytestmark = pytest.mark.django_db(transaction=True)

StartLaneWorker = Callable[..., WorkerProcess]
PROCFILE = read_procfile(Path(__file__).resolve().parents[2] / "Procfile")
SCAN_TEXT = "The seller delivers the goods within thirty days of the order."


@contextlib.contextmanager
def fake_openai(delay: float = 0.0) -> Iterator[FakeOpenAI]:
    """A fake embeddings API whose every answer takes `delay` seconds, but a worker's
    start-up probe's."""
    with FakeOpenAI(api_key="test-key") as server:
        server.delay = delay
        server.prompt = {PROBE_TEXT}
        shared_limiter().clear()
        yield server
        shared_limiter().clear()


def services_env(settings) -> dict[str, str]:
    """The environment of a worker on this test's database, Redis and files."""
    return {
        **os.environ,
        "DATABASE_URL": database_url(),
        "REDIS_URL": settings.REDIS_URL,
        "INGEST_MEDIA_ROOT": str(settings.MEDIA_ROOT),
        "LOG_LEVEL": "INFO",
    }


@contextlib.contextmanager
def lane_workers(settings, logs: Path) -> Iterator[StartLaneWorker]:
    """start(lane, threads, **env) → a running worker of that lane only, on this test's
    database, Redis and files; all are stopped at the end."""
    worker_env = services_env(settings)
    started: list[WorkerProcess] = []

    def start(lane: str, threads: int = 2, **extra_env: str) -> WorkerProcess:
        prefix = f"WORKER_{lane.upper()}"
        env = {
            **worker_env,
            f"{prefix}_PROCESSES": "1",
            f"{prefix}_THREADS": str(threads),
            "dramatiq_queue_prefetch": str(threads),
            **extra_env,
        }
        log = logs / f"worker-{lane}-{len(started)}.log"
        worker = WorkerProcess(env, log, threads=threads)
        extra = ["alerts"] if lane == "fast" else []
        worker.command += ["--queues", *lane_queues(lane), *extra]
        started.append(worker)
        return worker.start()

    try:
        yield start
    finally:
        for worker in started:
            worker.stop()


@pytest.fixture
def start_lane_worker(settings, tmp_path) -> Iterator[StartLaneWorker]:
    with lane_workers(settings, tmp_path) as start:
        yield start


def upload(client, content: bytes) -> str:
    answer = client.post("/api/documents/", {"file": pdf_upload(content)})
    assert answer.status_code == 202, answer.content
    return answer.json()["results"][0]["job_id"]


def pid_of(held: Job | JobAttempt) -> int:
    """The pid of the worker process that held the job or ran the attempt."""
    return int(held.worker.split(":")[1])


@pytest.mark.timeout(120)
def test_with_the_batch_lane_full_a_fast_lane_file_starts_within_a_second(
    alice_client, broker, settings, start_lane_worker
):
    small, big = make_pdf(pages=1, seed=1), make_pdf(pages=8, seed=2)
    settings.INGEST_FAST_LANE_MAX_BYTES = len(small) + 1000
    assert len(big) > settings.INGEST_FAST_LANE_MAX_BYTES
    unlimited = {"INGEST_MAX_RUNNING_PER_USER": "100"}  # lanes alone, not the fair share
    # The batch lane's provider answers after 30 s: its jobs hold their threads.
    with fake_openai(delay=30.0) as slow, fake_openai() as quick:
        start_lane_worker("batch", threads=2, **openai_env(slow), **unlimited)
        fast = start_lane_worker("fast", threads=2, **openai_env(quick), **unlimited)
        batch_ids = [upload(alice_client, make_pdf(pages=8, seed=10 + n)) for n in range(4)]
        eventually(
            lambda: Job.objects.filter(id__in=batch_ids, status=JobStatus.PROCESSING).count() == 2
        )

        fast_id = upload(alice_client, small)
        [done] = wait_until_terminal([fast_id], timeout=30)

    assert done.lane == "fast"
    assert done.status == JobStatus.SUCCEEDED
    waited = (done.started_at - done.created_at).total_seconds()
    print(f"\nfast-lane file with the batch lane full: started after {waited:.2f} s")
    assert waited < 1.0
    assert pid_of(done) in fast.worker_pids()
    still = Job.objects.filter(id__in=batch_ids)
    assert sorted(job.status for job in still) == ["processing"] * 2 + ["queued"] * 2


def test_a_lane_worker_consumes_only_its_lanes_queues(
    alice_client, broker, settings, start_lane_worker
):
    settings.INGEST_FAST_LANE_MAX_BYTES = 0  # everything to the batch lane
    start_lane_worker("fast", threads=1)
    job_id = upload(alice_client, make_pdf(pages=1, seed=3))

    time.sleep(2.0)

    assert Job.objects.get(id=job_id).status == JobStatus.QUEUED


@contextlib.contextmanager
def procfile_worker(name: str, env: dict[str, str], log: Path) -> Iterator[WorkerProcess]:
    """The Procfile's line `name`, run as config/tooling/procfile.py runs it (`sh -c "exec ..."`,
    in its own session), with the venv's python first on the PATH as `make run` has it."""
    bin_dir = str(Path(sys.executable).parent)
    worker = WorkerProcess({**env, "PATH": f"{bin_dir}:{env.get('PATH', '')}"}, log)
    worker.command = ["/bin/sh", "-c", f"exec {PROCFILE[name]}"]
    try:
        yield worker.start()
    finally:
        worker.stop()


@pytest.mark.timeout(180)
def test_worker_ocr_reads_the_ocr_lane_and_never_takes_a_fast_lane_file(
    alice_client, broker, settings, start_lane_worker, tmp_path
):
    with fake_openai() as provider:
        env = {**services_env(settings), **openai_env(provider)}
        with procfile_worker("worker-ocr", env, tmp_path / "worker-ocr.log") as ocr:
            text_id = upload(alice_client, make_pdf(pages=1, seed=4))
            scan_id = upload(alice_client, scanned_pdf(SCAN_TEXT))
            time.sleep(3.0)  # time enough for worker-ocr to take what it would take
            waiting = Job.objects.filter(id__in=[text_id, scan_id], status=JobStatus.QUEUED)
            assert waiting.count() == 2, "worker-ocr took a fast-lane job"

            fast = start_lane_worker("fast", threads=1, **openai_env(provider))
            text, scan = sorted(
                wait_until_terminal([text_id, scan_id], timeout=120),
                key=lambda job: job.id != uuid.UUID(text_id),
            )
            ocr_pids, fast_pids = ocr.worker_pids(), fast.worker_pids()
            beating = {row.pid: row.queues for row in WorkerRow.objects.all()}

    assert text.status == scan.status == JobStatus.SUCCEEDED, scan.error_detail
    assert (text.lane, scan.lane) == (Lane.FAST, Lane.OCR)
    assert pid_of(text) in fast_pids
    found, read = JobAttempt.objects.filter(job=scan).order_by("number")
    assert found.outcome == AttemptOutcome.HANDED_ON
    assert pid_of(found) in fast_pids, "the fast lane finds the scanned page"
    assert read.outcome == AttemptOutcome.SUCCEEDED
    assert pid_of(read) in ocr_pids, "worker-ocr reads it"
    assert beating[pid_of(read)] == lane_queues(Lane.OCR) == ["ocr", "ocr-resume"]
    chunks = Chunk.objects.filter(document_id=scan.document_id)
    assert "thirty days" in " ".join(chunk.text for chunk in chunks).lower()
