"""A failed document's fresh attempt, and the rule for when it may have one."""

import uuid
from collections.abc import Callable

from django.db import (
    transaction,
)

from documents.models import Document
from documents.services.queueing import queue_new_job
from jobs import failures
from jobs import services as jobs
from jobs.models import Job, JobStatus


class NotRetryable(Exception):
    """The document may not be retried; the message says why (retry_refusal)."""


def retry_document(
    *,
    document_id: uuid.UUID,
    owner_id: int,
    admit: Callable[[], None] | None = None,
    public_url: str = "",
) -> Job:
    """Give a failed document a fresh attempt: a new queued job, sent after commit.

    Locks the document row, so two retries make one job. Raises Document.DoesNotExist for
    another owner's document and NotRetryable when retry_refusal says why it may not be
    retried (this is where that is decided). `admit`, if given, is called under the lock
    once the document is known to be retryable (documents.front_door.intake.retry passes
    the admission there): a document that cannot be is answered so even while the service
    is busy, and a refusal it raises leaves the document as it was.
    """
    with transaction.atomic():
        document = (
            Document.objects.select_for_update(of=("self",))
            .select_related("current_job")
            .get(id=document_id, owner_id=owner_id)
        )
        current = document.current_job
        if refusal := retry_refusal(current):
            raise NotRetryable(refusal)
        assert current is not None  # retry_refusal refuses a document without a job
        if admit is not None:
            admit()
        # The retry tells the failed upload's own webhook, if it had one, how it ends.
        job = queue_new_job(
            document,
            webhook_url=current.webhook_url,
            public_url=public_url or current.public_url,
        )
        jobs.record_retry(job_ids=[current.id])
    return job


def retry_refusal(job: Job | None) -> str | None:
    """Why the document whose current job is `job` may not be retried, or None when it may.

    Only a failed job is retried, and not one that failed because of its file
    (jobs.failures.file_refusal: the rule the admin's bulk retry follows too).
    """
    if job is None or job.status != JobStatus.FAILED:
        state = job.status if job else "without a job"
        return f"Only a failed document can be retried; this one is {state}."
    return failures.file_refusal(job)
