"""What admission control reads of the jobs (documents.admission decides with it): the
service's backlog in one statement, and one user's jobs in flight.

Both are counts of `jobs_job`, kept here so that no other app reads job rows for them.
"""

import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import connection
from django.utils import timezone

from jobs import fairness
from jobs.models import IN_FLIGHT_STATUSES, Job

DRAIN_WINDOW_SECONDS = 300


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


def read() -> Backlog:
    """The backlog now, in one statement."""
    since = timezone.now() - timedelta(seconds=DRAIN_WINDOW_SECONDS)
    with connection.cursor() as cursor:
        cursor.execute(_SNAPSHOT_SQL, [fairness.limit("fast"), fairness.limit("batch"), since])
        in_flight, queued, oldest, finished = cursor.fetchone()
    return Backlog(in_flight, queued, oldest, finished, time.monotonic())


def in_flight(*, owner_id: int) -> int:
    """The owner's unfinished jobs (queued or processing), from a small partial index."""
    return Job.objects.filter(owner_id=owner_id, status__in=IN_FLIGHT_STATUSES).count()
