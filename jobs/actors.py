"""Dramatiq actors, one per lane. Thin: check the message, claim the job, run it."""

import os
import socket
import threading
import uuid
from collections.abc import Callable
from typing import TypedDict

import dramatiq
from django.conf import settings
from dramatiq.common import current_millis
from dramatiq.middleware import CurrentMessage

from jobs import processing, services
from jobs.lanes import ROUTES
from jobs.models import Job
from jobs.reconnect import database_was_away, when_database_answers


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{threading.current_thread().name}"


def _message_age_seconds() -> float:
    message = CurrentMessage.get_current_message()
    if message is None:
        return 0.0
    return max(0.0, current_millis() - message.message_timestamp) / 1000


def handle(job_id: str) -> None:
    """What every lane's actor does with a job id.

    A claim that meets no database waits for it first, holding the message and so the
    job's place in the queue (a restart takes a second or two). Only if it stays away
    does this raise: the message then comes back after a delay (`database_was_away`)
    instead of being consumed while the job waits for the sweeper's grace period.
    """
    job = when_database_answers(lambda: _claim(uuid.UUID(job_id)))
    if job is not None:
        processing.run(job)


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
    declare = dramatiq.actor(actor_name=name, queue_name=queue, priority=priority, **_OPTIONS)
    return declare(handle)


process_fast_job = _actor("fast", resumed=False)
process_batch_job = _actor("batch", resumed=False)
resume_fast_job = _actor("fast", resumed=True)
resume_batch_job = _actor("batch", resumed=True)
