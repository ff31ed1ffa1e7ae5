"""Dramatiq middleware: each worker process says it is alive, and how many threads it has.

A row in ops_workerprocess per process, its `beat_at` renewed every
INGEST_WORKER_BEAT_SECONDS from a thread of its own and deleted at a clean shutdown. A
process that dies (SIGKILL, OOM) leaves its row behind; readers count only fresh beats
(`alive()`) and the next beat of any worker deletes rows long dead. /metrics
(ingest_worker_threads) and the ops dashboard read these rows; what each thread holds is
the jobs' own `worker` and `heartbeat_at`.
"""

import logging
import os
import socket
import threading
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

import dramatiq
from django.conf import settings
from django.db import connection
from django.db.models import QuerySet
from django.utils import timezone
from dramatiq.middleware import Middleware

if TYPE_CHECKING:
    from jobs.ops.models import WorkerProcess

log = logging.getLogger(__name__)

STALE_BEATS = 3  # a process this many beats late is taken for dead
FORGET_AFTER = timedelta(hours=1)  # rows of dead processes are deleted after this


def process_name() -> str:
    """host:pid, the prefix of every job `worker` this process's threads write."""
    return f"{socket.gethostname()}:{os.getpid()}"


def alive() -> "QuerySet[WorkerProcess]":
    # Imported here, as below: Dramatiq builds this middleware before the models load.
    from jobs.ops.models import WorkerProcess

    cutoff = timezone.now() - timedelta(seconds=STALE_BEATS * settings.INGEST_WORKER_BEAT_SECONDS)
    return WorkerProcess.objects.filter(beat_at__gte=cutoff)


class WorkerHeartbeat(Middleware):
    def __init__(self) -> None:
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def after_worker_boot(self, broker: dramatiq.Broker, worker: dramatiq.Worker) -> None:
        queues = sorted(worker.consumer_whitelist or broker.get_declared_queues())
        self._stop.clear()
        self._thread = threading.Thread(
            target=self._beat,
            args=(worker.worker_threads, queues),
            name="worker-heartbeat",
            daemon=True,
        )
        self._thread.start()

    def before_worker_shutdown(self, broker: dramatiq.Broker, worker: dramatiq.Worker) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _beat(self, threads: int, queues: list[str]) -> None:
        from jobs.ops.models import WorkerProcess

        name, started = process_name(), timezone.now()
        try:
            while True:
                try:
                    _write(name, threads, queues, started)
                except Exception:
                    # A database blip: the next beat tries again on a new connection.
                    log.warning("could not write this worker's heartbeat", exc_info=True)
                    connection.close()
                if self._stop.wait(settings.INGEST_WORKER_BEAT_SECONDS):
                    break
            WorkerProcess.objects.filter(name=name).delete()
        except Exception:
            log.warning("could not remove this worker's heartbeat", exc_info=True)
        finally:
            connection.close()  # this thread's own connection


def _write(name: str, threads: int, queues: list[str], started: datetime) -> None:
    from jobs.ops.models import WorkerProcess

    now = timezone.now()
    host, pid = name.rsplit(":", 1)
    WorkerProcess.objects.update_or_create(
        name=name,
        defaults={"threads": threads, "queues": queues, "beat_at": now},
        create_defaults={
            "host": host,
            "pid": int(pid),
            "threads": threads,
            "queues": queues,
            "started_at": started,
            "beat_at": now,
        },
    )
    WorkerProcess.objects.filter(beat_at__lt=now - FORGET_AFTER).delete()
