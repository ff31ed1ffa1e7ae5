"""Dramatiq actors, one per lane. Thin: check the message, claim the job, run it."""

import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import TypedDict

import dramatiq
from django.conf import settings
from django.utils import timezone
from dramatiq.common import current_millis
from dramatiq.middleware import CurrentMessage

from config.common.reconnect import when_database_answers
from jobs import services
from jobs.lanes import ROUTES
from jobs.models import Job, Lane
from jobs.queue import send_job
from jobs.worker import processing
from jobs.worker.reconnect import database_was_away

log = logging.getLogger(__name__)


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{threading.current_thread().name}"


def _message_age_seconds() -> float:
    message = CurrentMessage.get_current_message()
    if message is None:
        return 0.0
    return max(0.0, current_millis() - message.message_timestamp) / 1000


def handle(job_id: str, *, lane: str, resumed: bool) -> None:
    """What every lane's actor does with a job id.

    A claim that meets no database waits for it first, holding the message and so the
    job's place in the queue (a restart takes a second or two). Only if it stays away
    does this raise: the message then comes back after a delay (`database_was_away`)
    instead of being consumed while the job waits for the sweeper's grace period.

    A new job's message first gives way to a resumed job left waiting (`_give_way`).
    """
    if not resumed:
        job_id = when_database_answers(lambda: _give_way(job_id, lane))
    job = when_database_answers(lambda: _claim(uuid.UUID(job_id)))
    if job is not None:
        processing.run(job)


# A resumed job's message is claimed within a second by a free thread; one sent longer
# ago than this sits in the prefetch of a worker whose threads are all busy (a killed
# worker's jobs, prefetched by a neighbour while its own replacement boots).
GIVE_WAY_AFTER_SECONDS = 2.0


def _give_way(job_id: str, lane: str) -> str:
    """The job this thread should run: a resumed job of the lane left waiting, if there
    is one, and then this new job is sent to the lane's resume queue (where the next free
    thread takes it, ahead of every other new job); else this one. The waiting job's own
    message, claimed later, is dropped by the claim."""
    sent_before = timezone.now() - timedelta(seconds=GIVE_WAY_AFTER_SECONDS)
    found = services.take_resumed_waiting(lane=lane, sent_before=sent_before)
    if found is None or str(found) == job_id:
        return job_id
    if not send_job(uuid.UUID(job_id), lane=lane, resumed=True):
        return job_id  # the broker is away: keep this one rather than lose its message
    log.info("job %s gives way to %s, resumed and left waiting", job_id, found)
    return str(found)


def _claim(job_id: uuid.UUID) -> Job | None:
    if _message_age_seconds() > settings.INGEST_MAX_MESSAGE_AGE_SECONDS:
        services.expire_job(job_id=job_id)
        return None
    # None: not ours to run (a duplicate, not due yet, someone else holds it, or done), or
    # its owner has no room in the lane: it then waits, queued, for jobs.fairness.release.
    return services.claim_job(job_id=job_id, worker=worker_name())


class _ActorOptions(TypedDict):
    """Options of Dramatiq's middleware (TimeLimit, Retries) that every job actor gets."""

    time_limit: int
    retry_when: Callable[[int, BaseException], bool]
    min_backoff: int
    max_backoff: int


_OPTIONS: _ActorOptions = {
    # The time limit is a backstop: extraction has its own, shorter one.
    "time_limit": settings.INGEST_JOB_TIME_LIMIT_SECONDS * 1000,
    "retry_when": database_was_away,
    "min_backoff": 1_000,
    "max_backoff": 15_000,
}

# Jobs that already waited their turn once (taken back from a dead worker, retried after
# a transient error, re-sent after the broker lost them) come back on their lane's
# resume queue. Redis queues are first in, first out: without it they would wait behind
# the whole backlog a second time. Workers take the held message with the lowest
# priority number first, so a resumed job starts as soon as a thread is free.
NEW, RESUMED = 10, 0


def _actor(lane: str, *, resumed: bool) -> dramatiq.Actor:
    # Names from jobs/lanes.py, which jobs/queue.py sends to without importing this module.
    name, queue = ROUTES[(lane, resumed)]
    priority = RESUMED if resumed else NEW
    options: _ActorOptions = {**_OPTIONS}
    if lane == Lane.OCR:  # its reading may take longer than a text layer's
        options["time_limit"] = settings.INGEST_OCR_JOB_TIME_LIMIT_SECONDS * 1000
    declare = dramatiq.actor(actor_name=name, queue_name=queue, priority=priority, **options)

    def run(job_id: str) -> None:
        handle(job_id, lane=lane, resumed=resumed)

    run.__name__ = name
    return declare(run)


process_fast_job = _actor("fast", resumed=False)
process_batch_job = _actor("batch", resumed=False)
resume_fast_job = _actor("fast", resumed=True)
resume_batch_job = _actor("batch", resumed=True)
process_ocr_job = _actor("ocr", resumed=False)
resume_ocr_job = _actor("ocr", resumed=True)
