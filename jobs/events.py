"""The hub: what follows a change of a job's state, once the change is committed.

jobs.services calls `changed` from every place that changes a job, and nothing else
does: the owner's pages hear of it (jobs.notify), the pages of every owner with jobs
queued in its lane hear that their places moved (jobs.queue_moved), the counters move
(config.common.metrics), an operational failure alerts whoever is on call (jobs.ops.alerts)
and an ending is written to the webhooks' outbox in the change's own transaction
(jobs.webhooks.outbox). A change that rolls back leaves no trace in any of them. The last
two are told through the signals below, which their apps connect to when ready: jobs'
core imports neither (pyproject.toml's import contracts).

Its second half is in the database: the jobs by state and lane that /metrics reports
(ingest_jobs) are counted by triggers on jobs_job (jobs/ops/migrations/0002_job_counts.py,
read by jobs.ops.counts), in the transaction of each statement that changes a row: every
change announced here, and the deletes that cascade from a document. The figures are
exact because they commit or roll back with the change itself; a count kept from here,
after commit, would drift by every process that died in between, and counting the table
on each scrape is what the triggers exist to avoid (the history grows without end).
"""

import logging
from collections.abc import Callable, Iterable
from datetime import datetime

from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone

from config.common import metrics
from jobs import notify, queue_moved
from jobs.models import AttemptOutcome, Job, JobStatus

log = logging.getLogger(__name__)

# Who acts on a change beyond jobs' core connects here when its app is ready, so the core
# imports neither: the webhooks' outbox writes an ending's event in the change's own
# transaction (job, status, chunks; an error fails the change), and the alerts hear of a
# failure once it is committed (job).
changed_in_transaction = Signal()
failed_after_commit = Signal()

# How an ended attempt is counted in ingest_job_attempts_total{outcome}.
_ATTEMPT_OUTCOMES: dict[str, str] = {
    AttemptOutcome.SUCCEEDED: "succeeded",
    AttemptOutcome.SUPERSEDED: "superseded",
    AttemptOutcome.RETRY: "retried",
    AttemptOutcome.FAILED: "failed",
    AttemptOutcome.LOST: "lost",
}


def changed(
    job: Job,
    *,
    status: str,
    ended: str | None = None,
    done: int = 0,
    total: int = 0,
    progress: bool = False,
    stage: str = "",
    pages_done: int = 0,
    pages_total: int = 0,
) -> None:
    """The job is now `status`; `ended` is the outcome of the attempt this change ended,
    if it ended one. For a failure, `job.error_code` and `error_detail` say why. With
    `progress`, nothing but the running attempt's counts changed: `stage`, the pages read
    and the chunks embedded (jobs.progress); only the owner's pages hear of that."""
    notify.job_changed(
        job,
        status=status,
        done=done,
        total=total,
        progress=progress,
        stage=stage,
        pages_done=pages_done,
        pages_total=pages_total,
    )
    if progress:
        return
    queue_moved.moved_on_commit(job.lane)
    changed_in_transaction.send(sender=Job, job=job, status=status, chunks=total)
    now = timezone.now()
    _after_commit(lambda: _count(job, status, ended, total, now))


def many_changed(jobs: Iterable[Job], *, status: str) -> None:
    """Operator actions and sweeps: several jobs to one state, no attempt ended."""
    for job in jobs:
        changed(job, status=status)


def deleted(job: Job) -> None:
    """The job's row went with its document (the foreign key cascades): the owner's other
    pages drop the row, told it ended cancelled. No webhook event (its row is gone with
    the job's) and no counter: the triggers subtract the deleted row themselves."""
    notify.job_changed(job, status=JobStatus.CANCELLED)
    queue_moved.moved_on_commit(job.lane)


def first_queued(job: Job) -> None:
    """A new document's first job went in with the document, queued. No page shows the
    document yet, so no row is pushed: the lane's notice (jobs.queue_moved) tells the
    owner's pages to read their rows again, which brings it in where a reload puts it.
    No counter either: the triggers count the inserted row themselves."""
    queue_moved.moved_on_commit(job.lane)


def attempts_lost(count: int) -> None:
    """Attempts whose worker died, found when their job was taken back."""
    if count:
        _after_commit(lambda: metrics.ATTEMPTS.labels(outcome="lost").inc(count))


def _after_commit(call: Callable[[], None]) -> None:
    def guarded() -> None:
        try:
            call()
        except Exception:  # a counter or an alert never fails the change it follows
            log.warning("could not record a job's change", exc_info=True)

    transaction.on_commit(guarded)


def _count(job: Job, status: str, ended: str | None, total: int, now: datetime) -> None:
    if status == JobStatus.PROCESSING and job.started_at and job.queued_at:
        wait = (job.started_at - job.queued_at).total_seconds()
        metrics.QUEUE_WAIT.labels(lane=job.lane).observe(max(0.0, wait))
    if ended is not None:
        metrics.ATTEMPTS.labels(outcome=_ATTEMPT_OUTCOMES[ended]).inc()
        if job.started_at is not None:
            seconds = (now - job.started_at).total_seconds()
            metrics.PROCESSING.labels(lane=job.lane).observe(max(0.0, seconds))
    if status == JobStatus.SUCCEEDED:
        metrics.TIME_TO_READY.observe(max(0.0, (now - job.created_at).total_seconds()))
        metrics.CHUNKS.inc(total)
    if status == JobStatus.FAILED:
        metrics.FAILURES.labels(code=job.error_code or "unknown").inc()
        failed_after_commit.send(sender=Job, job=job)
