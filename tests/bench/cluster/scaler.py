"""Scaling out as KEDA would: a worker host started when the metrics say so, timed.

KEDA's ScaledObjects (config/deploy/kubernetes/scaledobjects.yaml) run, per lane, the
larger of ceil(ingest_workers_wanted / threads a pod runs) and ceil(queued jobs /
QUEUED_PER_POD) pods, the second so that a backlog of 200 asks for 32. Here the worker
hosts are the pods: every `poll` seconds the scaler reads a web host's /metrics, and once
the fast lane wants more hosts than run, it starts the spare one (`worker3`). It records
when the metric first said so, when the new host's workers were ready, and when one of
them first claimed a job (by the attempts' `worker`, host:pid:thread): the time from the
queue to a new worker taking jobs, which a cluster adds its scrape, its sync and a pod's
start to (docs/running/many-machines.md).
"""

from __future__ import annotations

import math
import threading
import time
import urllib.request
from collections.abc import Callable
from dataclasses import asdict, dataclass

import psycopg
from prometheus_client.parser import text_string_to_metric_families

QUEUED_PER_POD = 200 / 32  # the ScaledObjects' queue-depth threshold
LANE = "fast"
FIRST_CLAIM_SQL = """
SELECT extract(epoch FROM min(started_at)) FROM jobs_jobattempt
WHERE worker LIKE %s OR worker LIKE %s
"""


@dataclass
class ScaleOut:
    poll: float
    wanted_threads: float = 0.0  # ingest_workers_wanted{lane} when it said so
    queued: float = 0.0  # ingest_jobs{status=queued, lane} then
    pods_wanted: int = 0
    pods_running: int = 0
    signal: float = 0.0  # wall clock: the poll that first asked for more
    ready: float = 0.0  # the new host's workers ready
    first_claim: float = 0.0  # its first attempt's start
    error: str = ""

    @property
    def to_ready(self) -> float:
        return self.ready - self.signal if self.ready and self.signal else math.nan

    @property
    def to_claim(self) -> float:
        return self.first_claim - self.signal if self.first_claim and self.signal else math.nan

    def to_json(self) -> dict:
        return asdict(self) | {"to_ready": self.to_ready, "to_claim": self.to_claim}


def lane_signal(metrics_text: str, lane: str = LANE) -> tuple[float, float]:
    """(ingest_workers_wanted, queued jobs) of `lane` in a /metrics page."""
    wanted = queued = 0.0
    for family in text_string_to_metric_families(metrics_text):
        for sample in family.samples:
            if sample.labels.get("lane") != lane:
                continue
            if sample.name == "ingest_workers_wanted":
                wanted = sample.value
            elif sample.name == "ingest_jobs" and sample.labels.get("status") == "queued":
                queued = sample.value
    return wanted, queued


def pods_wanted(wanted_threads: float, queued: float, threads_per_pod: int) -> int:
    return max(math.ceil(wanted_threads / threads_per_pod), math.ceil(queued / QUEUED_PER_POD))


class Scaler:
    def __init__(
        self,
        metrics_url: str,
        database_url: str,
        *,
        running: int,
        threads_per_pod: int,
        start_host: Callable[[], object],
        host: str,
        poll: float = 5.0,
    ) -> None:
        self.metrics_url, self.database_url = metrics_url, database_url
        self.running, self.threads_per_pod = running, threads_per_pod
        self.start_host, self.host = start_host, host
        self.result = ScaleOut(poll)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="scaler", daemon=True)

    def start(self) -> Scaler:
        self._thread.start()
        return self

    def stop(self) -> ScaleOut:
        self._stop.set()
        self._thread.join(120)
        if self.result.ready and not self.result.first_claim:
            self.result.first_claim = self._first_claim() or 0.0
        return self.result

    def _run(self) -> None:
        try:
            while not self._stop.wait(self.result.poll):
                if self._asks_for_more():
                    break
            else:
                return
            self.start_host()
            self.result.ready = time.time()
            while not self._stop.wait(0.5):
                if (claimed := self._first_claim()) is not None:
                    self.result.first_claim = claimed
                    return
        except Exception as exc:  # recorded: the report says why there is no figure
            self.result.error = f"{type(exc).__name__}: {exc}"[:300]

    def _asks_for_more(self) -> bool:
        try:
            with urllib.request.urlopen(self.metrics_url, timeout=10) as answer:
                text = answer.read().decode()
        except OSError:
            return False  # a web host down (one of the faults): poll again
        wanted, queued = lane_signal(text)
        pods = pods_wanted(wanted, queued, self.threads_per_pod)
        if pods <= self.running:
            return False
        self.result.signal = time.time()
        self.result.wanted_threads, self.result.queued = wanted, queued
        self.result.pods_wanted, self.result.pods_running = pods, self.running
        return True

    def _first_claim(self) -> float | None:
        with psycopg.connect(self.database_url, autocommit=True, connect_timeout=5) as conn:
            row = conn.execute(FIRST_CLAIM_SQL, [f"{self.host}:%", f"{self.host}-%"]).fetchone()
        return float(row[0]) if row and row[0] is not None else None
