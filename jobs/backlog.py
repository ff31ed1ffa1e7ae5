"""What admission control reads of the jobs (documents.front_door.admission decides with it): the
service's backlog in one statement, and one user's jobs in flight.

Both are counts of `jobs_job`, kept here so that no other app reads job rows for them.
"""

import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import connection
from django.db.models import (
    Case,
    Count,
    Func,
    IntegerField,
    OuterRef,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Coalesce
from django.utils import timezone

from jobs import fairness
from jobs.models import Job, JobStatus, Lane

DRAIN_WINDOW_SECONDS = 300
# Names the statement in logs and in the tests that count how often it runs.
SNAPSHOT_SQL_HEAD = "SELECT /* backlog snapshot */ "


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


def _oldest_startable() -> QuerySet[Job, datetime]:
    """When the oldest queued job that could start now was queued. One whose owner is at
    its fair share of the lane (jobs.fairness) waits for its own jobs, not for the
    service, and must not make everyone else's uploads look late. In queue order from the
    in-flight index, so Postgres stops at the first job that qualifies."""
    owners_running = (
        Job.objects.running()
        .filter(owner_id=OuterRef("owner_id"), lane=OuterRef("lane"))
        .order_by()
        .values("owner_id")
        .annotate(count=Count("pk"))
        .values("count")
    )
    share = Case(
        *(When(lane=lane, then=Value(fairness.limit(lane))) for lane in Lane.values),
        default=Value(fairness.limit(Lane.BATCH)),
    )
    return (
        Job.objects.filter(status=JobStatus.QUEUED)
        .annotate(owners_running=Coalesce(Subquery(owners_running), 0))
        .filter(owners_running__lt=share)
        .order_by("queued_at")
        .values_list("queued_at", flat=True)[:1]
    )


def read() -> Backlog:
    """The backlog now, in one statement: each figure a subquery the ORM builds from the
    Job queryset's definitions, so admission counts what the claim and fairness count."""
    since = timezone.now() - timedelta(seconds=DRAIN_WINDOW_SECONDS)
    figures = [
        _counted(Job.objects.in_flight()),
        _counted(Job.objects.filter(status=JobStatus.QUEUED)),
        _oldest_startable(),
        _counted(Job.objects.filter(finished_at__gte=since)),
    ]
    parts, params = zip(*(figure.query.sql_with_params() for figure in figures), strict=True)
    with connection.cursor() as cursor:
        cursor.execute(
            SNAPSHOT_SQL_HEAD + ", ".join(f"({part})" for part in parts),
            [p for ps in params for p in ps],
        )
        in_flight, queued, oldest, finished = cursor.fetchone()
    return Backlog(in_flight, queued, oldest, finished, time.monotonic())


class _CountRows(Func):
    """count(*) as a plain column, so the ORM adds no GROUP BY: one row, even for none."""

    template = "count(*)"
    output_field = IntegerField()


def _counted(jobs: QuerySet[Job]) -> QuerySet[Job, int]:
    return jobs.order_by().values_list(_CountRows(), flat=True)


def in_flight(*, owner_id: int) -> int:
    """The owner's unfinished jobs (queued or processing), from a small partial index."""
    return Job.objects.in_flight().filter(owner_id=owner_id).count()
