"""What the database says once the run is over: jobs, attempts and chunk counts."""

from __future__ import annotations

from dataclasses import dataclass, field

import psycopg

from tests.harness import chunks

JOBS_SQL = """
SELECT id::text, document_id::text, version, lane, status, attempts, progress_total,
       error_code, extract(epoch FROM created_at), extract(epoch FROM queued_at),
       extract(epoch FROM started_at), extract(epoch FROM finished_at)
FROM jobs_job
"""
ATTEMPTS_SQL = """
SELECT job_id::text, number, worker, extract(epoch FROM started_at),
       extract(epoch FROM finished_at), outcome, error_code
FROM jobs_jobattempt ORDER BY job_id, number
"""
CHUNKS_SQL = """
SELECT document_id::text, version, count(*) FROM search_chunk GROUP BY document_id, version
"""


@dataclass
class JobRow:
    id: str
    document: str
    version: int
    lane: str
    status: str
    attempts: int
    total: int
    error_code: str
    created: float
    queued: float
    started: float | None
    finished: float | None


@dataclass
class AttemptRow:
    job: str
    number: int
    worker: str
    started: float
    finished: float | None
    outcome: str
    error_code: str


@dataclass
class Final:
    jobs: dict[str, JobRow] = field(default_factory=dict)
    attempts: dict[str, list[AttemptRow]] = field(default_factory=dict)  # by job, in order
    chunks: dict[tuple[str, int], int] = field(default_factory=dict)
    twice: chunks.Twice = field(default_factory=lambda: chunks.Twice(0, 0, []))


def _float(value: object) -> float | None:
    return None if value is None else float(value)  # type: ignore[arg-type]


def read_final(database_url: str) -> Final:
    final = Final()
    with psycopg.connect(database_url, autocommit=True, connect_timeout=10) as conn:
        for row in conn.execute(JOBS_SQL).fetchall():
            *head, created, queued, started, finished = row
            job = JobRow(*head, float(created), float(queued), _float(started), _float(finished))
            final.jobs[job.id] = job
        for job_id, number, worker, started, finished, outcome, code in conn.execute(
            ATTEMPTS_SQL
        ).fetchall():
            attempt = AttemptRow(
                job_id, number, worker, float(started), _float(finished), outcome, code
            )
            final.attempts.setdefault(job_id, []).append(attempt)
        for document, version, count in conn.execute(CHUNKS_SQL).fetchall():
            final.chunks[(document, version)] = count
        with conn.cursor() as cursor:
            final.twice = chunks.check(cursor)
    return final
