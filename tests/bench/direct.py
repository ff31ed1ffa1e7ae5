"""A large file through the upload endpoint against a direct upload:
`python -m tests.bench.direct [--mib 1024] [--no-write]` (part of `make bench`).

A private stack (Postgres, Redis, a SeaweedFS server, gunicorn, a worker, the fake
embeddings API) takes the same file twice: once as `POST /api/documents/` (the limit
raised for it), once as a direct upload (`POST /api/uploads/`, its parts PUT to the
bucket, then completed). For each: the web processes' CPU seconds and their peak RSS over
their baseline (sampled every 50 ms), and the time from the first request to the job's
success. The file is a real PDF of the size asked for, shaped like a large scan with its
text layer: a page of text over an 8 MiB image per 8 MiB, which the worker reads (and looks
at for OCR) as it would any PDF. Writes the `bench-direct` block of
docs/working/benchmark-results.md.
"""

from __future__ import annotations

import argparse
import http.client
import json
import shutil
import tempfile
import threading
import time
import uuid
from pathlib import Path

import psutil
import requests

from config.tooling.s3 import S3Server
from tests.bench.report import RESULTS, code_version, describe_machine, write_section
from tests.bench.services import prepare_database, start_services
from tests.harness.large_pdf import MiB, write_large_pdf
from tests.harness.servers import BreakableOpenAI, Stack

IMAGE_MIB = 8  # a page's image: a large scan's shape (tests/harness/large_pdf.py)


class WebMeter:
    """CPU seconds and peak RSS above the baseline of the web's processes."""

    def __init__(self, leader: int) -> None:
        root = psutil.Process(leader)
        self.processes = [root, *root.children(recursive=True)]
        self.cpu0 = self._cpu()
        self.rss0 = self._rss()
        self.peak = self.rss0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _cpu(self) -> float:
        return sum(sum(p.cpu_times()[:2]) for p in self.processes if p.is_running())

    def _rss(self) -> int:
        return sum(p.memory_info().rss for p in self.processes if p.is_running())

    def _sample(self) -> None:
        while not self._stop.wait(0.05):
            self.peak = max(self.peak, self._rss())

    def stop(self) -> tuple[float, float]:
        self._stop.set()
        self._thread.join()
        return self._cpu() - self.cpu0, (self.peak - self.rss0) / MiB


def _wait_for(base: str, token: str, job_id: str, timeout: float = 1800) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = requests.get(
            f"{base}/api/jobs/{job_id}/", headers={"Authorization": f"Token {token}"}, timeout=30
        ).json()
        if job["status"] in ("succeeded", "failed", "cancelled"):
            return job["status"]
        time.sleep(0.5)
    return "timeout"


def through_endpoint(base: str, token: str, path: Path, size: int) -> str:
    """`POST /api/documents/` with the file streamed as one multipart part; the job id."""
    boundary = uuid.uuid4().hex
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
        f'filename="large.pdf"\r\nContent-Type: application/pdf\r\n\r\n'
    ).encode()
    tail = f"\r\n--{boundary}--\r\n".encode()
    host, port = base.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=1800)
    conn.putrequest("POST", "/api/documents/")
    conn.putheader("Authorization", f"Token {token}")
    conn.putheader("Content-Type", f"multipart/form-data; boundary={boundary}")
    conn.putheader("Content-Length", str(len(head) + size + len(tail)))
    conn.endheaders()
    conn.send(head)
    with open(path, "rb") as source:
        while block := source.read(8 * MiB):
            conn.send(block)
    conn.send(tail)
    answer = conn.getresponse()
    body = json.loads(answer.read())
    assert answer.status == 202, body
    return body["results"][0]["job_id"]


def direct_upload(base: str, token: str, path: Path, size: int) -> str:
    """Start, PUT each part to the bucket, complete; the job id."""
    auth = {"Authorization": f"Token {token}"}
    started = requests.post(
        f"{base}/api/uploads/",
        json={"filename": "large.pdf", "size": size},
        headers=auth,
        timeout=60,
    ).json()
    with open(path, "rb") as source:
        if started["method"] == "POST":
            files = {"file": ("large.pdf", source, "application/pdf")}
            requests.post(started["url"], data=started["fields"], files=files, timeout=1800)
        for part in started.get("parts", []):
            sent = requests.put(part["url"], data=source.read(part["size"]), timeout=1800)
            assert sent.status_code == 200, sent.text
    done = requests.post(started["complete_url"], headers=auth, timeout=300)
    assert done.status_code == 202, done.text
    return done.json()["job_id"]


def measure(stack: Stack, token: str, path: Path, size: int, how: str) -> dict:
    sender = through_endpoint if how == "endpoint" else direct_upload
    assert stack.web.popen is not None
    meter = WebMeter(stack.web.popen.pid)
    began = time.monotonic()
    job_id = sender(stack.base_url, token, path, size)
    sent = time.monotonic() - began
    cpu, peak = meter.stop()
    status = _wait_for(stack.base_url, token, job_id)
    return {
        "how": how,
        "web_cpu_seconds": round(cpu, 2),
        "web_peak_rss_mib": round(peak, 1),
        "sent_and_answered_seconds": round(sent, 1),
        "time_to_ready_seconds": round(time.monotonic() - began, 1),
        "status": status,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.direct")
    parser.add_argument("--mib", type=int, default=1024, help="the file's size in MiB")
    parser.add_argument("--no-write", action="store_true", help="leave the results page alone")
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="ingest-bench-direct-"))
    path = root / "large.pdf"
    size = write_large_pdf(path, pages=max(1, args.mib // IMAGE_MIB), image_bytes=IMAGE_MIB * MiB)
    services = start_services(root / "services")
    s3 = S3Server(root / "s3", bucket="bench-direct").start()
    openai = BreakableOpenAI(api_key="bench").start()
    env = {
        **services.env,
        **s3.variables,
        "INGEST_MAX_UPLOAD_BYTES": str(size + MiB),
        "INGEST_MAX_DIRECT_UPLOAD_BYTES": str(size + MiB),
        "INGEST_EMBED_PROVIDER": "openai",
        "OPENAI_BASE_URL": f"{openai.url}/v1",
        "OPENAI_API_KEY": "bench",
        "INGEST_JOB_TIME_LIMIT_SECONDS": "1800",
        "WEB_CONCURRENCY": "2",
        "WEB_THREADS": "4",
    }
    stack: Stack | None = None
    try:
        token = prepare_database(env, 1)[0]
        stack = Stack(env, root / "logs")
        (root / "logs").mkdir()
        stack.ensure_running()
        rows = [measure(stack, token, path, size, how) for how in ("endpoint", "direct")]
        machine = describe_machine(env)
    finally:
        if stack is not None:
            stack.stop()
        openai.stop()
        s3.stop()
        services.stop()
        shutil.rmtree(root, ignore_errors=True)
    lines = [
        f"A {size / MiB:.0f} MiB PDF ({max(1, args.mib // IMAGE_MIB)} pages of text, each over "
        f"an {IMAGE_MIB} MiB image), once through "
        "`POST /api/documents/` and once as a direct upload (parts of "
        "INGEST_MULTIPART_THRESHOLD_BYTES, 100 MiB), on one machine; the web: 2 gunicorn "
        f"processes of 4 threads. {machine}. Code: {code_version()}.",
        "",
        "| path | web CPU s | web peak RSS over baseline, MiB | sent and answered, s | "
        "time to ready, s | job |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['how']} | {row['web_cpu_seconds']} | {row['web_peak_rss_mib']} | "
            f"{row['sent_and_answered_seconds']} | {row['time_to_ready_seconds']} | "
            f"{row['status']} |"
        )
    text = "\n".join(lines) + "\n"
    if not args.no_write:
        write_section(RESULTS, "bench-direct", text, by="python -m tests.bench.direct")
    print(text)
    return 0 if all(row["status"] == "succeeded" for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
