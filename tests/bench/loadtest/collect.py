"""What the database says once the run is over: jobs, attempts and chunk counts."""

from __future__ import annotations

from dataclasses import dataclass, field

import psycopg

from tests.harness import chunks
from tests.harness.chunks import Twice

JOBS_SQL = """
SELECT id::text, document_id::text, version, lane, status, attempts, progress_total,
       error_code, extract(epoch FROM created_at), extract(epoch FROM queued_at),
       extract(epoch FROM started_at), extract(epoch FROM finished_at), owner_id
FROM jobs_job
"""
# An attempt ran in its job's lane, except a scan's attempts up to the one that handed it on
# to the OCR lane: those ran in the lane the file's size chose (the row keeps no lane).
ATTEMPTS_SQL = """
SELECT a.job_id::text, a.number, a.worker, extract(epoch FROM a.started_at),
       extract(epoch FROM a.finished_at), a.outcome, a.error_code,
       CASE WHEN EXISTS (SELECT 1 FROM jobs_jobattempt h WHERE h.job_id = a.job_id
                         AND h.outcome = 'handed_on' AND h.number >= a.number)
            THEN CASE WHEN d.size <= %s THEN 'fast' ELSE 'batch' END
            ELSE j.lane END
FROM jobs_jobattempt a JOIN jobs_job j ON j.id = a.job_id
     JOIN documents_document d ON d.id = j.document_id
ORDER BY a.job_id, a.number
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
    owner: int = 0


@dataclass
class AttemptRow:
    job: str
    number: int
    worker: str
    started: float
    finished: float | None
    outcome: str
    error_code: str
    lane: str  # the lane it ran in

    @property
    def handed_on(self) -> bool:
        return self.outcome == "handed_on"


@dataclass
class Final:
    jobs: dict[str, JobRow] = field(default_factory=dict)
    attempts: dict[str, list[AttemptRow]] = field(default_factory=dict)  # by job, in order
    chunks: dict[tuple[str, int], int] = field(default_factory=dict)
    # `Twice`, not `chunks.Twice`: in this class `chunks` is the field above.
    twice: Twice = field(default_factory=lambda: Twice(0, 0, []))


def _float(value: object) -> float | None:
    return None if value is None else float(value)  # type: ignore[arg-type]


def read_final(database_url: str, fast_lane_max_bytes: int) -> Final:
    """What the database holds; `fast_lane_max_bytes`: the run's INGEST_FAST_LANE_MAX_BYTES."""
    final = Final()
    with psycopg.connect(database_url, autocommit=True, connect_timeout=10) as conn:
        for row in conn.execute(JOBS_SQL).fetchall():
            (id_, document, version, lane, status, attempts, total, error_code) = row[:8]
            created, queued, started, finished, owner = row[8:]
            job = JobRow(
                id_,
                document,
                version,
                lane,
                status,
                attempts,
                total,
                error_code,
                float(created),
                float(queued),
                _float(started),
                _float(finished),
                owner,
            )
            final.jobs[job.id] = job
        for job_id, number, worker, started, finished, outcome, code, lane in conn.execute(
            ATTEMPTS_SQL, [fast_lane_max_bytes]
        ).fetchall():
            attempt = AttemptRow(
                job_id, number, worker, float(started), _float(finished), outcome, code, lane
            )
            final.attempts.setdefault(job_id, []).append(attempt)
        for document, version, count in conn.execute(CHUNKS_SQL).fetchall():
            final.chunks[(document, version)] = count
        with conn.cursor() as cursor:
            final.twice = chunks.check(cursor)
    return final
