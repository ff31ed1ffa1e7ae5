"""Each lane now: its backlog, how fast one worker thread gets through it, and how many
threads would drain it in time (the scaling signal, `ingest_workers_wanted`).

    seconds_per_job = mean duration of the lane's attempts that ended in the last 15
                      minutes (any outcome), or 30 s when none did
    wanted          = ceil((queued + processing) x seconds_per_job / INGEST_TARGET_QUEUE_SECONDS)
                      clamped to INGEST_MIN_WORKERS .. INGEST_MAX_WORKERS

The OCR lane is measured as the others, from its own attempts: a job there takes far
longer than a text job, and its threads are few (WORKER_OCR_THREADS, 1 by default).

`queued` counts only jobs that are due (a retry waiting out its backoff needs no thread
yet); `processing` jobs hold a thread each until they end. docs/running/scaling.md states
the same formula for whoever autoscales on it.
"""

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import (
    Avg,
    Case,
    Count,
    DurationField,
    Exists,
    ExpressionWrapper,
    F,
    Min,
    OuterRef,
    Q,
    When,
)
from django.db.models.functions import Coalesce, Greatest
from django.utils import timezone

from jobs.models import AttemptOutcome, Job, JobAttempt, JobStatus, Lane

RATE_WINDOW = timedelta(minutes=15)
ASSUMED_SECONDS_PER_JOB = 30.0


@dataclass(frozen=True)
class LaneNow:
    lane: str
    queued: int  # due now
    waiting: int  # queued, but a retry still in its backoff
    processing: int
    oldest_age_seconds: float  # how long the oldest due job has waited; 0 when none
    seconds_per_job: float  # measured (see the module's docstring), or the assumption
    measured: bool
    workers_wanted: int


def workers_wanted(*, queued: int, processing: int, seconds_per_job: float) -> int:
    work = (queued + processing) * seconds_per_job
    threads = math.ceil(work / settings.INGEST_TARGET_QUEUE_SECONDS)
    return max(settings.INGEST_MIN_WORKERS, min(settings.INGEST_MAX_WORKERS, threads))


def _due_since() -> Greatest:
    # A retry is due at next_attempt_at; any other queued job since it was queued.
    return Greatest(F("queued_at"), Coalesce(F("next_attempt_at"), F("queued_at")))


def _in_flight(now: datetime) -> dict[str, dict[str, Any]]:
    """Per lane: due, waiting and processing counts and the oldest due time. One query on
    the jobs in flight (a small partial index however long the history)."""
    due = Q(status=JobStatus.QUEUED, due_since__lte=now)
    rows = (
        Job.objects.in_flight()
        .annotate(due_since=_due_since())
        .values("lane")
        .annotate(
            queued=Count("id", filter=due),
            waiting=Count("id", filter=Q(status=JobStatus.QUEUED, due_since__gt=now)),
            processing=Count("id", filter=Q(status=JobStatus.PROCESSING)),
            oldest=Min(Case(When(due, then=F("due_since")))),
        )
    )
    return {row["lane"]: dict(row) for row in rows}


def seconds_per_job(now: datetime) -> dict[str, float]:
    """Per lane, the mean duration of its attempts that ended in the last RATE_WINDOW (any
    outcome: each held a thread that long); a lane where none ended is missing.

    An attempt counts in its job's lane, except the attempts of a job that went on to the
    OCR lane up to the one that handed it on: those ran in the lane it came from, which
    the rows do not keep, so they count in none. A scan's few seconds in the fast lane
    must not halve the OCR lane's time per job (its attempts take far longer)."""
    duration = ExpressionWrapper(F("finished_at") - F("started_at"), output_field=DurationField())
    handed_on_later = JobAttempt.objects.filter(
        job=OuterRef("job"), outcome=AttemptOutcome.HANDED_ON, number__gte=OuterRef("number")
    )
    rows = (
        JobAttempt.objects.filter(finished_at__gte=now - RATE_WINDOW)
        .exclude(Exists(handed_on_later))
        .values(lane=F("job__lane"))
        .annotate(mean=Avg(duration))
    )
    return {row["lane"]: row["mean"].total_seconds() for row in rows if row["mean"] is not None}


def lanes_now() -> dict[str, LaneNow]:
    """Every lane, even an idle one, read in two queries."""
    now = timezone.now()
    flight, rates = _in_flight(now), seconds_per_job(now)
    lanes = {}
    for lane in Lane.values:
        row = flight.get(lane, {})
        queued, processing = row.get("queued", 0), row.get("processing", 0)
        oldest = row.get("oldest")
        seconds = rates.get(lane, ASSUMED_SECONDS_PER_JOB)
        lanes[lane] = LaneNow(
            lane=lane,
            queued=queued,
            waiting=row.get("waiting", 0),
            processing=processing,
            oldest_age_seconds=max(0.0, (now - oldest).total_seconds()) if oldest else 0.0,
            seconds_per_job=seconds,
            measured=lane in rates,
            workers_wanted=workers_wanted(
                queued=queued, processing=processing, seconds_per_job=seconds
            ),
        )
    return lanes
