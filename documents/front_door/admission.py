"""Admission control: the front door of every request that makes jobs (an upload, a new
version, a retry from the API or the page). `admit` refuses what the service could not
honour in time, before the request's body is read, in one order: the service's backlog,
then the user's request rate, their jobs in flight and their quota.

The backlog is a snapshot that each process refreshes at most once a second (read by
jobs.backlog), so a burst of uploads does not turn into a burst of COUNT queries. A
user's jobs in flight are counted only when the whole backlog could be over their limit.
"""

import math
import threading
import time
from collections.abc import Callable

from django.conf import settings
from django.utils import timezone

from config.common import humanize
from documents.front_door import quotas, throttle
from documents.front_door.refusal import Refusal
from jobs import backlog as jobs_backlog
from jobs.backlog import Backlog

# With no job finished in the window (workers down or just started) nothing was
# measured; clients are asked to come back after this long.
UNMEASURED_RETRY_AFTER = 120
MAX_RETRY_AFTER = 3600

_lock = threading.Lock()
_snapshot: Backlog | None = None
# Jobs this process admitted since its snapshot was read: without them, every upload in
# the second after the backlog dipped below its limit was let in (the load test saw 200
# in one second, 190 over a limit of 560).
_admitted_since_snapshot = 0
_user_counts: dict[int, tuple[int, float]] = {}
_MAX_CACHED_USERS = 10_000


def admit(*, signed_in: Callable[[], int], quota: bool = False, versions: bool = False) -> None:
    """Let a request that makes jobs in, or raise Refusal, reading nothing of its body:

    1. the service's backlog or queue age past its limit: 503 `backlog_full`;
    2. then `signed_in()` says who asks (the API authenticates there, so a full service
       answers before credentials are checked), and the user sends too fast: 429
       `throttled` (this counts the request);
    3. the user has INGEST_MAX_INFLIGHT_PER_USER jobs in flight: 429 `too_many_in_flight`;
    4. with `quota` (a request that adds documents, or with `versions` new versions of
       its documents), the account has no room left: 429 or 413 (documents.front_door.quotas).

    Each refusal but the quota's says when to come back (Retry-After). A request let in
    should report its jobs with `note_admitted` once they are made.
    """
    if refusal := _service_refusal():
        raise refusal
    user_id = signed_in()
    refusal = _rate_refusal(user_id) or _in_flight_refusal(user_id)
    if refusal is None and quota:
        refusal = quotas.check(user_id=user_id, versions=versions)
    if refusal is not None:
        raise refusal


def throttle_request(*, user_id: int) -> None:
    """Count a request that leads to a job without being an upload (a direct upload's
    completion, which only checks what arrived), raising 429 `throttled` past the user's
    rate as `admit` does."""
    if refusal := _rate_refusal(user_id):
        raise refusal


def note_admitted(*, user_id: int, jobs: int) -> None:
    """Count jobs this process just created until the next refresh, so a burst within
    the second cannot overshoot the limits unseen (the user's, and the backlog's)."""
    global _admitted_since_snapshot
    with _lock:
        _admitted_since_snapshot += jobs
    cached = _user_counts.get(user_id)
    if cached is not None:
        _user_counts[user_id] = (cached[0] + jobs, cached[1])


def backlog(max_age: float = 1.0) -> Backlog:
    """The backlog as of at most `max_age` seconds ago (per process)."""
    global _snapshot, _admitted_since_snapshot
    with _lock:
        if _snapshot is None or time.monotonic() - _snapshot.taken_at > max_age:
            _snapshot = jobs_backlog.read()
            _admitted_since_snapshot = 0
        return _snapshot


def forget_backlog() -> None:
    """Drop the cached snapshot (tests, and after this process admitted a large batch)."""
    global _snapshot, _admitted_since_snapshot
    with _lock:
        _snapshot = None
        _admitted_since_snapshot = 0
        _user_counts.clear()


def _service_refusal() -> Refusal | None:
    """503 when the backlog or the age of the oldest queued job is past its limit."""
    snapshot = backlog()
    max_backlog = settings.INGEST_MAX_BACKLOG
    if snapshot.in_flight + _admitted_since_snapshot >= max_backlog:
        wait = _seconds_to_drain(snapshot, snapshot.in_flight - 0.9 * max_backlog)
        return _busy(snapshot, wait)
    max_age = settings.INGEST_MAX_QUEUE_AGE_SECONDS
    if snapshot.oldest_queued_at is not None:
        age = (timezone.now() - snapshot.oldest_queued_at).total_seconds()
        if age > max_age:
            # Come back when what is queued now could start within the promise.
            ahead = snapshot.queued - 0.9 * max_age * snapshot.drain_rate
            return _busy(snapshot, _seconds_to_drain(snapshot, max(ahead, 1)))
    return None


def _rate_refusal(user_id: int) -> Refusal | None:
    """429 past INGEST_UPLOAD_THROTTLE_RATE (documents.front_door.throttle)."""
    seconds = throttle.count_request(user_id=user_id)
    if seconds is None:
        return None
    wait = max(1, math.ceil(seconds))
    detail = f"You have sent a lot at once; try again in {humanize.duration(wait)}."
    return Refusal(http_status=429, code="throttled", detail=detail, retry_after=wait)


def _in_flight_refusal(user_id: int) -> Refusal | None:
    """429 when this user already has INGEST_MAX_INFLIGHT_PER_USER unfinished jobs."""
    limit = settings.INGEST_MAX_INFLIGHT_PER_USER
    # Nobody has more jobs in flight than the whole service: below the limit there, the
    # user's own count (a query per upload in a burst of many users) is not needed.
    snapshot = backlog()
    if snapshot.in_flight + _admitted_since_snapshot < limit:
        return None
    in_flight = _user_in_flight(user_id)
    if in_flight < limit:
        return None
    wait = _seconds_to_drain(snapshot, in_flight - 0.9 * limit)
    detail = (
        f"You have {in_flight} documents waiting or in processing (the limit is {limit}). "
        f"Try again in {humanize.duration(wait)}."
    )
    return Refusal(http_status=429, code="too_many_in_flight", detail=detail, retry_after=wait)


def _user_in_flight(user_id: int) -> int:
    """The user's unfinished jobs, counted at most once a second per process."""
    cached = _user_counts.get(user_id)
    if cached is not None and time.monotonic() - cached[1] < 1.0:
        return cached[0]
    if len(_user_counts) > _MAX_CACHED_USERS:
        _user_counts.clear()
    count = jobs_backlog.in_flight(owner_id=user_id)
    _user_counts[user_id] = (count, time.monotonic())
    return count


def _busy(snapshot: Backlog, wait: int) -> Refusal:
    detail = (
        f"The service is busy: {snapshot.in_flight} documents are waiting or in processing. "
        f"Try again in {humanize.duration(wait)}."
    )
    return Refusal(http_status=503, code="backlog_full", detail=detail, retry_after=wait)


def _seconds_to_drain(snapshot: Backlog, jobs: float) -> int:
    """How long the measured drain rate takes to finish `jobs`, as a Retry-After."""
    if snapshot.drain_rate <= 0:
        return UNMEASURED_RETRY_AFTER
    seconds = jobs / snapshot.drain_rate
    return int(min(MAX_RETRY_AFTER, max(1, math.ceil(seconds))))
