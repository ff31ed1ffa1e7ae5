"""Tell the owner's open pages that a job changed: after commit, best effort.

The database stays the truth; a push that is lost (nobody listening, Redis down) costs
nothing, since pages re-read the state when they (re)connect or poll.
"""

import logging
import time
from typing import TypedDict

from asgiref.sync import async_to_sync
from django.db import transaction

from jobs.models import Job, JobStatus, Stage

log = logging.getLogger(__name__)

# A running job pushes its progress at most this often; state changes always go, and so
# does the first push of a stage (reading pages, then embedding chunks): the page would
# otherwise show the stage before until the next push, which a held stage never sends.
PROGRESS_PUSH_INTERVAL = 1.0
_last_push: dict[str, tuple[float, str]] = {}  # job id: when, and in which stage


class JobChanged(TypedDict):
    """The websocket payload: ids and what changed, never document content."""

    type: str  # the consumer's handler: "job.changed"
    job_id: str
    document_id: str
    status: str
    done: int  # chunks embedded
    total: int  # chunks in all (0 until the text is split)
    stage: str  # jobs.models.Stage: queued, extracting, embedding, done
    pages_done: int  # pages read
    pages_total: int  # pages in the file (0 until counted)


def user_group(user_id: int) -> str:
    return f"user-{user_id}"


def job_changed(
    job: Job,
    *,
    status: str,
    done: int = 0,
    total: int = 0,
    progress: bool = False,
    stage: str = "",
    pages_done: int = 0,
    pages_total: int = 0,
) -> None:
    """Queue a push to the owner's group for after the current transaction commits.
    Without a `stage`, the one a job starts in its `status` (a claim starts extracting)."""
    key = str(job.id)
    if progress:
        now = time.monotonic()
        at, pushed_stage = _last_push.get(key, (0.0, ""))
        if stage == pushed_stage and now - at < PROGRESS_PUSH_INTERVAL:
            return
        _last_push[key] = (now, stage)
    else:
        _last_push.pop(key, None)
    payload = JobChanged(
        type="job.changed",
        job_id=key,
        document_id=str(job.document_id),
        status=status,
        done=done,
        total=total,
        stage=stage or _STARTS_IN.get(status, Stage.DONE),
        pages_done=pages_done,
        pages_total=pages_total,
    )
    group = user_group(job.owner_id)
    transaction.on_commit(lambda: _push(group, payload))


_STARTS_IN: dict[str, str] = {
    JobStatus.QUEUED: Stage.QUEUED,
    JobStatus.PROCESSING: Stage.EXTRACTING,
}


def _push(group: str, payload: JobChanged) -> None:
    try:
        from channels.layers import get_channel_layer

        layer = get_channel_layer()
        if layer is not None:
            # types-channels asks for dict[str, Any], which mypy never takes a TypedDict
            # for, though it is a dict at run time.
            async_to_sync(layer.group_send)(group, payload)  # type: ignore[arg-type]
    except Exception:
        log.info(
            "could not push %s to %s; pages will poll", payload["status"], group, exc_info=True
        )
