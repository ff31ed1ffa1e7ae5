"""The one way a job id reaches the broker: after commit, never failing the caller."""

import logging
import uuid

import dramatiq
from django.db import transaction
from django.utils import timezone

from jobs.lanes import route
from jobs.models import Job, JobStatus

log = logging.getLogger(__name__)


def send_job_on_commit(
    job: Job, *, delay_seconds: float = 0, stamped: bool = False, resumed: bool = False
) -> None:
    """Send the job's id once the surrounding transaction commits.

    Call inside the transaction that created or re-queued the job. If the broker is
    down the job stays `queued` without `enqueued_at`; the sweeper sends it later.
    `resumed`: the job already waited its turn once (see `send_job`).
    """
    job_id, lane = job.id, job.lane
    transaction.on_commit(
        lambda: send_job(
            job_id, lane=lane, delay_seconds=delay_seconds, stamped=stamped, resumed=resumed
        )
    )


def send_job(
    job_id: uuid.UUID,
    *,
    lane: str,
    delay_seconds: float = 0,
    stamped: bool = False,
    resumed: bool = False,
) -> bool:
    """Send now (to the lane's queue, after `delay_seconds`) and record `enqueued_at`.
    Returns False when the broker failed, leaving `enqueued_at` empty for the sweeper.

    `stamped`: the job was inserted with `enqueued_at` already set, which saves the
    upload path an UPDATE; only a failure needs a write then. `resumed`: the job already
    waited its turn once (a retry, a job taken back from a dead worker): it goes to the
    lane's resume queue, which workers serve first, not to the back of the backlog.
    """
    try:
        _send(str(job_id), lane=lane, resumed=resumed, delay_ms=int(delay_seconds * 1000) or None)
    except Exception:
        log.warning(
            "could not send job %s to the broker; the sweeper will retry", job_id, exc_info=True
        )
        if stamped:
            Job.objects.filter(id=job_id, status=JobStatus.QUEUED).update(enqueued_at=None)
        return False
    if not stamped:
        Job.objects.filter(id=job_id, status=JobStatus.QUEUED).update(enqueued_at=timezone.now())
    return True


def _send(job_id: str, *, lane: str, resumed: bool, delay_ms: int | None) -> None:
    actor_name, queue_name = route(lane, resumed=resumed)
    enqueue_by_name(queue_name, actor_name, job_id, delay_ms=delay_ms)


def enqueue_by_name(
    queue_name: str, actor_name: str, *args: object, delay_ms: int | None = None
) -> None:
    """What an actor's `send_with_options(args=args, delay=...)` does, by name.

    The message is built as Dramatiq's `Actor.message_with_options` builds it and
    enqueued on the configured broker, which adds the `eta` of a delayed message itself,
    so a web process never imports the actors (jobs/lanes.py, jobs/ops/alerts.py,
    jobs/webhooks/sending/dispatch.py). Raises what the broker raises.
    """
    message: dramatiq.Message[None] = dramatiq.Message(
        queue_name=queue_name, actor_name=actor_name, args=args, kwargs={}, options={}
    )
    dramatiq.get_broker().enqueue(message, delay=delay_ms)
