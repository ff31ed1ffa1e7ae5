"""The one way a job id reaches the broker: after commit (and, while a request is being
handled, after its answer), never failing the caller."""

import logging
import uuid
from dataclasses import dataclass

import dramatiq
from django.db import connection, transaction
from django.utils import timezone

from jobs import after_answer
from jobs.lanes import route
from jobs.models import Job, JobStatus

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Send:
    job_id: uuid.UUID
    lane: str
    delay_seconds: float
    resumed: bool


def send_job_on_commit(job: Job, *, delay_seconds: float = 0, resumed: bool = False) -> None:
    """Send the job's id once the surrounding transaction commits; during a request, once
    its answer has been sent too (jobs.after_answer), so the client never waits for the
    broker.

    Call inside the transaction that created or re-queued the job, with its row's
    `enqueued_at` empty: it is set once the broker took the id. Whatever keeps the id
    from the broker (the broker down, the process gone before the answer's end) leaves
    the job `queued` without `enqueued_at`, and the sweeper sends it.
    `resumed`: the job already waited its turn once (see `send_job`).
    """
    send = _Send(job.id, job.lane, delay_seconds, resumed)
    transaction.on_commit(lambda: _after_answer_or_now(send))


def _after_answer_or_now(send: _Send) -> None:
    if not after_answer.hold(_send_all, send):
        _send_all([send])


def send_job(
    job_id: uuid.UUID, *, lane: str, delay_seconds: float = 0, resumed: bool = False
) -> bool:
    """Send now (to the lane's queue, after `delay_seconds`) and record `enqueued_at`.
    Returns False when the broker failed, leaving `enqueued_at` empty for the sweeper.

    `resumed`: the job already waited its turn once (a retry, a job taken back from a
    dead worker): it goes to the lane's resume queue, which workers serve first, not to
    the back of the backlog.
    """
    return bool(_send_all([_Send(job_id, lane, delay_seconds, resumed)]))


def _send_all(sends: list[_Send]) -> list[uuid.UUID]:
    """Send each, then stamp those the broker took in one UPDATE; the ids sent."""
    sent = []
    for send in sends:
        try:
            _send(
                str(send.job_id),
                lane=send.lane,
                resumed=send.resumed,
                delay_ms=int(send.delay_seconds * 1000) or None,
            )
        except Exception:
            log.warning(
                "could not send job %s to the broker; the sweeper will retry",
                send.job_id,
                exc_info=True,
            )
        else:
            sent.append(send.job_id)
    if sent:
        _stamp_sent(sent)
    return sent


_STAMP_SQL = f"UPDATE {Job._meta.db_table} SET enqueued_at = %s WHERE id = ANY(%s) AND status = %s"


def _stamp_sent(job_ids: list[uuid.UUID]) -> None:
    # A job a worker has claimed already (zero rows for it) needs no stamp: its message
    # has arrived. One plain statement: this runs once per upload, and the ORM's
    # update() (a transaction, a compiled query) costs more than the UPDATE itself.
    with connection.cursor() as cursor:
        cursor.execute(_STAMP_SQL, [timezone.now(), job_ids, JobStatus.QUEUED.value])


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
    jobs/webhooks/dispatch.py). Raises what the broker raises.
    """
    message: dramatiq.Message[None] = dramatiq.Message(
        queue_name=queue_name, actor_name=actor_name, args=args, kwargs={}, options={}
    )
    dramatiq.get_broker().enqueue(message, delay=delay_ms)
