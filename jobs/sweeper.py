"""Recovery: re-send jobs whose message was lost, and take back jobs whose worker died.

The database is the record; the queue only delivers. Whatever the queue lost (a flushed
Redis, a failed send, a retry held in a dead worker's memory) the sweeper finds here.
"""

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import dramatiq
from django.conf import settings
from django.db import transaction
from django.db.models import Q, QuerySet
from django.dispatch import Signal
from django.utils import timezone
from django.utils.module_loading import import_string

from jobs import fairness, services
from jobs.models import Job, JobStatus
from jobs.queue import send_job

log = logging.getLogger(__name__)

# What else the sweeper does on each pass, after its recovery of jobs. Each app connects
# its own steps when it is ready (on_each_pass), so jobs' core imports none of them:
# jobs.ops the dashboard's minute, the job counts, the queue-age alert and messages lost
# behind idle threads; jobs.webhooks deliveries whose message was lost and its retention;
# documents direct uploads, expired Idempotency-Key rows, its retention and the
# re-embedding that follows a change of the configured embedding.
each_pass = Signal()

# A job created this recently may still be on its way: its on-commit send has not run.
UNSENT_GRACE_SECONDS = 10
# A job that already had its turn is sent to its lane's resume queue, which workers serve
# first; still not claimed this long after it was due, its message is held by a worker
# whose threads are all busy (Dramatiq prefetches for each queue apart), so it is sent
# again for a free one to take.
RESUME_GRACE_SECONDS = 5  # a claim takes well under this; a copy sent too soon is dropped


@dataclass
class SweepReport:
    resent: list = field(default_factory=list)
    reclaimed: list = field(default_factory=list)  # stale processing jobs put back in the queue
    crashed: list = field(default_factory=list)  # stale jobs out of attempts: failed
    failed_to_send: list = field(default_factory=list)


def requeue_stuck(
    *, older_than: float | None = None, dry_run: bool = False, limit: int = 1000
) -> SweepReport:
    """One sweep. Safe in several processes at once: rows are picked with FOR UPDATE
    SKIP LOCKED and changed before the lock is released, so two sweepers never act on
    the same job; a job sent twice is harmless (the second message finds it claimed).

    - processing jobs whose lease expired go back to `queued` (their attempt is recorded
      as lost) and are sent, or end `crashed` when they are out of attempts;
    - queued jobs never sent, or due more than `older_than` seconds ago (default
      INGEST_REQUEUE_GRACE_SECONDS) and still not picked up, are sent again; so are jobs
      that already had an attempt, RESUME_GRACE_SECONDS after they were due;
    - so are due queued jobs sent before the broker's Redis last started (their message
      may have gone with it) or queued before it and never sent (the broker was down):
      waiting out the grace period would stall them.
    """
    grace = settings.INGEST_REQUEUE_GRACE_SECONDS if older_than is None else older_than
    report = SweepReport()
    if dry_run:
        with transaction.atomic():
            report.reclaimed = [job.id for job in _pick(Job.objects.stale(), limit)]
    else:
        report.reclaimed, report.crashed = _take_back(Job.objects.stale(), limit)
    with transaction.atomic():
        waiting = _pick(Job.objects.filter(_waiting(grace, broker_started_at())), limit)
        if dry_run:
            report.resent = [job.id for job in waiting]
            return report
        # Stamped now, so a concurrent sweeper skips them once this commits.
        Job.objects.filter(id__in=[job.id for job in waiting]).update(enqueued_at=timezone.now())
    for job in waiting:
        # A job that has had an attempt already waited its turn: it goes before the backlog.
        sent = send_job(job.id, lane=job.lane, resumed=job.attempts > 0)
        (report.resent if sent else report.failed_to_send).append(job.id)
    if report.failed_to_send:
        Job.objects.filter(id__in=report.failed_to_send).update(enqueued_at=None)
    return report


def take_back_dead(*, limit: int = 1000) -> list:
    """Take back the jobs of workers known dead (Job.objects.of_dead_workers()), at once, as a sweep
    would once their lease expired: back to the queue (sent after commit), or `crashed`
    out of attempts. For the worker processes that find a neighbour dead. Returns the
    ids taken back or failed."""
    requeued, crashed = _take_back(Job.objects.of_dead_workers(), limit)
    return requeued + crashed


def resend_first_sent(
    *, lane: str, count: int, sent_before: datetime | None = None, runnable: bool = False
) -> list:
    """Send again, to the lane's resume queue, the `count` due queued jobs of `lane` sent
    first (and, with `sent_before`, before then). For a dead worker's prefetched messages:
    they died with it (the broker gives them back only after its own heartbeat timeout,
    and behind the whole queue), and the queue hands out the first sent first, so these
    are the ones a worker held; and for messages lost on their way (jobs.ops.lost_messages).
    `runnable`: leave out the jobs of owners at their fair share of the lane, which wait
    for room without a message. The claim makes a duplicate harmless. Returns the ids
    sent."""
    now = timezone.now()
    due = Q(next_attempt_at__isnull=True) | Q(next_attempt_at__lte=now)
    sent = Q(enqueued_at__isnull=False)
    if sent_before is not None:
        sent &= Q(enqueued_at__lt=sent_before)
    with transaction.atomic():
        jobs = Job.objects.select_for_update(skip_locked=True).filter(
            due, sent, status=JobStatus.QUEUED, lane=lane
        )
        if runnable:
            jobs = jobs.exclude(owner_id__in=fairness.owners_at_limit(lane))
        first = list(jobs.order_by("enqueued_at").values_list("id", flat=True)[:count])
        # Stamped now, as the sweeper does: sent, so not sent again before the grace.
        Job.objects.filter(id__in=first).update(enqueued_at=now)
    return [job_id for job_id in first if send_job(job_id, lane=lane, resumed=True)]


def _take_back(stale: QuerySet[Job], limit: int) -> tuple[list, list]:
    """(re-queued, crashed) among `stale` jobs, picked with SKIP LOCKED and changed
    before the lock is released."""
    requeued: list = []
    crashed: list = []
    with transaction.atomic():
        for job in _pick(stale, limit):
            (requeued if services.requeue_stale(job=job) else crashed).append(job.id)
    return requeued, crashed


def _pick(jobs: QuerySet[Job], limit: int) -> list[Job]:
    return list(jobs.select_for_update(skip_locked=True).order_by("queued_at")[:limit])


def broker_started_at() -> datetime | None:
    """When the broker's Redis last started (from its uptime), or None when it does not
    answer. A restart without persistence loses every message, and even an append-only
    file may lose the last second's."""
    client = getattr(dramatiq.get_broker(), "client", None)
    for _ in range(2):  # the first call after a restart may meet a dead pooled connection
        try:
            uptime = client.info("server")["uptime_in_seconds"]  # type: ignore[union-attr]
        except Exception:
            log.info("the broker does not say when it started", exc_info=True)
            continue
        # Redis counts whole seconds from a start time in whole seconds, so the start
        # may be up to a second later than this says: take the latest it can be (a
        # duplicate message is harmless, a lost one is not).
        return timezone.now() - timedelta(seconds=uptime - 1)
    return None


def _waiting(grace: float, broker_started: datetime | None) -> Q:
    now = timezone.now()
    queued = Q(status=JobStatus.QUEUED)
    never_sent = Q(
        enqueued_at__isnull=True, queued_at__lt=now - timedelta(seconds=UNSENT_GRACE_SECONDS)
    )
    # Due since `grace`: sent that long ago (or its retry was due that long ago).
    overdue = Q(enqueued_at__lt=now - timedelta(seconds=grace)) & (
        Q(next_attempt_at__isnull=True) | Q(next_attempt_at__lt=now - timedelta(seconds=grace))
    )
    resume_grace = now - timedelta(seconds=RESUME_GRACE_SECONDS)
    resumed_overdue = Q(attempts__gt=0, enqueued_at__lt=resume_grace) & (
        Q(next_attempt_at__isnull=True) | Q(next_attempt_at__lt=resume_grace)
    )
    waiting = never_sent | overdue | resumed_overdue
    if broker_started is not None:
        # Sent to a Redis that has restarted since, or queued before it started and never
        # sent (the send failed while it was down), and due: sent at once. Once stamped
        # by this sweep, they wait for the grace period like any other.
        due = Q(next_attempt_at__isnull=True) | Q(next_attempt_at__lte=now)
        lost = Q(enqueued_at__lt=broker_started)
        unsent = Q(enqueued_at__isnull=True, queued_at__lt=broker_started)
        waiting |= (lost | unsent) & due
    return queued & waiting


def on_each_pass(*steps: str) -> None:
    """Run these steps, each a function's dotted path, on every pass of the sweeper (once
    each, however often asked). Named, not imported: a process that never sweeps (the
    web) loads none of them."""
    for path in steps:
        each_pass.connect(_Step(path), weak=False, dispatch_uid=path)


class _Step:
    def __init__(self, path: str) -> None:
        self.__qualname__ = path

    def __call__(self, sender: object, **kwargs: object) -> object:
        step: Callable[[], object] = import_string(self.__qualname__)
        return step()


def run_each_pass() -> None:
    """Every step connected to each_pass. Never raises: recovery must go on whatever
    happens to any one step."""
    for receiver, outcome in each_pass.send_robust(sender=None):
        if isinstance(outcome, Exception):
            name = getattr(receiver, "__qualname__", repr(receiver))
            log.warning("sweeper: %s failed", name, exc_info=outcome)
