"""Recovery: send again the queued jobs whose message was lost or never sent."""

from dataclasses import dataclass, field
from datetime import timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from jobs.models import Job, JobStatus
from jobs.queue import send_job

# A job created this recently may still be on its way: its on-commit send has not run.
UNSENT_GRACE_SECONDS = 10


@dataclass
class SweepReport:
    resent: list = field(default_factory=list)
    failed_to_send: list = field(default_factory=list)


def requeue_stuck(*, older_than: float, dry_run: bool = False, limit: int = 1000) -> SweepReport:
    """Send again queued jobs never sent, or sent more than `older_than` seconds ago.

    Safe in several processes at once: rows are picked with FOR UPDATE SKIP LOCKED and
    stamped with a new `enqueued_at` before the lock is released, so two sweepers never
    pick the same job in one pass. A job sent twice is harmless: the second message
    finds it claimed and is dropped.
    """
    now = timezone.now()
    stale = Q(enqueued_at__isnull=True, queued_at__lt=now - timedelta(seconds=UNSENT_GRACE_SECONDS))
    stale |= Q(enqueued_at__lt=now - timedelta(seconds=older_than))
    report = SweepReport()
    with transaction.atomic():
        picked = list(
            Job.objects.select_for_update(skip_locked=True)
            .filter(stale, status=JobStatus.QUEUED)
            .order_by("queued_at")
            .values_list("id", flat=True)[:limit]
        )
        if dry_run:
            report.resent = picked
            return report
        # Stamped now, so a concurrent sweeper skips them once this commits.
        Job.objects.filter(id__in=picked).update(enqueued_at=now)
    for job_id in picked:
        (report.resent if send_job(job_id) else report.failed_to_send).append(job_id)
    if report.failed_to_send:
        Job.objects.filter(id__in=report.failed_to_send).update(enqueued_at=None)
    return report
