"""Dramatiq actors, one per lane. Thin: check the message, claim the job, run it."""

import os
import socket
import threading
import uuid

import dramatiq
from django.conf import settings
from dramatiq.common import current_millis
from dramatiq.middleware import CurrentMessage

from jobs import processing, services
from jobs.models import Lane


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{threading.current_thread().name}"


def _message_age_seconds() -> float:
    message = CurrentMessage.get_current_message()
    if message is None:
        return 0.0
    return max(0.0, current_millis() - message.message_timestamp) / 1000


def handle(job_id: str) -> None:
    """What every lane's actor does with a job id."""
    if _message_age_seconds() > settings.INGEST_MAX_MESSAGE_AGE_SECONDS:
        services.expire_job(job_id=uuid.UUID(job_id))
        return
    job = services.claim_job(job_id=uuid.UUID(job_id), worker=worker_name())
    if job is None:
        return  # not ours to run: a duplicate, not due yet, someone else holds it, or done
    processing.run(job)


# The time limit is a backstop: extraction has its own, shorter one.
_OPTIONS = {"time_limit": settings.INGEST_JOB_TIME_LIMIT_SECONDS * 1000}

process_fast_job = dramatiq.actor(
    handle, actor_name="process_fast_job", queue_name=Lane.FAST.value, **_OPTIONS
)
process_batch_job = dramatiq.actor(
    handle, actor_name="process_batch_job", queue_name=Lane.BATCH.value, **_OPTIONS
)


def actor_for(lane: Lane) -> dramatiq.Actor:
    return process_fast_job if lane == Lane.FAST else process_batch_job
