"""Every change of a job's state. Each is one conditional UPDATE on the expected state."""

import uuid

from django.db.models import F, QuerySet
from django.utils import timezone

from documents.models import Document
from jobs.models import Job, JobStatus
from jobs.queue import send_job_on_commit


def queue_new_job(*, document: Document) -> Job:
    """Create a queued job for the document's current version and make it the
    document's current job; its id is sent after commit.

    Call inside a transaction (the caller's, which also holds whatever lock it needs).
    """
    job = Job.objects.create(
        document=document, owner_id=document.owner_id, version=document.version
    )
    document.current_job = job
    document.save(update_fields=["current_job", "updated_at"])
    send_job_on_commit(job.id)
    return job


def claim_job(*, job_id: uuid.UUID, worker: str) -> Job | None:
    """Take a queued job for this worker: processing, attempts + 1, timestamps set.

    Returns the claimed job, or None when the job is not queued any more (another
    worker holds it, it is finished, or it was deleted): the caller drops the message.
    """
    now = timezone.now()
    claimed = Job.objects.filter(id=job_id, status=JobStatus.QUEUED).update(
        status=JobStatus.PROCESSING,
        attempts=F("attempts") + 1,
        started_at=now,
        heartbeat_at=now,
        worker=worker,
        error_code="",
        error_detail="",
    )
    if claimed == 0:
        return None  # someone else got there first, or there is nothing left to do
    return Job.objects.select_related("document").get(id=job_id)


def _held(job: Job) -> QuerySet[Job]:
    """The job's row, as long as this attempt still holds it."""
    return Job.objects.filter(
        id=job.id, status=JobStatus.PROCESSING, attempts=job.attempts, worker=job.worker
    )


def record_progress(*, job: Job, done: int, total: int) -> bool:
    """Store progress and renew the heartbeat. False when the attempt lost the job."""
    updated = _held(job).update(
        progress_done=done, progress_total=total, heartbeat_at=timezone.now()
    )
    return updated == 1


def mark_succeeded(*, job: Job, total: int) -> bool:
    """Finish the attempt. Call inside the transaction that retires stale chunks, so the
    results and the status become visible together. False when the attempt lost the
    job: the caller must roll back."""
    now = timezone.now()
    updated = _held(job).update(
        status=JobStatus.SUCCEEDED,
        progress_done=total,
        progress_total=total,
        heartbeat_at=now,
        finished_at=now,
    )
    return updated == 1


def mark_failed(*, job: Job, code: str, detail: str) -> bool:
    """End the attempt as failed with a stable code and a person-readable detail."""
    now = timezone.now()
    updated = _held(job).update(
        status=JobStatus.FAILED,
        error_code=code,
        error_detail=detail[:5000],
        heartbeat_at=now,
        finished_at=now,
    )
    return updated == 1


def release_for_retry(*, job: Job, code: str, detail: str) -> bool:
    """Put the job back in the queue after a transient error, keeping the error seen."""
    updated = _held(job).update(
        status=JobStatus.QUEUED,
        queued_at=timezone.now(),
        error_code=code,
        error_detail=detail[:5000],
        worker="",
    )
    return updated == 1
