"""A thread that reads the job table twice a second while the run goes on.

It keeps queue depth, jobs in processing, finished jobs and the oldest queued age over
time, and the `next_attempt_at` of every retry it sees (the job row keeps only the last
one; the stall check needs each retry's due time). While Postgres restarts, a sample
fails: it is recorded as a gap and the sampler connects again.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import psycopg

COUNTS_SQL = """
SELECT count(*) FILTER (WHERE status = 'queued'),
       count(*) FILTER (WHERE status = 'queued'
                        AND coalesce(next_attempt_at, queued_at) <= now()),
       count(*) FILTER (WHERE status = 'processing'),
       count(*) FILTER (WHERE status IN ('succeeded', 'failed', 'cancelled')),
       coalesce(extract(epoch FROM now() - min(queued_at) FILTER (WHERE status = 'queued')), 0)
FROM jobs_job
"""
RETRIES_SQL = """
SELECT id::text, attempts, extract(epoch FROM next_attempt_at)
FROM jobs_job WHERE status = 'queued' AND next_attempt_at IS NOT NULL
"""


@dataclass
class Sample:
    t: float  # wall clock
    queued: int
    due: int  # queued and due now (not waiting for a retry's time)
    processing: int
    finished: int
    oldest_queued_age: float  # seconds; 0 when nothing is queued


@dataclass
class Sampler:
    database_url: str
    interval: float = 0.5
    samples: list[Sample] = field(default_factory=list)
    gaps: list[tuple[float, str]] = field(default_factory=list)  # (time, error) of failures
    retry_due: dict[tuple[str, int], float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sampler", daemon=True)

    def start(self) -> Sampler:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(10)

    def latest(self) -> Sample | None:
        return self.samples[-1] if self.samples else None

    def _run(self) -> None:
        conn: psycopg.Connection | None = None
        while not self._stop.is_set():
            began = time.monotonic()
            try:
                if conn is None or conn.closed:
                    conn = psycopg.connect(self.database_url, autocommit=True, connect_timeout=3)
                self._sample(conn)
            except psycopg.Error as exc:
                self.gaps.append((time.time(), f"{type(exc).__name__}: {exc}".strip()[:200]))
                if conn is not None:
                    conn.close()
                conn = None
            self._stop.wait(max(0.0, self.interval - (time.monotonic() - began)))
        if conn is not None:
            conn.close()

    def _sample(self, conn: psycopg.Connection) -> None:
        now = time.time()
        row = conn.execute(COUNTS_SQL).fetchone()
        assert row is not None
        queued, due, processing, finished, age = row
        self.samples.append(Sample(now, queued, due, processing, finished, float(age)))
        # A retry's due time, per (job, attempts so far): the attempt after it is due then.
        for job_id, attempts, due_at in conn.execute(RETRIES_SQL).fetchall():
            self.retry_due[(job_id, attempts)] = float(due_at)
