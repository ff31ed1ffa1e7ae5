"""Tell the owners whose queued jobs changed place: at most a notice per lane a second.

A queued row's place ("3 ahead") and its start ("starts in 40 s") change whenever any job
of its lane starts, ends or joins the queue, whosever it is. A push per change to every
owner with a job queued there would be a storm: 500 queued uploads make a thousand
changes (each starts, then ends), each heard by every waiting owner. So a change only
marks its lane as moved, and each owner with jobs queued in that lane hears `queue.moved`
about once per NOTICE_SECONDS at most, however many changes and processes there are: the
first change of a quiet lane is told at once (so a document uploaded elsewhere shows up
on the owner's pages while it is queued), and the changes that follow within the
interval are told together when it ends. The notice names no job and carries no place:
the page reads its rows again, as its polling does, so the database stays the truth.

Across processes the interval is a key in Redis. Whoever sets it (SET NX PX) tells the
owners now. A change that finds it set marks the lane dirty instead, and the first to mark
it looks again just after the interval ends: if the lane is still dirty, it tells once more
and starts another interval. Every change is committed before it marks anything, so the
notice that covers it reads the database after it. A lone change costs one SET and one
notice, and no timer.

Best effort, like every push (jobs.notify): with Redis away nothing is told, and the pages
catch up at their next push, poll or reconnect. The work runs on one thread of the
process, after commit, never in the request or the job that made the change.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypedDict

import redis
from asgiref.sync import async_to_sync
from django.conf import settings
from django.db import connections, transaction

from config.common import redis_clients
from jobs.models import Job, JobStatus
from jobs.notify import user_group

log = logging.getLogger(__name__)

NOTICE_SECONDS = 1.0
# The look that closes an interval waits this long past the key's end, so no change can
# find the key still set after the look has been.
_LATE_SECONDS = 0.05


class QueueMoved(TypedDict):
    """The websocket payload: which lane moved; the page reads its own rows again."""

    type: str  # the consumer's handler: "queue.moved"
    lane: str


_lock = threading.Lock()
_waiting: set[tuple[str, bool]] = set()  # (lane, closing) handed to the thread, not yet run
_thread: ThreadPoolExecutor | None = None


def moved_on_commit(lane: str) -> None:
    """The lane's queue moved in the current transaction: tell its owners after commit
    (at once outside a transaction)."""
    transaction.on_commit(lambda: _soon(lane, closing=False))


def _soon(lane: str, *, closing: bool) -> None:
    """Hand the lane to the thread, once however many changes come before it runs."""
    global _thread
    with _lock:
        if (lane, closing) in _waiting:
            return
        _waiting.add((lane, closing))
        if _thread is None:
            _thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="queue-moved")
        thread = _thread
    thread.submit(_guarded, _close if closing else _open, lane, closing)


def _guarded(step: Callable[[str], None], lane: str, closing: bool) -> None:
    with _lock:
        _waiting.discard((lane, closing))
    try:
        step(lane)
    except Exception:  # a notice never fails anything; the pages poll or reconnect
        log.info("could not tell the %s lane's owners that it moved", lane, exc_info=True)
    finally:
        connections.close_all()  # this thread's own: it holds none while idle


def _open(lane: str) -> None:
    """A change: tell now if the lane was quiet, else leave it to the interval's end."""
    client = _redis()
    if client.set(_interval_key(lane), 1, nx=True, px=_ms(NOTICE_SECONDS)):
        _tell(lane)
    elif client.set(_dirty_key(lane), 1, nx=True, px=_ms(3 * NOTICE_SECONDS)):
        left_ms = client.pttl(_interval_key(lane))  # negative: it has just ended
        timer = threading.Timer(
            max(0, left_ms) / 1000 + _LATE_SECONDS, lambda: _soon(lane, closing=True)
        )
        timer.daemon = True
        timer.start()


def _close(lane: str) -> None:
    """The interval ended: if the lane moved meanwhile, tell once more and start another
    (the next change in it marks the lane dirty and looks again at its end)."""
    client = _redis()
    if client.delete(_dirty_key(lane)):
        client.set(_interval_key(lane), 1, px=_ms(NOTICE_SECONDS))
        _tell(lane)


def _tell(lane: str) -> None:
    """`queue.moved` to each owner with a job queued in the lane."""
    from channels.layers import get_channel_layer

    owners = list(
        Job.objects.filter(status=JobStatus.QUEUED, lane=lane)
        .order_by()
        .values_list("owner_id", flat=True)
        .distinct()
    )
    layer = get_channel_layer()
    if layer is None or not owners:
        return
    notice = QueueMoved(type="queue.moved", lane=lane)

    async def send_all() -> None:
        # types-channels asks for dict[str, Any], which mypy never takes a TypedDict for.
        await asyncio.gather(
            *(layer.group_send(user_group(owner), notice) for owner in owners)  # type: ignore[arg-type]
        )

    async_to_sync(send_all)()


def _redis() -> redis.Redis:
    return redis_clients.client(settings.REDIS_URL, connect_timeout=1, timeout=1)


def _interval_key(lane: str) -> str:
    return f"ingest:queue-moved:{lane}"


def _dirty_key(lane: str) -> str:
    return f"ingest:queue-moved:{lane}:dirty"


def _ms(seconds: float) -> int:
    return round(seconds * 1000)
