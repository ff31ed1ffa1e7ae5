"""Dramatiq middleware: each worker process says it is alive, and tells of the dead.

A row in ops_workerprocess per process, its `beat_at` renewed every
INGEST_WORKER_BEAT_SECONDS from a thread of its own and deleted at a clean shutdown. A
process that dies (SIGKILL, OOM) leaves its row behind, and the same thread of every
other worker process marks it dead (`dead_at`) as soon as it can tell:

- at once, when the process shares its process table (a machine, a pid namespace) and its
  pid is gone, a zombie or another process's: checked every CHECK_SECONDS, and first
  thing by the replacement a supervisor starts;
- when its beat is STALE_BEATS intervals late, from another process table (a neighbour
  whose pid runs is only starved or stuck); judged only by a process that has reached the
  database itself all that time, so a database outage, which silences every beat, never
  passes for everyone's death.

It then takes back the jobs the dead held (jobs.sweeper), so they are claimed again in
seconds instead of after their lease, and nobody's share of a lane is held by the dead
(the Job queryset's `stale()` in jobs/models.py says what counts as dead). Readers count
only live rows (`alive()`) and the next beat of any worker deletes rows long dead. /metrics
(ingest_worker_threads) and the ops dashboard read these rows; what each thread holds is
the jobs' own `worker` and `heartbeat_at`.
"""

import functools
import logging
import os
import socket
import threading
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import dramatiq
from django.conf import settings
from django.db import connection
from django.db.models import Q, QuerySet
from django.utils import timezone
from dramatiq.middleware import Middleware

if TYPE_CHECKING:
    from jobs.models import WorkerProcess

log = logging.getLogger(__name__)

STALE_BEATS = 3  # a process this many beats late is taken for dead
FORGET_AFTER = timedelta(hours=1)  # rows of dead processes are deleted after this
CHECK_SECONDS = 2.0  # how often a worker looks for dead neighbours (one small query)


def process_name() -> str:
    """host:pid, the prefix of every job `worker` this process's threads write."""
    return f"{socket.gethostname()}:{os.getpid()}"


@functools.cache
def pid_space() -> str:
    """This process's process table: the kernel's boot and the pid namespace, so that a
    pid means the same process to whoever shares it; "" where that cannot be read."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
        return f"{boot}/{os.readlink('/proc/self/ns/pid')}"
    except OSError:
        return ""


def silence_seconds() -> float:
    """A beat this late means the process is dead."""
    return STALE_BEATS * settings.INGEST_WORKER_BEAT_SECONDS


def alive() -> "QuerySet[WorkerProcess]":
    # Imported here, as below: Dramatiq builds this middleware before the models load.
    from jobs.models import WorkerProcess

    cutoff = timezone.now() - timedelta(seconds=silence_seconds())
    return WorkerProcess.objects.filter(beat_at__gte=cutoff, dead_at__isnull=True)


class WorkerHeartbeat(Middleware):
    """One beating thread per worker booted, each with its own stop. One process boots one
    worker; a test process boots many in turn, and a thread still finishing the last
    worker's write must not be woken again by the next worker's boot."""

    def __init__(self) -> None:
        self._beats: dict[int, tuple[threading.Event, threading.Thread]] = {}

    def after_worker_boot(self, broker: dramatiq.Broker, worker: dramatiq.Worker) -> None:
        queues = sorted(worker.consumer_whitelist or broker.get_declared_queues())
        stop = threading.Event()
        thread = threading.Thread(
            target=self._beat,
            args=(stop, worker.worker_threads, queues),
            name="worker-heartbeat",
            daemon=True,
        )
        self._beats[id(worker)] = (stop, thread)
        thread.start()

    def before_worker_shutdown(self, broker: dramatiq.Broker, worker: dramatiq.Worker) -> None:
        stop, thread = self._beats.pop(id(worker), (None, None))
        if stop is not None and thread is not None:
            stop.set()
            thread.join(timeout=5)

    def _beat(self, stop: threading.Event, threads: int, queues: list[str]) -> None:
        from jobs.models import WorkerProcess

        name, started = process_name(), timezone.now()
        beat_every = settings.INGEST_WORKER_BEAT_SECONDS
        next_beat = 0.0
        reached_since: float | None = None  # reaching the database without a miss since
        try:
            while True:
                now = time.monotonic()
                try:
                    if now >= next_beat:
                        _write(name, threads, queues, started)
                        next_beat = now + beat_every
                    reached_since = now if reached_since is None else reached_since
                    _release_the_dead(name, judge_silence=now - reached_since >= silence_seconds())
                except Exception:
                    # A database blip: the next round tries again on a new connection.
                    log.warning("could not write this worker's heartbeat", exc_info=True)
                    reached_since = None
                    connection.close()
                if stop.wait(min(CHECK_SECONDS, beat_every)):
                    break
            WorkerProcess.objects.filter(name=name).delete()
        except Exception:
            log.warning("could not remove this worker's heartbeat", exc_info=True)
        finally:
            connection.close()  # this thread's own connection


def _write(name: str, threads: int, queues: list[str], started: datetime) -> None:
    from jobs.models import WorkerProcess

    now = timezone.now()
    host, pid = name.rsplit(":", 1)
    # A process taken for dead by its silence (a machine cut off the network, then back)
    # beats again: it is alive, and its new claims must not look stale. What it held was
    # taken back meanwhile, and its attempts' writes are refused (Job.lease).
    if WorkerProcess.objects.filter(name=name, dead_at__isnull=False).exists():
        log.warning("this worker process was taken for dead after a silence; alive again")
    WorkerProcess.objects.update_or_create(
        name=name,
        defaults={"threads": threads, "queues": queues, "beat_at": now, "dead_at": None},
        create_defaults={
            "host": host,
            "pid": int(pid),
            "threads": threads,
            "queues": queues,
            "started_at": started,
            "beat_at": now,
            "pid_space": pid_space(),
        },
    )
    WorkerProcess.objects.filter(beat_at__lt=now - FORGET_AFTER).delete()


def _release_the_dead(judge: str, *, judge_silence: bool) -> None:
    """Take back what the processes found dead held: their jobs, and the messages they
    had prefetched: as many as each could hold besides its jobs (Dramatiq prefetches a
    message per thread for each queue, and a message being worked on counts)."""
    # Imported here: the sweeper needs the models (see `alive`).
    from jobs.lanes import ROUTES, lane_queues
    from jobs.models import Job, JobStatus, WorkerProcess
    from jobs.sweeper import resend_first_sent, take_back_dead

    marked = mark_dead(judge=judge, judge_silence=judge_silence)
    if not marked:
        return
    rows = list(
        WorkerProcess.objects.dead()
        .filter(name__in=marked)
        .values_list("name", "threads", "queues")
    )
    processing = Job.objects.filter(status=JobStatus.PROCESSING)
    working = {name: processing.filter(worker__startswith=f"{name}:").count() for name, *_ in rows}
    taken = take_back_dead()
    log.info("took back %d jobs of dead workers", len(taken))
    for name, threads, queues in rows:
        for lane in {lane for lane, _ in ROUTES}:
            held = [queue for queue in lane_queues(lane) if queue in queues]
            prefetched = threads * len(held) - working[name]
            if held and prefetched > 0:
                sent = resend_first_sent(lane=lane, count=prefetched)
                log.info("sent %d %s jobs again that %s may have held", len(sent), lane, name)


def mark_dead(*, judge: str, judge_silence: bool) -> list[str]:
    """Mark dead the processes `judge` (this process) can tell are: those of its process
    table whose pid is gone, and, with `judge_silence`, those of other process tables
    whose beat is late past `silence_seconds()` (pass it only when the judge itself
    reached the database all that time). Returns the names newly marked."""
    from jobs.models import WorkerProcess

    undecided = WorkerProcess.objects.filter(dead_at__isnull=True).exclude(name=judge)
    gone = []
    if pid_space():
        neighbours = undecided.filter(pid_space=pid_space()).values_list(
            "name", "pid", "started_at"
        )
        gone = [name for name, pid, started in neighbours if _pid_gone(pid, started)]
    condition = Q(name__in=gone)
    if judge_silence:
        # Not a neighbour whose pid runs: that one is alive, only starved of CPU or stuck.
        late = Q(beat_at__lt=timezone.now() - timedelta(seconds=silence_seconds()))
        condition |= late & ~Q(pid_space=pid_space() or None)
    marked = list(undecided.filter(condition).values_list("name", flat=True))
    if marked:
        # Conditional on still being undecided: two judges mark a process once.
        undecided.filter(name__in=marked).update(dead_at=timezone.now())
        log.warning("worker processes found dead: %s", ", ".join(marked))
    return marked


def _pid_gone(pid: int, since: datetime) -> bool:
    """Whether no process `pid` runs that could have written a row at `since`: there is
    none, it is a zombie, or it started after (the pid was reused)."""
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the pid exists
    except ProcessLookupError:
        return True
    except PermissionError:
        pass  # another user's process: it exists
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False  # exists, but /proc hides it: that says nothing more
    fields = stat[stat.rindex(")") + 2 :].split()
    if fields[0] in ("Z", "X"):
        return True
    started = _boot_time() + int(fields[19]) / os.sysconf("SC_CLK_TCK")
    return started > since.timestamp() + 1.0  # /proc's boot time has whole seconds


@functools.cache
def _boot_time() -> float:
    for line in Path("/proc/stat").read_text().splitlines():
        if line.startswith("btime "):
            return float(line.split()[1])
    return 0.0
