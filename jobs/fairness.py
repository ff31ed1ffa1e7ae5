"""Fair shares of a lane's workers between accounts.

A job is claimed only while its owner has fewer than `limit(lane)` jobs processing in
that lane (INGEST_MAX_RUNNING_PER_USER, by default half the lane's worker threads), so
one account's hundred big files leave the other threads to everyone else.

Two threads claiming two of one owner's jobs at once must not both see room. Every claim
takes a transaction-scoped advisory lock on (owner, lane) in a statement of its own,
before the statement that counts: under READ COMMITTED each statement reads a fresh
snapshot, so the second claimer counts after the first committed and sees its
`processing` row. A job that ends needs no lock to leave; it only makes room.

A job skipped for this stays `queued` with its `queued_at` (the sweeper covers it as any
queued job) and its message is dropped: nothing polls. Its id waits in a sorted set in the
broker's Redis, oldest first. When one of the owner's jobs in that lane ends, `release`
(after the ending commits) takes the same lock, counts again, and sends as many waiting
ids as there is room for to the lane's resume queue, which workers serve before new
messages, so the job does not wait behind the whole backlog a second time. The lock makes
the pair safe: a claim that still counted the ended job as running held the lock from
before that count until it had added its id, so `release` finds the id. Lost ids (Redis
restarted, a worker died between pop and send) are what the sweeper already covers: a
queued job sent before the broker started is sent again at once, any other after
INGEST_REQUEUE_GRACE_SECONDS.
"""

import logging
import uuid
from datetime import datetime
from typing import Any, NamedTuple

import dramatiq
from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, QuerySet

from config.common import locks
from jobs.models import Job
from jobs.queue import send_job

log = logging.getLogger(__name__)


def limit(lane: str) -> int:
    """Jobs one owner may have processing in `lane` at once."""
    if settings.INGEST_MAX_RUNNING_PER_USER:
        return int(settings.INGEST_MAX_RUNNING_PER_USER)
    return max(1, lane_threads(lane) // 2)


def lane_threads(lane: str) -> int:
    """The lane's worker threads as configured: processes x threads (the Procfile's)."""
    prefix = f"WORKER_{str(lane).upper()}"
    return int(getattr(settings, f"{prefix}_PROCESSES")) * int(
        getattr(settings, f"{prefix}_THREADS")
    )


class Claimant(NamedTuple):
    owner_id: int
    lane: str
    queued_at: datetime


def lock_for_claim(job_id: uuid.UUID) -> Claimant | None:
    """Take the job's (owner, lane) lock for the rest of the transaction. None when there
    is no such job."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT owner_id, lane, queued_at, pg_advisory_xact_lock(hashtextextended("
            "'ingest.fair:' || owner_id || ':' || lane, 0)) FROM jobs_job WHERE id = %s",
            [job_id],
        )
        row = cursor.fetchone()
    return None if row is None else Claimant(row[0], row[1], row[2])


def _lock(owner_id: int, lane: str) -> None:
    locks.hold(f"ingest.fair:{owner_id}:{lane}")  # the name lock_for_claim's SQL makes


def running(owner_id: int, lane: str, *, besides: uuid.UUID | None = None) -> int:
    """The owner's live attempts in the lane (Job.objects.running(): a stale one is dead
    or about to be taken over, and holds no share)."""
    jobs = Job.objects.running().filter(owner_id=owner_id, lane=lane)
    if besides is not None:
        jobs = jobs.exclude(id=besides)
    return jobs.count()


def owners_at_limit(lane: str) -> QuerySet[Any, Any]:
    """The owners whose jobs fill their share of `lane` now: their queued jobs wait for
    room, without a message."""
    return (
        Job.objects.running()
        .filter(lane=lane)
        .values("owner_id")
        .annotate(running=Count("id"))
        .filter(running__gte=limit(lane))
        .values("owner_id")
    )


def has_room(claimant: Claimant, *, job_id: uuid.UUID) -> bool:
    """Whether the owner may start `job_id` now. Call holding `lock_for_claim`'s lock."""
    return running(claimant.owner_id, claimant.lane, besides=job_id) < limit(claimant.lane)


def _key(owner_id: int, lane: str) -> str:
    return f"ingest:fair:{lane}:{owner_id}"


def _redis() -> Any:
    """The broker's Redis client (None on a broker without one, e.g. a stub)."""
    return getattr(dramatiq.get_broker(), "client", None)


def wait_for_room(claimant: Claimant, *, job_id: uuid.UUID) -> None:
    """Keep the skipped job's place until `release` sends it. Call holding the lock."""
    key, score = _key(claimant.owner_id, claimant.lane), claimant.queued_at.timestamp()
    try:
        _redis().zadd(key, {str(job_id): score})
    except Exception:
        # The job stays queued; the sweeper sends it again (see the module's docstring).
        log.warning("job %s: could not record it as waiting for room", job_id, exc_info=True)


def release_on_commit(job: Job) -> None:
    """One of the owner's jobs leaves `processing`: once that commits, send the owner's
    waiting jobs in that lane that now have room."""
    owner_id, lane = job.owner_id, str(job.lane)
    transaction.on_commit(lambda: release(owner_id, lane))


def release(owner_id: int, lane: str) -> list[uuid.UUID]:
    """Send the owner's oldest waiting jobs in the lane, as many as there is room for.
    Never raises: what it could not send, the sweeper sends later. Returns the ids sent."""
    try:
        with transaction.atomic():
            _lock(owner_id, lane)
            room = limit(lane) - running(owner_id, lane)
            waiting = _pop_waiting(owner_id, lane, room) if room > 0 else []
    except Exception:
        log.warning("could not release waiting jobs of owner %s", owner_id, exc_info=True)
        return []
    for job_id in waiting:
        send_job(job_id, lane=lane, resumed=True)
    return waiting


def _pop_waiting(owner_id: int, lane: str, room: int) -> list[uuid.UUID]:
    """Up to `room` waiting ids, oldest first, that are still the owner's jobs to run
    (one cancelled or deleted meanwhile is dropped and the next taken)."""
    client = _redis()
    if client is None:
        return []
    chosen: list[uuid.UUID] = []
    while len(chosen) < room:
        popped = client.zpopmin(_key(owner_id, lane), room - len(chosen))
        if not popped:
            break
        ids = [uuid.UUID(member.decode()) for member, _ in popped]
        live = set(
            Job.objects.in_flight()
            .filter(id__in=ids, owner_id=owner_id)
            .values_list("id", flat=True)
        )
        chosen += [job_id for job_id in ids if job_id in live]
    return chosen
