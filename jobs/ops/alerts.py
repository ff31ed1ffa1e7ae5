"""Alerts to on-call: a Slack-compatible webhook hears of operational dead letters and of
a queue that waits too long. Nothing here may slow or fail a job: the callers run after
commit, these functions never raise, and the HTTP call happens in a Dramatiq actor
(jobs/ops/actors.py) that this module sends to by name.

Throttle, per kind (`dead_letter`, `queue_age`), shared by every process through Redis:
the first event opens a window of INGEST_ALERT_MIN_INTERVAL_SECONDS and is sent at once;
later events in the window are only counted. The next message of that kind says how many
were folded into it: the next event after the window, or, when none comes, the sweeper's
next `check_queue_age` once the window has passed (a summary), so no count is lost.
"""

from __future__ import annotations

import functools
import logging
import uuid
from collections.abc import Callable
from typing import ParamSpec

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from redis.commands.core import Script

from config.common import humanize, redis_clients
from jobs.models import Job, JobStatus
from jobs.ops.scaling import LaneNow, lanes_now
from jobs.queue import enqueue_by_name

log = logging.getLogger(__name__)

# jobs/ops/actors.py declares the sender under these names; this module sends by name, so
# a web or sweeper process that raises an alert never imports the actor.
ACTOR_NAME = "send_alert"
QUEUE_NAME = "alerts"

DEAD_LETTER = "dead_letter"
QUEUE_AGE = "queue_age"

# Failures someone on call should look at. The others (encrypted, corrupt, no_text,
# not_a_pdf, too_many_pages...) are the user's file, shown to the user already.
OPERATIONAL_CODES = frozenset({"retries_exhausted", "crashed", "timeout", "expired"})

DETAIL_CHARS = 200

P = ParamSpec("P")


def _never_raises(function: Callable[P, None]) -> Callable[P, None]:
    """Log what went wrong and carry on: an alert is never worth a caller's failure."""

    @functools.wraps(function)
    def guarded(*args: P.args, **kwargs: P.kwargs) -> None:
        try:
            function(*args, **kwargs)
        except Exception:
            log.exception("alerts: %s failed; carrying on without it", function.__name__)

    return guarded


# --------------------------------------------------------------------------- the events


@_never_raises
def on_job_failed(sender: object, *, job: Job, **kwargs: object) -> None:
    """jobs.events' failed_after_commit: a job failed, committed."""
    job_failed(job)


def job_failed(job: Job) -> None:
    """Alert on-call if `job` was dead-lettered for an operational reason (throttled).

    Call after commit for every job that ends failed, whatever its code. Cheap: nothing
    at all without INGEST_ALERT_WEBHOOK_URL, else one read of the job's committed row and
    one Redis call; the message is only queued.
    """
    if not settings.INGEST_ALERT_WEBHOOK_URL:
        return
    job_id = job.id
    transaction.on_commit(lambda: _dead_letter(job_id))


@_never_raises
def _dead_letter(job_id: uuid.UUID) -> None:
    # Re-read: callers hold the job as it was before the UPDATE that failed it.
    job = (
        Job.objects.select_related("document", "owner")
        .filter(id=job_id, status=JobStatus.FAILED)
        .first()
    )
    if job is None or job.error_code not in OPERATIONAL_CODES:
        return
    folded = _throttle(DEAD_LETTER, event=True)
    if folded is not None:
        _send(dead_letter_text(job, folded))


def check_queue_age() -> None:
    """Call every sweep. Alerts (throttled) when a lane's oldest due queued job has waited
    longer than INGEST_ALERT_QUEUE_AGE_SECONDS (the age /metrics and /ops/ show, from
    jobs.ops.scaling), and sends the summary of what either kind folded once its window
    has passed. Never raises."""
    if not settings.INGEST_ALERT_WEBHOOK_URL:
        return
    _check_lanes()
    _flush_dead_letters()


@_never_raises
def _check_lanes() -> None:
    threshold = settings.INGEST_ALERT_QUEUE_AGE_SECONDS
    late = {lane: now for lane, now in lanes_now().items() if now.oldest_age_seconds > threshold}
    if late:
        folded = _throttle(QUEUE_AGE, event=True)
        if folded is not None:
            _send(queue_age_text(late, folded))
        return
    folded = _throttle(QUEUE_AGE, event=False)
    if folded:
        _send(queue_age_recovered_text(folded))


@_never_raises
def _flush_dead_letters() -> None:
    folded = _throttle(DEAD_LETTER, event=False)
    if folded:
        _send(dead_letters_summary_text(folded))


# --------------------------------------------------------------------------- the texts


def _link(path: str) -> str:
    return f"{settings.INGEST_PUBLIC_URL}{path}"


def _plain(text: str) -> str:
    """Text from users (file names, details) as Slack shows it literally: its only control
    characters are &, < and > (a file named "<!channel>.pdf" must not page everyone)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _folded(count: int, what: str) -> str:
    return f"\n…and {count} more {what} since the last alert." if count else ""


def dead_letter_text(job: Job, folded: int = 0) -> str:
    detail = job.error_detail.splitlines()[0] if job.error_detail else "(no detail)"
    if len(detail) > DETAIL_CHARS:
        detail = detail[: DETAIL_CHARS - 1] + "…"
    admin = _link(reverse("admin:jobs_deadletter_change", args=[job.id]))
    return (
        f"Dead letter: job {job.id} failed with {job.error_code}.\n"
        f"Document: {_plain(job.document.filename)} ({job.document_id}), "
        f"owner {_plain(job.owner.username)}.\n"
        f"Detail: {_plain(detail)}\n"
        f"Admin: {admin}" + _folded(folded, "dead letters" if folded > 1 else "dead letter")
    )


def dead_letters_summary_text(folded: int) -> str:
    noun = "dead letters" if folded > 1 else "dead letter"
    console = _link(reverse("admin:jobs_deadletter_changelist"))
    return (
        f"Dead letters: {folded} more {noun} (failed for an operational reason) since the "
        f"last alert.\nAdmin: {console}"
    )


def queue_age_text(late: dict[str, LaneNow], folded: int = 0) -> str:
    threshold = humanize.duration(settings.INGEST_ALERT_QUEUE_AGE_SECONDS)
    lines = [
        f"Queue age: the {lane} lane's oldest queued job has waited "
        f"{humanize.duration(now.oldest_age_seconds)} (alert threshold {threshold}); "
        f"{now.queued} {'job' if now.queued == 1 else 'jobs'} queued."
        for lane, now in sorted(late.items())
    ]
    what = "sweeps found a lane past it" if folded > 1 else "sweep found a lane past it"
    return "\n".join(lines) + _folded(folded, what)


def queue_age_recovered_text(folded: int) -> str:
    threshold = humanize.duration(settings.INGEST_ALERT_QUEUE_AGE_SECONDS)
    sweeps = "sweeps" if folded > 1 else "sweep"
    return (
        f"Queue age: every lane is back under {threshold}. {folded} more {sweeps} found a "
        "lane past it since the last alert."
    )


# --------------------------------------------------------------------------- throttle

# KEYS: the kind's window and folded count. ARGV[1]: the window in ms; ARGV[2]: "1" for
# an event (sent if no window is open, else counted), "0" for a flush (sent only if no
# window is open and something was folded). Returns the folded count to report with a
# message sent now, or -1: send nothing.
_THROTTLE = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  if ARGV[2] == '1' then redis.call('INCR', KEYS[2]) end
  return -1
end
local folded = tonumber(redis.call('GET', KEYS[2]) or '0')
if ARGV[2] == '0' and folded == 0 then return -1 end
redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
redis.call('DEL', KEYS[2])
return folded
"""


def _keys(kind: str) -> list[str]:
    # One hash tag per kind, so both keys live on one node of a Redis Cluster too.
    return [f"ingest:alerts:{{{kind}}}:window", f"ingest:alerts:{{{kind}}}:folded"]


@functools.lru_cache(maxsize=4)
def _script(url: str) -> Script:
    # Short timeouts: a Redis that hangs costs the caller a second, not a job.
    return redis_clients.client(url, connect_timeout=1, timeout=1).register_script(_THROTTLE)


def _throttle(kind: str, *, event: bool) -> int | None:
    """None: stay quiet. Else send now, reporting this many folded events."""
    interval_ms = settings.INGEST_ALERT_MIN_INTERVAL_SECONDS * 1000
    if interval_ms == 0:
        return 0 if event else None  # no throttle: every event is sent, nothing folds
    folded = _script(settings.REDIS_URL)(keys=_keys(kind), args=[interval_ms, int(event)])
    return None if int(folded) < 0 else int(folded)


def clear() -> None:
    """Forget every open window and folded count: the next event of each kind is sent."""
    _script(settings.REDIS_URL).registered_client.delete(*_keys(DEAD_LETTER), *_keys(QUEUE_AGE))


# --------------------------------------------------------------------------- sending


def _send(text: str) -> None:
    """Queue the message for the sender actor once the current transaction commits."""
    transaction.on_commit(lambda: _enqueue(text))


@_never_raises
def _enqueue(text: str) -> None:
    enqueue_by_name(QUEUE_NAME, ACTOR_NAME, text)  # by name: see ACTOR_NAME
