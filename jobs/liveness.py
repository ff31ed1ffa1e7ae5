"""Whether a processing job's worker is gone: one notion for the claim, the fair shares,
the sweeper and the metrics.

An attempt is stale when its worker's process is known dead, or when the worker stopped
renewing the lease. The first is known within seconds: the other worker processes mark a
process dead when its pid is gone from the process table they share (it was killed; its
replacement is starting) or when its heartbeat stopped (jobs.ops.heartbeat). The lease
(INGEST_LEASE_SECONDS) is the backstop for what no process can see: a hung worker, a
machine whose every worker died at once.
"""

from datetime import timedelta

from django.conf import settings
from django.db.models import Exists, F, OuterRef, Q, Value
from django.db.models.functions import Concat, Left, Length
from django.utils import timezone

from jobs.models import JobStatus
from jobs.ops import heartbeat


def worker_dead() -> Q:
    """A processing job whose worker's process is known dead (Job.worker is
    "<process name>:<thread>")."""
    of_dead_process = (
        heartbeat.dead()
        .annotate(prefix=Concat("name", Value(":")))
        .filter(prefix=Left(OuterRef("worker"), Length(F("name")) + 1))
    )
    return Q(status=JobStatus.PROCESSING) & Q(Exists(of_dead_process))


def lease_expired() -> Q:
    """A processing job whose worker stopped renewing its lease."""
    cutoff = timezone.now() - timedelta(seconds=settings.INGEST_LEASE_SECONDS)
    return Q(status=JobStatus.PROCESSING, heartbeat_at__lt=cutoff)


def stale_filter() -> Q:
    """A processing job no live attempt holds: its worker died or hung. Claimable, taken
    back by the sweeper, and not counted against its owner's share of the lane."""
    return worker_dead() | lease_expired()
