"""When a queued job may start, from what is known now, or nothing where nothing is.

The page shows it beside a queued row ("next in line · starts in 40 s"). It comes from:

- the worker threads that serve the job's lane: live worker processes (jobs.worker.heartbeat)
  that consume the lane's queue, with their thread counts, and the attempts running on
  them now (each holds a thread, whatever its lane);
- the jobs ahead of it: queued in its lane before it, plus the lane's resumed jobs (an
  earlier attempt ended: workers serve their resume queue first);
- how long a thread holds a job: the mean duration of the lane's attempts that ended in
  the last 15 minutes (jobs.ops.scaling.seconds_per_job).

With a thread free for it (fewer jobs ahead than free threads) it starts in a moment, and
no duration is needed. Otherwise each thread frees up once its job has run for the mean
duration, then every mean duration after: the job takes the (ahead + 1)th slot in that
order. Nothing is said when no live worker serves the lane, when every thread is busy and
no attempt ended lately (nothing measured), or when its owner already runs their fair
share of the lane (jobs.fairness): then it waits for its owner's own jobs, not the queue.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import reduce
from operator import or_

from django.db.models import Q
from django.utils import timezone

from jobs import fairness
from jobs.lanes import route
from jobs.models import Job, JobStatus
from jobs.ops.scaling import seconds_per_job
from jobs.worker import heartbeat


@dataclass(frozen=True)
class LaneThreads:
    """A lane's worker threads now: how soon each can take a job, soonest first (0 for a
    free one; None for a busy one while nothing was measured), and a thread's mean time
    per job (None: no attempt ended in the window)."""

    ready_in: list[float | None]
    seconds_per_job: float | None

    @property
    def threads(self) -> int:
        return len(self.ready_in)

    @property
    def free(self) -> int:
        return sum(1 for seconds in self.ready_in if seconds == 0)


def lane_threads(lane: str, *, now: datetime | None = None) -> LaneThreads:
    """The threads of the live workers that consume `lane`'s queue, and what they hold."""
    now = now or timezone.now()
    queue = route(lane).queue_name
    processes = [(p.name, p.threads) for p in heartbeat.alive() if queue in (p.queues or [])]
    threads = sum(count for _, count in processes)
    if not threads:
        return LaneThreads([], None)
    on_them = reduce(or_, (Q(worker__startswith=f"{name}:") for name, _ in processes))
    started = Job.objects.running().filter(on_them).values_list("started_at", flat=True)
    per_job = seconds_per_job(now).get(lane)
    busy: list[float | None] = [
        None if per_job is None else max(0.0, per_job - (now - at).total_seconds())
        for at in started
        if at is not None  # a running attempt always has its start
    ]
    ready_in = [0.0] * max(0, threads - len(busy)) + sorted(busy, key=_unknown_last)
    return LaneThreads(ready_in[:threads], per_job)


def _unknown_last(seconds: float | None) -> float:
    return float("inf") if seconds is None else seconds


def jobs_ahead(job: Job) -> int:
    """Queued jobs of the job's lane that go before it: queued earlier, or resumed (served
    first) while this one is new."""
    before = Q(queued_at__lt=job.queued_at)
    if job.attempts == 0:
        before |= Q(attempts__gt=0)
    return (
        Job.objects.filter(status=JobStatus.QUEUED, lane=job.lane)
        .filter(before)
        .exclude(id=job.id)
        .count()
    )


def seconds_to_start(
    job: Job, *, ahead: int, lane: LaneThreads, now: datetime | None = None
) -> float | None:
    """Seconds until the queued `job` may start, `ahead` jobs before it on `lane`'s
    threads; None when there is no basis for a figure (see the module's docstring)."""
    if not lane.threads:
        return None
    if fairness.running(job.owner_id, job.lane) >= fairness.limit(job.lane):
        return None  # it waits for its owner's own jobs to end
    if ahead < lane.free:
        seconds = 0.0
    else:
        slot = lane.ready_in[ahead % lane.threads]
        if slot is None or lane.seconds_per_job is None:
            return None
        seconds = slot + (ahead // lane.threads) * lane.seconds_per_job
    now = now or timezone.now()
    if job.next_attempt_at is not None:  # a retry waits out its backoff first
        seconds = max(seconds, (job.next_attempt_at - now).total_seconds())
    return seconds
