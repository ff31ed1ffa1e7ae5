"""Catching up with a changed embedding, by itself. On each sweeper pass (jobs/sweeper.py,
on_each_pass), while ready documents' vectors were made by another embedding than the
configured one, the next wave of them is queued to be embedded again, through the waves of
`manage.py reprocess embeddings` (documents/upkeep/waves.py, reembed.py: a job of the
version search serves, which embeds its stored chunks again; no new version). When none is
left, the new embedding's floor is measured (search/retrieval/calibrate.py). Meanwhile a
search finds those documents by their words and says how many (search/retrieval/meaning.py).

Low priority, never in the way of uploads: the batch lane, only while it has room under the
wave (twice its worker threads, anyone's jobs in flight counted), and nothing while
admission control is half way to refusing uploads (UPLOADS_FIRST). One sweeper acts at a
time: the step holds a transaction's advisory lock, which the others skip. Where it stands
is one row (EmbeddingChange), and it logs what happens: the change when it starts (and when
a sweeper starts while it lasts), its progress at most once a minute, its end and the floor.

Documents whose embedding was never recorded count as out of date, as for the command: they
are searched by their words alone until re-embedded, and embedding them again is the only
way to know their vectors match the query's (`manage.py reprocess embeddings
--adopt-unrecorded` records the configured embedding on them instead). A re-embed that
fails is left to an operator (the dead-letter console), never queued again by a pass; when
re-embeds come back made by another embedding, the workers run other settings than the
sweeper: it stops queuing, says so, and tries one wave again after HALT_SECONDS.
INGEST_AUTO_REEMBED=false turns it all off.
"""

import logging
import uuid
from collections import Counter
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from config.common import locks
from documents.models import EmbeddingChange
from documents.upkeep import ready, reembed, waves
from documents.upkeep.ready import FAILED
from documents.upkeep.waves import DONE
from jobs import backlog
from jobs.models import Job
from search.checks import column_dimensions
from search.embedding.signature import current_signature
from search.pipeline.errors import PipelineError
from search.retrieval import calibrate, floors

log = logging.getLogger(__name__)

LOCK = "documents.embedding_change"
REPORT_SECONDS = 60  # between progress lines
HALT_SECONDS = 600  # after workers were found on other settings, until the next wave
FLOOR_RETRY_SECONDS = 3600  # after a measurement that failed (or a sweeper that died in it)
# Nothing is queued while the backlog, or the oldest queued job's age, is past this share
# of the limit at which admission control refuses uploads.
UPLOADS_FIRST = 0.5

# What a pass writes of its row; the floor's fields are _measure_floor's.
PROGRESS = [
    "total",
    "done",
    "failed",
    "pending",
    "halted",
    "halted_at",
    "reported_at",
    "finished_at",
]

_said: set[str] = set()  # what this process has said once: each sweeper says it as it starts


def every_pass() -> None:
    """The sweeper's step (module docstring): hear how the re-embeds it queued ended, queue
    the next wave (each job sent after the step's commit), and once none is left measure
    the floor. Holds the advisory lock LOCK for the step's transaction, skipping it when
    another sweeper holds it; the floor is measured after the commit, claimed by a
    conditional UPDATE. Never raises for a provider that fails the floor's queries."""
    if not settings.INGEST_AUTO_REEMBED:
        _say_it_is_off()
        return
    target = current_signature()
    if _size_changes(target):
        return
    with transaction.atomic():
        if not locks.try_hold(LOCK):
            return  # another sweeper is at it
        _catch_up(target)
    _measure_floor(target)


def _catch_up(target: str) -> None:
    kind = reembed.Reembedding(reembed.Scope(target=target, leave_failed=True))
    change = _under_way(target, kind)
    if change is None:
        return  # the usual pass: nothing out of date (two empty index ranges)
    now = timezone.now()
    _hear_endings(change, kind, now)
    waiting = _why_not_now(change, now)
    step = waves.TopUp()
    if not waiting:
        change.halted, change.halted_at = "", None
        pending = {uuid.UUID(job_id) for job_id in change.pending}
        step = waves.top_up(kind, wave=waves.batch_wave(), pending=pending, skip=set())
        change.pending += [str(job_id) for job_id in step.jobs]
    if step.exhausted and not change.pending:
        change.finished_at = now  # the floor is measured, and the end said, after commit
    elif step.jobs or change.pending or waiting:
        _report(change, now, waiting)
    change.save(update_fields=PROGRESS)


def _under_way(target: str, kind: reembed.Reembedding) -> EmbeddingChange | None:
    """The catch-up to `target`, started now when documents wait for it (and said once by
    each sweeper process); None when none does."""
    change = EmbeddingChange.objects.filter(signature=target, finished_at__isnull=True).first()
    if change is None:
        return _start(target) if kind.next_candidates(limit=1, skip=set()) else None
    if target not in _said:
        _said.add(target)
        log.info(
            "embedding change to %s under way: %d/%d documents re-embedded in the background",
            target,
            change.done,
            change.total,
        )
    return change


def _start(target: str) -> EmbeddingChange:
    """A catch-up begins (again, for an embedding caught up to before): its row and its
    first line, what made the documents and what the configuration is."""
    made_by = reembed.made_by(reembed.out_of_date(reembed.Scope(target=target)))
    total = sum(made_by.values())
    # Another one left unfinished is over: the configuration changed again before it was.
    EmbeddingChange.objects.filter(finished_at=None).exclude(signature=target).update(
        finished_at=timezone.now(), pending=[]
    )
    change, _ = EmbeddingChange.objects.update_or_create(
        signature=target,
        defaults={
            "started_at": timezone.now(),
            "total": total,
            "made_by": dict(made_by),
            "done": 0,
            "failed": 0,
            "pending": [],
            "halted": "",
            "halted_at": None,
            "reported_at": timezone.now(),
            "finished_at": None,
            "floor_claimed_at": None,
            "floor": None,
        },
    )
    _said.add(target)
    log.info(
        "embedding changed: %s, the configuration is %s: re-embedding %s in the background (0/%d)",
        _made_by_said(made_by),
        target,
        "it" if total == 1 else "them",
        total,
    )
    return change


def _hear_endings(change: EmbeddingChange, kind: reembed.Reembedding, now: datetime) -> None:
    """Count how the jobs it queued ended; stop queuing when they show the workers run
    other settings. A job whose document was deleted is gone: forgotten."""
    ids = [uuid.UUID(job_id) for job_id in change.pending]
    if not ids:
        return
    ended = kind.endings(ids)
    counts = Counter(ended.values())
    change.done += counts[DONE]
    change.failed += counts[FAILED]
    alive = set(Job.objects.filter(id__in=ids).values_list("id", flat=True))
    change.pending = [str(i) for i in ids if i in alive and i not in ended]
    if others := ready.others(counts):
        change.halted = (
            f"{sum(others.values())} re-embedded documents came back made by "
            f"{', '.join(others)}, not {change.signature}: the workers run other embedding "
            "settings than the sweeper. Give every process the same settings and restart them."
        )
        change.halted_at = now
        log.warning(
            "re-embedding for %s stops queuing for %d minutes: %s",
            change.signature,
            HALT_SECONDS // 60,
            change.halted,
        )


def _why_not_now(change: EmbeddingChange, now: datetime) -> str:
    """Why nothing is queued on this pass; "" when the lane may be filled."""
    if change.halted_at is not None and now - change.halted_at < _seconds(HALT_SECONDS):
        return "the workers run other embedding settings"
    return _uploads_first()


def _uploads_first() -> str:
    """Why nothing is queued now, "" when the lane may be filled: admission control is half
    way to refusing uploads (documents/front_door/admission.py)."""
    now = backlog.read()
    most = settings.INGEST_MAX_BACKLOG
    if now.in_flight >= UPLOADS_FIRST * most:
        jobs = f"{now.in_flight} job{'' if now.in_flight == 1 else 's'}"
        return f"uploads come first ({jobs} in flight; uploads are refused at {most})"
    if now.oldest_queued_at is not None:
        age = (timezone.now() - now.oldest_queued_at).total_seconds()
        oldest = settings.INGEST_MAX_QUEUE_AGE_SECONDS
        if age >= UPLOADS_FIRST * oldest:
            return (
                f"uploads come first (the oldest queued job has waited {age:.0f} s; uploads "
                f"are refused past {oldest} s)"
            )
    return ""


def _report(change: EmbeddingChange, now: datetime, waiting: str) -> None:
    """A progress line, at most every REPORT_SECONDS."""
    if change.reported_at is not None and now - change.reported_at < _seconds(REPORT_SECONDS):
        return
    left = reembed.out_of_date(reembed.Scope(target=change.signature)).count()
    change.total = max(change.total, change.done + left)
    parts = [f"{change.done}/{change.total} done"]
    if change.failed:
        parts.append(f"{change.failed} failed")
    if change.pending:
        parts.append(f"{len(change.pending)} in flight")
    if waiting:
        parts.append(f"waiting: {waiting}")
    log.info("re-embedding for %s: %s", change.signature, ", ".join(parts))
    change.reported_at = now


def _measure_floor(target: str) -> None:
    """Once the catch-up is done, its floor (search/retrieval/floors.py), measured when none
    is kept for the embedding, by the one sweeper whose conditional UPDATE claims it (tried
    again FLOOR_RETRY_SECONDS later when it could not be), and the end said with it."""
    now = timezone.now()
    claimed = (
        EmbeddingChange.objects.filter(signature=target, finished_at__isnull=False, floor=None)
        .filter(
            Q(floor_claimed_at=None) | Q(floor_claimed_at__lt=now - _seconds(FLOOR_RETRY_SECONDS))
        )
        .update(floor_claimed_at=now)
    )
    if not claimed:
        return  # not done, measured already, or another sweeper is measuring it
    done = _done_said(target)
    floor, said = _floor(target)
    if floor is None:
        log.warning("%s; %s", done, said)
        return
    EmbeddingChange.objects.filter(signature=target).update(floor=floor)
    log.info("%s; %s", done, said)


def _done_said(target: str) -> str:
    change = EmbeddingChange.objects.get(signature=target)
    done = f"re-embedding for {target} done: {change.done}/{change.total} documents"
    if left := reembed.out_of_date(reembed.Scope(target=target)).count():
        done += (
            f"; {left} left, found by their words only: re-embeds that failed (the "
            "dead-letter console lists them, to retry) or documents whose latest version "
            "failed"
        )
    return done


def _floor(target: str) -> tuple[float | None, str]:
    """The embedding's floor and how it was had; None and why, when it could not be."""
    fitted = floors.FITTED.get(target)
    if fitted is not None:  # search takes the fitted line and never a measured floor
        return fitted.one_word, f"floor fitted beforehand ({fitted.one_word:.2f} for one word)"
    kept = floors.measured(target)
    if kept is not None:
        return kept, f"floor kept at {kept:.2f}, measured before"
    again = f"looked at again in {FLOOR_RETRY_SECONDS // 60} minutes"
    if not calibrate.ready_chunks():
        return None, f"no document is ready with it yet, so its floor is not measured: {again}"
    try:
        measurement = calibrate.measure_and_store()
    except PipelineError as exc:
        return None, f"its floor could not be measured ({exc.detail}): {again}"
    return measurement.floor, (
        f"floor measured at {measurement.floor:.2f} on {measurement.chunks:,} chunks"
    )


def _made_by_said(made_by: Counter[str]) -> str:
    """Who made them, as a line says it: "1150 documents were embedded by hashing::384, 50
    by an unrecorded embedding"."""
    (first, count), *others = made_by.most_common()
    said = f"{count} {'document was' if count == 1 else 'documents were'} embedded by "
    return said + ", ".join(
        [_name(first), *(f"{n} by {_name(signature)}" for signature, n in others)]
    )


def _name(signature: str) -> str:
    return signature or "an unrecorded embedding"


def _say_it_is_off() -> None:
    """Once per process, when it is off and documents wait for a re-embedding."""
    if "off" in _said:
        return
    _said.add("off")
    target = current_signature()
    made_by = reembed.made_by(reembed.out_of_date(reembed.Scope(target=target)))
    if made_by:
        log.warning(
            "%s, not the configured %s: search finds them by their words only. "
            "INGEST_AUTO_REEMBED is off: `manage.py reprocess embeddings` re-embeds them",
            _made_by_said(made_by),
            target,
        )


def _size_changes(target: str) -> bool:
    """A change of vector size is not made in place (docs/running/embeddings.md): the
    column holds one size, and workers refuse to start until it is changed."""
    stored = column_dimensions()
    if stored is None or stored == settings.INGEST_EMBED_DIMENSIONS:
        return False
    if "size" not in _said:
        _said.add("size")
        log.warning(
            "the configured embedding %s makes %d-dimensional vectors and the column holds "
            "%d: nothing is re-embedded until the column is changed (docs/running/embeddings.md)",
            target,
            settings.INGEST_EMBED_DIMENSIONS,
            stored,
        )
    return True


def _seconds(seconds: int) -> timedelta:
    return timedelta(seconds=seconds)
