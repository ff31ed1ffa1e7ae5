"""Admission control: refuse uploads the service could not honour in time.

The global check reads a snapshot of the backlog that each process refreshes at most
once a second, so a burst of uploads does not turn into a burst of COUNT queries. The
per-user check counts one user's jobs in flight from a small partial index.
"""

import math
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection
from django.utils import timezone

from config import humanize
from jobs import fairness
from jobs.models import Job

DRAIN_WINDOW_SECONDS = 300
# With no job finished in the window (workers down or just started) nothing was
# measured; clients are asked to come back after this long.
UNMEASURED_RETRY_AFTER = 120
MAX_RETRY_AFTER = 3600


@dataclass(frozen=True)
class Backlog:
    in_flight: int
    queued: int
    oldest_queued_at: datetime | None
    finished_recently: int
    taken_at: float  # time.monotonic()

    @property
    def drain_rate(self) -> float:
        """Jobs finished per second over the last DRAIN_WINDOW_SECONDS."""
        return self.finished_recently / DRAIN_WINDOW_SECONDS

    def seconds_to_drain(self, jobs: float) -> int:
        if self.drain_rate <= 0:
            return UNMEASURED_RETRY_AFTER
        return _clamp(jobs / self.drain_rate)


@dataclass(frozen=True)
class Refusal:
    http_status: int
    code: str
    detail: str
    retry_after: int


# The oldest queued job that could start now: one whose owner is at its fair share of the
# lane (jobs.fairness) waits for its own jobs, not for the service, and must not make
# everyone else's uploads look late. Read in queue order from the in-flight index, so it
# stops at the first job that qualifies.
_SNAPSHOT_SQL = """
SELECT count(*),
       count(*) FILTER (WHERE status = 'queued'),
       (SELECT queued.queued_at FROM jobs_job AS queued
        WHERE queued.status = 'queued'
          AND (SELECT count(*) FROM jobs_job AS running
               WHERE running.owner_id = queued.owner_id AND running.lane = queued.lane
                 AND running.status = 'processing')
              < CASE queued.lane WHEN 'fast' THEN %s ELSE %s END
        ORDER BY queued.queued_at LIMIT 1),
       (SELECT count(*) FROM jobs_job WHERE finished_at >= %s)
FROM jobs_job
WHERE status IN ('queued', 'processing')
"""

_lock = threading.Lock()
_snapshot: Backlog | None = None
# Jobs this process admitted since its snapshot was read: without them, every upload in
# the second after the backlog dipped below its limit was let in (the load test saw 200
# in one second, 190 over a limit of 560).
_admitted_since_snapshot = 0


def backlog(max_age: float = 1.0) -> Backlog:
    """The backlog as of at most `max_age` seconds ago (per process)."""
    global _snapshot, _admitted_since_snapshot
    with _lock:
        if _snapshot is None or time.monotonic() - _snapshot.taken_at > max_age:
            _snapshot = _read_backlog()
            _admitted_since_snapshot = 0
        return _snapshot


def forget_backlog() -> None:
    """Drop the cached snapshot (tests, and after this process admitted a large batch)."""
    global _snapshot, _admitted_since_snapshot
    with _lock:
        _snapshot = None
        _admitted_since_snapshot = 0
        _user_counts.clear()


def _read_backlog() -> Backlog:
    since = timezone.now() - timedelta(seconds=DRAIN_WINDOW_SECONDS)
    with connection.cursor() as cursor:
        cursor.execute(_SNAPSHOT_SQL, [fairness.limit("fast"), fairness.limit("batch"), since])
        in_flight, queued, oldest, finished = cursor.fetchone()
    return Backlog(in_flight, queued, oldest, finished, time.monotonic())


def check_service() -> Refusal | None:
    """503 when the backlog or the age of the oldest queued job is past its limit."""
    snapshot = backlog()
    max_backlog = settings.INGEST_MAX_BACKLOG
    if snapshot.in_flight + _admitted_since_snapshot >= max_backlog:
        wait = snapshot.seconds_to_drain(snapshot.in_flight - 0.9 * max_backlog)
        return Refusal(503, "backlog_full", _busy(snapshot, wait), wait)
    max_age = settings.INGEST_MAX_QUEUE_AGE_SECONDS
    if snapshot.oldest_queued_at is not None:
        age = (timezone.now() - snapshot.oldest_queued_at).total_seconds()
        if age > max_age:
            # Come back when what is queued now could start within the promise.
            ahead = snapshot.queued - 0.9 * max_age * snapshot.drain_rate
            wait = snapshot.seconds_to_drain(max(ahead, 1))
            return Refusal(503, "backlog_full", _busy(snapshot, wait), wait)
    return None


_user_counts: dict[int, tuple[int, float]] = {}
_MAX_CACHED_USERS = 10_000


def _user_in_flight(user_id: int) -> int:
    """The user's unfinished jobs, counted at most once a second per process."""
    cached = _user_counts.get(user_id)
    if cached is not None and time.monotonic() - cached[1] < 1.0:
        return cached[0]
    if len(_user_counts) > _MAX_CACHED_USERS:
        _user_counts.clear()
    count = Job.objects.in_flight().filter(owner_id=user_id).count()
    _user_counts[user_id] = (count, time.monotonic())
    return count


def note_admitted(*, user_id: int, jobs: int) -> None:
    """Count jobs this process just created until the next refresh, so a burst within
    the second cannot overshoot the limits unseen (the user's, and the backlog's)."""
    global _admitted_since_snapshot
    with _lock:
        _admitted_since_snapshot += jobs
    cached = _user_counts.get(user_id)
    if cached is not None:
        _user_counts[user_id] = (cached[0] + jobs, cached[1])


def check_user(*, user_id: int) -> Refusal | None:
    """429 when this user already has INGEST_MAX_INFLIGHT_PER_USER unfinished jobs."""
    limit = settings.INGEST_MAX_INFLIGHT_PER_USER
    # Nobody has more jobs in flight than the whole service: below the limit there, the
    # user's own count (a query per upload in a burst of many users) is not needed.
    snapshot = backlog()
    if snapshot.in_flight + _admitted_since_snapshot < limit:
        return None
    in_flight = _user_in_flight(user_id)
    if in_flight < limit:
        return None
    wait = snapshot.seconds_to_drain(in_flight - 0.9 * limit)
    detail = (
        f"You have {in_flight} documents waiting or in processing (the limit is {limit}). "
        f"Try again in {humanize.duration(wait)}."
    )
    return Refusal(429, "too_many_in_flight", detail, wait)


def _busy(snapshot: Backlog, wait: int) -> str:
    return (
        f"The service is busy: {snapshot.in_flight} documents are waiting or in processing. "
        f"Try again in {humanize.duration(wait)}."
    )


def _clamp(seconds: float) -> int:
    return int(min(MAX_RETRY_AFTER, max(1, math.ceil(seconds))))
