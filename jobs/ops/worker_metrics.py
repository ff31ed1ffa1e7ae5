"""A worker machine's own /metrics: what its worker processes counted.

/metrics on the web adds up the counters of the processes that share its
PROMETHEUS_MULTIPROC_DIR: on one machine, every process. On a machine of workers alone (a
worker pod, a worker host) nobody serves theirs, so with WORKER_METRICS_PORT set each worker
process tries to listen on that port, and one of them (whichever binds it first; another
takes over within WORKER_METRICS_RETRY_SECONDS when it ends) serves the whole directory's
counters there. The database's gauges stay with the web's /metrics, which every process
answers alike. The same rule as the web's: open to loopback, INGEST_METRICS_ALLOW_CIDRS and
`Authorization: Bearer <INGEST_METRICS_TOKEN>`.
"""

from __future__ import annotations

import ipaddress
import logging
import secrets
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import dramatiq
from django.conf import settings
from dramatiq import Middleware
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

from config.common.metrics_files import MultiProcessCollector

log = logging.getLogger(__name__)

WORKER_METRICS_RETRY_SECONDS = 10.0


def allowed(address: str, authorization: str) -> bool:
    """A direct peer on loopback or in INGEST_METRICS_ALLOW_CIDRS, or the bearer token."""
    try:
        peer = ipaddress.ip_address(address)
    except ValueError:
        peer = None
    if peer is not None and (
        peer.is_loopback or any(peer in net for net in settings.INGEST_METRICS_ALLOW_CIDRS)
    ):
        return True
    return bearer_matches(authorization)


def bearer_matches(authorization: str) -> bool:
    """`Authorization: Bearer <INGEST_METRICS_TOKEN>`, compared in constant time."""
    expected = settings.INGEST_METRICS_TOKEN
    scheme, _, given = authorization.partition(" ")
    return (
        bool(expected)
        and scheme.lower() == "bearer"
        and secrets.compare_digest(given.strip().encode(), expected.encode())
    )


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path.split("?", 1)[0] != "/metrics":
            self._answer(404, b"Only /metrics here.\n", "text/plain; charset=utf-8")
            return
        if not allowed(self.client_address[0], self.headers.get("Authorization", "")):
            text = b"Metrics are open to loopback, INGEST_METRICS_ALLOW_CIDRS, or a bearer token.\n"
            self._answer(403, text, "text/plain; charset=utf-8")
            return
        registry = CollectorRegistry()
        MultiProcessCollector(registry)
        self._answer(200, generate_latest(registry), CONTENT_TYPE_LATEST)

    def _answer(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass  # a scrape every 15 s is not news


class WorkerMetrics(Middleware):
    """Dramatiq middleware: with WORKER_METRICS_PORT, the machine's worker counters there."""

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._server: ThreadingHTTPServer | None = None

    def after_worker_boot(self, broker: dramatiq.Broker, worker: dramatiq.Worker) -> None:
        if settings.WORKER_METRICS_PORT:
            self._stop.clear()
            threading.Thread(target=self._serve, name="worker-metrics", daemon=True).start()

    def before_worker_shutdown(self, broker: dramatiq.Broker, worker: dramatiq.Worker) -> None:
        self._stop.set()
        if self._server is not None:  # shutdown() waits for serve_forever: not here
            threading.Thread(target=self._server.shutdown, daemon=True).start()

    def _serve(self) -> None:
        address = (settings.WORKER_METRICS_HOST, settings.WORKER_METRICS_PORT)
        while not self._stop.is_set():
            try:
                self._server = ThreadingHTTPServer(address, _Handler)
            except OSError:  # another worker process of this machine serves it
                self._stop.wait(WORKER_METRICS_RETRY_SECONDS)
                continue
            log.info("serving this machine's worker metrics on %s:%d/metrics", *address)
            self._server.serve_forever()
            return
