"""The one way a job id reaches the broker: after commit, never failing the caller."""

import logging
import uuid

from django.db import transaction
from django.utils import timezone

from jobs.models import Job, JobStatus

log = logging.getLogger(__name__)


def send_job_on_commit(job_id: uuid.UUID) -> None:
    """Send the job's id once the surrounding transaction commits.

    Call inside the transaction that created or re-queued the job. If the broker is
    down the job stays `queued` with no `enqueued_at`; the sweeper sends it later.
    """
    transaction.on_commit(lambda: send_job(job_id))


def send_job(job_id: uuid.UUID) -> bool:
    """Send now; record `enqueued_at` on success. Returns False when the broker failed."""
    from jobs.actors import process_job  # the actor module imports services, not this one

    try:
        process_job.send(str(job_id))
    except Exception:
        log.warning(
            "could not send job %s to the broker; the sweeper will retry", job_id, exc_info=True
        )
        return False
    Job.objects.filter(id=job_id, status=JobStatus.QUEUED).update(enqueued_at=timezone.now())
    return True
