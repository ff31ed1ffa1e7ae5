"""Dramatiq actors. Thin: load by id, call a service."""

import os
import socket
import threading
import uuid

import dramatiq
from django.conf import settings

from jobs import processing, services

QUEUE = "default"


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{threading.current_thread().name}"


@dramatiq.actor(
    queue_name=QUEUE,
    max_retries=settings.INGEST_MAX_ATTEMPTS,
    time_limit=settings.INGEST_JOB_TIME_LIMIT_SECONDS * 1000,
)
def process_job(job_id: str) -> None:
    job = services.claim_job(job_id=uuid.UUID(job_id), worker=worker_name())
    if job is None:
        return  # not queued any more: a duplicate delivery, or someone else owns it
    processing.run(job)
