"""Scans through the real stack: a scan's time to ready, and what the OCR lane's work does
to a born-digital upload beside it.

A private stack as the Procfile runs it (tests.bench.services' Postgres and Redis in a
temporary directory; gunicorn; `worker-fast`, `worker-batch` and `worker-ocr` with their
queues, threads and CPU priorities: nice 10, 15 and 15; the hashing embedder). Then:

1. idle: one-page born-digital PDFs uploaded one after another, each once the one before
   is ready, while no scan is anywhere;
2. the scan: a PDF of `scan_pages` scanned pages uploaded; once its job is in the OCR lane
   and reading, the same number of one-page uploads as in 1, one after another (busy);
   then the scan's own time to ready;
3. idle again, as in 1, once the scan is ready: the idle figure is both idle rounds
   together, so that a machine whose other load changed during the run does not pass for
   the OCR lane's doing.

A job's time to ready is its row's finished_at - created_at (the upload's request made
it; the job succeeded): the server's own clock, no polling in it. The interference figure
is the median of the busy uploads' times over the median of the idle ones'.
"""

import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import psycopg

from config.tooling.embedded import free_port
from tests.bench.loadtest import client, payloads
from tests.bench.loadtest.payloads import Upload
from tests.bench.services import prepare_database, start_services
from tests.harness.servers import WEB, ServerProcess, answers

# The Procfile's worker lines: queues, threads, niceness (the defaults of its variables).
WORKERS = {
    "fast": (["fast", "fast-resume", "alerts"], 4, 10),
    "batch": (["batch", "batch-resume"], 4, 15),
    "ocr": (["ocr", "ocr-resume"], 1, 15),
}
JOB = (
    "SELECT status, lane, stage, error_code, finished_at - created_at, error_detail"
    " FROM jobs_job WHERE id = %s"
)


@dataclass
class StackResult:
    scan_pages: int
    scan_bytes: int
    scan_seconds: float  # the scan's time to ready
    idle: list[float]  # one-page uploads' times to ready, the OCR lane idle
    busy: list[float]  # the same, the OCR lane reading the scan

    @property
    def interference(self) -> float:
        return statistics.median(self.busy) / statistics.median(self.idle)


def _worker(lane: str, env: dict[str, str], logs: Path) -> ServerProcess:
    queues, threads, nice = WORKERS[lane]
    command = ["nice", "-n", str(nice), sys.executable, "manage.py", "rundramatiq"]
    command += ["--processes=1", f"--threads={threads}", "--queues", *queues]
    command += ["--worker-shutdown-timeout=5000"]
    return ServerProcess(
        f"worker-{lane}",
        command,
        {**env, "dramatiq_queue_prefetch": str(threads)},
        logs,
        lambda process: "Worker process is ready for action" in process.output(400),
    )


def _job(db: psycopg.Connection, job_id: str) -> tuple:
    row = db.execute(JOB, (job_id,)).fetchone()
    if row is None:
        raise RuntimeError(f"no job {job_id}")
    return row


def _until(db: psycopg.Connection, job_id: str, done: set[str], timeout: float) -> tuple:
    """The job's row once its status is in `done` (or, for "ocr", it reads in that lane)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        row = _job(db, job_id)
        if row[0] in done or ("ocr" in done and row[1] == "ocr" and row[0] == "processing"):
            return row
        if row[0] == "failed":
            raise RuntimeError(f"job {job_id} failed: {row[3]}: {row[5]}")
        time.sleep(0.05)
    raise RuntimeError(f"job {job_id} not done in {timeout:.0f} s: {_job(db, job_id)}")


def _ready(port: int, token: str, db: psycopg.Connection, item: Upload, timeout: float) -> float:
    answer = client.upload(port, token, item, "ocr-bench")
    if not answer.accepted or answer.job_id is None:
        raise RuntimeError(f"upload refused: {answer.status} {answer.code} {answer.error}")
    row = _until(db, answer.job_id, {"succeeded"}, timeout)
    return float(row[4].total_seconds())


def _born_digital(count: int, start: int) -> list[Upload]:
    from tests.factories import make_pdf

    bodies = [make_pdf(pages=1, words_per_page=200, seed=start + n) for n in range(count)]
    return [Upload("one-page", payloads.kind_by_size(len(b)), 1, b) for b in bodies]


def measure(scan: bytes, scan_pages: int, uploads: int, say: Callable[[str], None]) -> StackResult:
    """The figures of the module's docstring, on a private stack started and stopped here."""
    root = Path(tempfile.mkdtemp(prefix="ingest-bench-ocr-"))
    services = start_services(root)
    processes: list[ServerProcess] = []
    try:
        port = free_port()
        env = {
            **services.env,
            "INGEST_EMBED_PROVIDER": "hashing",
            "INGEST_OCR": "auto",
            "HOST": "127.0.0.1",
            "PORT": str(port),
            "PYTHONUNBUFFERED": "1",
        }
        for lane, (_, threads, _) in WORKERS.items():
            env |= {
                f"WORKER_{lane.upper()}_PROCESSES": "1",
                f"WORKER_{lane.upper()}_THREADS": str(threads),
            }
        [token] = prepare_database(env, 1)
        logs = root / "logs"
        logs.mkdir()
        web = ServerProcess(
            "web",
            [sys.executable, *WEB],
            env,
            logs,
            lambda _: answers(f"http://127.0.0.1:{port}/healthz"),
        )
        processes = [web, *(_worker(lane, env, logs) for lane in WORKERS)]
        for process in processes:
            process.start()
        with psycopg.connect(env["DATABASE_URL"], autocommit=True) as db:
            _ready(port, token, db, _born_digital(1, 900)[0], 120)  # every process warm
            idle = [_ready(port, token, db, item, 120) for item in _born_digital(uploads, 0)]
            say(f"idle: one-page uploads ready in {statistics.median(idle):.2f} s (median)")
            body = payloads.with_comment(scan, payloads.nonce())
            answer = client.upload(port, token, Upload("scan", "large", scan_pages, body), "ocr")
            if answer.job_id is None:
                raise RuntimeError(f"the scan was refused: {answer.status} {answer.code}")
            _until(db, answer.job_id, {"ocr"}, 300)
            busy = [_ready(port, token, db, item, 120) for item in _born_digital(uploads, 100)]
            say(f"busy: one-page uploads ready in {statistics.median(busy):.2f} s (median)")
            row = _until(db, answer.job_id, {"succeeded"}, 60 * scan_pages + 300)
            scan_seconds = float(row[4].total_seconds())
            say(f"the {scan_pages}-page scan was ready in {scan_seconds:.1f} s")
            idle += [_ready(port, token, db, item, 120) for item in _born_digital(uploads, 200)]
            say(f"idle again: {statistics.median(idle):.2f} s (median of both idle rounds)")
    finally:
        for process in processes:
            process.stop()
        services.stop()
        shutil.rmtree(root, ignore_errors=True)
    return StackResult(scan_pages, len(scan), scan_seconds, idle, busy)
