"""The run's webhook receiver: every upload names it (`webhook_url`), and the run checks
that each accepted document's ending reached it, signed, once in effect (by `webhook-id`),
through the worker kill and the Redis and Postgres restarts.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import psycopg

from jobs.webhooks.sending.signing import InvalidSignature, verify
from tests.bench.loadtest.collect import Final
from tests.bench.loadtest.criteria import Criterion

ENDED = {"succeeded", "failed"}  # the states with an event (cancelled has none)
SECRETS_SQL = """
SELECT job.id::text, secret.secret
FROM jobs_job AS job JOIN webhooks_signingsecret AS secret ON secret.owner_id = job.owner_id
"""


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes
    at: float


class Receiver:
    """A threaded HTTP server on a free loopback port that answers every POST 204."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.host = host  # a test host's bridge address, for a cluster
        self.received: list[Received] = []
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                headers = {key.lower(): value for key, value in self.headers.items()}
                with receiver._lock:
                    receiver.received.append(Received(headers, body, time.time()))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer((host, 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self._server.server_address[1]}/hooks/ingest"

    def start(self) -> Receiver:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def job_ids(self) -> set[str]:
        with self._lock:
            bodies = [item.body for item in self.received]
        return {json.loads(body)["data"]["job_id"] for body in bodies}


def ended_jobs(final: Final, accepted: list[str]) -> set[str]:
    return {job_id for job_id in accepted if final.jobs.get(job_id, None) is not None
            and final.jobs[job_id].status in ENDED}  # fmt: skip


def wait_for(receiver: Receiver, expected: set[str], timeout: float) -> float:
    """Until every expected job's event arrived, or `timeout`; the seconds waited."""
    started = time.time()
    while time.time() - started < timeout and not expected <= receiver.job_ids():
        time.sleep(0.5)
    return time.time() - started


def _secrets(database_url: str) -> dict[str, str]:
    with psycopg.connect(database_url, autocommit=True, connect_timeout=10) as conn:
        return dict(conn.execute(SECRETS_SQL).fetchall())


def delivered(receiver: Receiver, expected: set[str], database_url: str) -> Criterion:
    """Every ended job's event arrived, each event id stands for one job, every delivery
    is signed with its owner's secret."""
    secrets = _secrets(database_url)
    events: dict[str, str] = {}  # event id -> job id
    deliveries, bad_signatures, ids_reused = 0, 0, 0
    for item in list(receiver.received):
        deliveries += 1
        body = json.loads(item.body)
        job_id, event_id = body["data"]["job_id"], item.headers.get("webhook-id", "")
        if events.setdefault(event_id, job_id) != job_id:
            ids_reused += 1
        try:
            verify(secrets.get(job_id, ""), item.headers, item.body, tolerance=3600)
        except InvalidSignature:
            bad_signatures += 1
    got = set(events.values())
    missing, strays = expected - got, got - expected
    twice = len(events) - len(got)  # jobs with more than one event id
    return Criterion(
        "Every ending reaches its webhook, signed, once in effect",
        f"{len(expected)} accepted documents ended; {len(got & expected)} of their events "
        f"received ({deliveries} deliveries, {deliveries - len(events)} of them redeliveries "
        f"of an id already seen); {len(missing)} missing, {len(strays)} for no such ending, "
        f"{twice} jobs with two event ids, {bad_signatures} bad signatures",
        "none missing, none extra, one event id per job, every signature valid",
        not missing and not strays and not twice and not bad_signatures and not ids_reused,
    )
