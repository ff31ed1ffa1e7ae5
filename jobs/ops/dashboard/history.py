"""The ops dashboard's per-minute history: one `Minute` row per lane and minute, written by
the sweeper (`record`, every sweep) from the job rows, so the last week is one indexed read
of a small table however many jobs there were.

Two kinds of figures, written at different times:

- the queue as the sweep saw it (queued, processing, oldest due age, workers wanted),
  written on the current minute's row at each sweep: the last sweep of a minute wins;
- what ended in the minute (documents and pages ready, time to ready, failures by code,
  retries, automatic and by an operator, pages read by OCR, and on the lane "" row the
  embedding provider's 429s and limiter waits), counted again from the job rows at each
  sweep until one sweep runs more than SETTLE after the minute closed. A job's
  `finished_at` is read from the worker's clock before its transaction commits, so a
  minute is only final once that has had time to happen; after that the row is left
  alone, even when a failed job of that minute is retried or a document deleted (the
  history says what happened then, not what is true now; the retry itself counts in the
  minute it is made).

A sweep after an outage counts the minutes it missed from the job rows (at most BACKFILL
back); those minutes had no sweep to see the queue, so their queue figures stay 0.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Max
from django.utils import timezone

from jobs.models import AttemptOutcome, Job, JobAttempt, JobStatus, Lane
from jobs.ops import scaling
from jobs.ops.models import Minute
from search.embedding import stats as embedding_stats
from search.models import Chunk

log = logging.getLogger(__name__)

MINUTE = timedelta(minutes=1)
SETTLE = timedelta(minutes=2)  # commit lag and clock skew between workers, generously
BACKFILL = timedelta(hours=24)  # the dashboard's longest view
ALL_LANES = ""  # the row for what no lane owns: the embedding provider's answers

SAMPLE_FIELDS = ["queued", "processing", "oldest_age_seconds", "workers_wanted"]
ENDED_FIELDS = [
    "documents_ready",
    "pages_ready",
    "retries",
    "failures",
    "ready_p50_seconds",
    "ready_p95_seconds",
    "ocr_pages",
    "embedding_rate_limited",
    "embedding_wait_seconds",
]


@dataclass
class Ended:
    """What ended in one minute on one lane (or, for ALL_LANES, the embedding figures)."""

    documents_ready: int = 0
    pages_ready: int = 0
    retries: int = 0
    failures: dict[str, int] = field(default_factory=dict)
    ready_p50_seconds: float | None = None
    ready_p95_seconds: float | None = None
    ocr_pages: int = 0
    embedding_rate_limited: int = 0
    embedding_wait_seconds: float = 0.0


def floor_minute(moment: datetime) -> datetime:
    return moment.replace(second=0, microsecond=0)


def record(now: datetime | None = None) -> None:
    """Write this sweep's sample and recount the minutes not yet final; prune old rows.
    Never raises: the sweeper it runs in has jobs to take back whatever happens here."""
    try:
        # A savepoint when the caller is in a transaction: a failure here leaves it usable.
        with transaction.atomic():
            _record(now or timezone.now())
    except Exception:
        log.exception("could not record the ops history; the next sweep tries again")


def _record(now: datetime) -> None:
    minute = floor_minute(now)
    since = _recount_from(minute)
    lanes = scaling.lanes_now()
    ended = ended_between(since, minute + MINUTE)
    Minute.objects.bulk_create(
        [_sample_row(minute, lane) for lane in lanes.values()],
        update_conflicts=True,
        unique_fields=["minute", "lane"],
        update_fields=SAMPLE_FIELDS,
    )
    Minute.objects.bulk_create(
        _ended_rows(since, minute, ended),
        update_conflicts=True,
        unique_fields=["minute", "lane"],
        update_fields=ENDED_FIELDS,
        batch_size=1000,  # a day's backfill is 4,000 rows: under the parameter limit
    )
    prune(now)


def _recount_from(minute: datetime) -> datetime:
    """The first minute that may not be final: the last sweep's minute less SETTLE and
    one more (so every minute's last count comes from a sweep more than SETTLE after it
    closed), and no earlier than BACKFILL ago."""
    last = Minute.objects.filter(minute__lte=minute).aggregate(last=Max("minute"))["last"]
    earliest = minute - BACKFILL
    if last is None:
        return earliest
    return max(earliest, last - SETTLE - MINUTE)


def _sample_row(minute: datetime, lane: scaling.LaneNow) -> Minute:
    return Minute(
        minute=minute,
        lane=lane.lane,
        queued=lane.queued,
        processing=lane.processing,
        oldest_age_seconds=lane.oldest_age_seconds,
        workers_wanted=lane.workers_wanted,
    )


def _ended_rows(
    since: datetime, minute: datetime, ended: dict[tuple[datetime, str], Ended]
) -> list[Minute]:
    """A row for every lane and minute from `since` to `minute`, zeros where nothing
    ended, so a recount also clears what an earlier count saw and a commit undid."""
    rows = []
    moment = since
    while moment <= minute:
        for lane in [*Lane.values, ALL_LANES]:
            figures = ended.get((moment, lane), Ended())
            rows.append(Minute(minute=moment, lane=lane, **asdict(figures)))
        moment += MINUTE
    return rows


def prune(now: datetime) -> int:
    """Delete rows older than INGEST_OPS_RETENTION_DAYS; how many went."""
    cutoff = now - timedelta(days=settings.INGEST_OPS_RETENTION_DAYS)
    deleted, _ = Minute.objects.filter(minute__lt=cutoff).delete()
    return deleted


# --------------------------------------------------------------------------- counting


def ended_between(start: datetime, end: datetime) -> dict[tuple[datetime, str], Ended]:
    """What ended in each minute from `start` (a minute's start) to `end`, by (minute,
    lane): two range reads on indexed `finished_at` columns (jobs, attempts) and one on
    Redis."""
    ended: dict[tuple[datetime, str], Ended] = {}

    def at(minute: datetime, lane: str) -> Ended:
        return ended.setdefault((minute, lane), Ended())

    for minute, lane, status, code, jobs, pages, p50, p95 in _jobs_ended(start, end):
        figures = at(minute, lane)
        if status == JobStatus.SUCCEEDED:
            figures.documents_ready, figures.pages_ready = jobs, pages
            figures.ready_p50_seconds, figures.ready_p95_seconds = p50, p95
        else:
            figures.failures[code or "unknown"] = jobs
    for minute, lane, retries in _retries(start, end):
        at(minute, lane).retries = retries
    for minute, lane, pages in _ocr_pages(start, end):
        at(minute, lane).ocr_pages = pages
    for minute, (rate_limited, waited) in embedding_stats.read_minutes(start, end).items():
        if start <= minute < end:
            figures = at(minute, ALL_LANES)
            figures.embedding_rate_limited, figures.embedding_wait_seconds = rate_limited, waited
    return ended


# The table of the documents jobs belong to, as jobs' own foreign key names it.
_DOCUMENTS = Job._meta.get_field("document").related_model._meta.db_table

# Time to ready is the job's whole life: upload (the job's creation) to searchable.
# percentile_cont interpolates between the two nearest values, as statistics.quantiles
# (method="inclusive") does.
_JOBS_ENDED = f"""
SELECT minute, lane, status, error_code, count(*), coalesce(sum(pages), 0),
       percentile_cont(0.5) WITHIN GROUP (ORDER BY ready),
       percentile_cont(0.95) WITHIN GROUP (ORDER BY ready)
FROM (
    SELECT date_trunc('minute', j.finished_at) AS minute, j.lane, j.status, j.error_code,
           d.page_count AS pages,
           extract(epoch FROM j.finished_at - j.created_at)::float8 AS ready
    FROM {Job._meta.db_table} j JOIN {_DOCUMENTS} d ON d.id = j.document_id
    WHERE j.finished_at >= %s AND j.finished_at < %s AND j.status IN (%s, %s)
) ended
GROUP BY 1, 2, 3, 4
"""

# Retries: attempts that ended in a temporary error (the job went back to the queue by
# itself), at their end, and attempts after which an operator retried the job, at the
# retry (jobs.services.retry_jobs stamps the job's last attempt).
_RETRIES = f"""
SELECT minute, lane, count(*)
FROM (
    SELECT date_trunc('minute', a.finished_at) AS minute, j.lane
    FROM {JobAttempt._meta.db_table} a JOIN {Job._meta.db_table} j ON j.id = a.job_id
    WHERE a.outcome = %s AND a.finished_at >= %s AND a.finished_at < %s
    UNION ALL
    SELECT date_trunc('minute', a.retried_at), j.lane
    FROM {JobAttempt._meta.db_table} a JOIN {Job._meta.db_table} j ON j.id = a.job_id
    WHERE a.retried_at >= %s AND a.retried_at < %s
) retried
GROUP BY 1, 2
"""


# Pages read by OCR: the pages of the OCR lane's succeeded jobs whose chunks came from
# OCR (a chunk never crosses a page, so every page OCR found text on has one). A page on
# which OCR found no text is not counted here; the ingest_ocr_pages counter counts it.
_OCR_PAGES = f"""
SELECT date_trunc('minute', j.finished_at), j.lane, count(DISTINCT (c.document_id, c.page))
FROM {Job._meta.db_table} j JOIN {Chunk._meta.db_table} c
     ON c.document_id = j.document_id AND c.version = j.version AND c.source = 'ocr'
WHERE j.finished_at >= %s AND j.finished_at < %s AND j.status = %s AND j.lane = %s
GROUP BY 1, 2
"""


def _jobs_ended(start: datetime, end: datetime) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(_JOBS_ENDED, [start, end, JobStatus.SUCCEEDED, JobStatus.FAILED])
        return cursor.fetchall()


def _retries(start: datetime, end: datetime) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(_RETRIES, [AttemptOutcome.RETRY, start, end, start, end])
        return cursor.fetchall()


def _ocr_pages(start: datetime, end: datetime) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(_OCR_PAGES, [start, end, JobStatus.SUCCEEDED, Lane.OCR])
        return cursor.fetchall()
