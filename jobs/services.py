"""Every change of a job's state. Each is one conditional UPDATE on the expected state.

The state machine (docs/working/design.md): queued → processing → succeeded | failed |
queued (retry); queued | failed → cancelled; failed or stale → queued (a fresh attempt). A
write that finds its row in another state changes nothing and says so, so a late or duplicate
actor can never move a job backwards. Every change is announced through the hub,
jobs.events (the owner's pages, the metrics, alerts, webhooks), after commit. This is the
one module that writes jobs_job and jobs_jobattempt (the upload's first insert is built
here, first_job; the senders stamp `enqueued_at`: jobs.queue, jobs.sweeper).
"""

import enum
import random
import uuid
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Max, OuterRef, Q, QuerySet, Subquery
from django.utils import timezone

from config.common import metrics
from config.common.inserts import insert_parts
from jobs import events, failures, fairness, redact
from jobs.models import (
    TERMINAL_STATUSES,
    AttemptOutcome,
    Job,
    JobAttempt,
    JobStatus,
    Lane,
    Stage,
)
from jobs.queue import send_job_on_commit
from search import file_types

if TYPE_CHECKING:  # documents sits above jobs; only its type is needed here
    from documents.models import Document


class Outcome(enum.StrEnum):
    """How an attempt's ending went, for the caller that ended it."""

    SUCCEEDED = "succeeded"
    SUPERSEDED = "superseded"  # a newer version was ready first: discard this result
    RETRY = "retry"  # back to the queue for another attempt
    FAILED = "failed"
    LOST = "lost"  # this attempt no longer holds the job: nothing was changed


def lane_for(size: int, file_type: str = "pdf") -> Lane:
    """The lane a file starts in: an image goes straight to OCR's (unless OCR is off, and
    the reader then says it cannot read it); others by their size."""
    if settings.INGEST_OCR != "off" and file_types.BY_CODE[file_type].ocr:
        return Lane.OCR
    return Lane.FAST if size <= settings.INGEST_FAST_LANE_MAX_BYTES else Lane.BATCH


def queue_new_job(
    *,
    document: "Document",
    webhook_url: str = "",
    lane: Lane | None = None,
    public_url: str = "",
    embed_only: bool = False,
) -> Job:
    """Create a queued job for the document's current version and file, and send its id
    after commit. Making it the document's current job is the caller's (documents'
    services write documents). `webhook_url`: the upload's own webhook, told of the end.
    `lane`: the file's size decides unless given (re-embedding always takes the batch lane).
    `public_url`: where the request reached the service (Job.public_url). `embed_only`:
    the job embeds the version's stored chunks again, reading no file (Job.embed_only).

    Call inside a transaction (the caller's, which also holds whatever lock it needs).
    """
    job = Job.objects.create(
        document=document,
        owner_id=document.owner_id,
        version=document.version,
        storage_key=document.storage_key,
        lane=lane or lane_for(document.size, document.file_type),
        webhook_url=webhook_url,
        public_url=public_url,
        filename=document.filename,
        embed_only=embed_only,
    )
    send_job_on_commit(job)
    events.changed(job, status=JobStatus.QUEUED)
    return job


def first_job(*, document: "Document", webhook_url: str = "", public_url: str = "") -> Job:
    """The unsaved first job of a new document, stamped as sent at the document's own
    creation time. documents.services inserts it together with the document."""
    return Job(
        id=uuid.uuid4(),
        document_id=document.id,
        owner_id=document.owner_id,
        version=document.version,
        storage_key=document.storage_key,
        lane=lane_for(document.size, document.file_type),
        queued_at=document.created_at,
        enqueued_at=document.created_at,
        webhook_url=webhook_url,
        public_url=public_url,
        filename=document.filename,
    )


def first_job_insert(*, job: Job, now: datetime, source: str) -> tuple[str, list]:
    """The INSERT of first_job's row, taken from `source` (a CTE that yields one row when
    the document went in, none when it gave way): SQL and parameters, for the upload's
    one statement (documents/services/insert.py). Its placeholders carry their types:
    nothing else types the values of an INSERT ... SELECT."""
    columns, values, params = insert_parts(job, now, cast=True)
    return f"INSERT INTO {Job._meta.db_table} ({columns}) SELECT {values} FROM {source}", params


def first_job_inserted(*, job: Job) -> None:
    """After the insert of first_job's row: its id goes to the broker after commit (at
    once outside a transaction), and the owner's open pages hear of it (events.first_queued)."""
    job._state.adding = False
    send_job_on_commit(job, stamped=True)
    events.first_queued(job)


# --------------------------------------------------------------------------- claiming


def claim_job(*, job_id: uuid.UUID, worker: str) -> Job | None:
    """Take the job for this worker: processing, attempts + 1, an attempt record opened.

    Claimable: queued and due (no `next_attempt_at` in the future), or stale (its worker
    died or hung, Job.objects.stale(); that attempt is recorded as lost), and its
    owner has room in the lane (jobs/fairness.py). Returns None when the job is not
    claimable: the caller drops the message. A job whose owner has no room stays queued
    and waits, without its message, for one of the owner's jobs to end. A job whose
    attempts all ended with their worker dying is failed as `crashed` instead of being
    tried forever (a SIGKILL never reaches any retry count).
    """
    with transaction.atomic():
        claimant = fairness.lock_for_claim(job_id)  # its own statement: see fairness
        if claimant is None:
            return None  # deleted with its document
        if not fairness.has_room(claimant, job_id=job_id):
            fairness.wait_for_room(claimant, job_id=job_id)
            return None
        now = timezone.now()
        due = Q(status=JobStatus.QUEUED) & (
            Q(next_attempt_at__isnull=True) | Q(next_attempt_at__lte=now)
        )
        claimable = Job.objects.filter(due) | Job.objects.stale()
        claimed = claimable.filter(id=job_id, attempts__lt=settings.INGEST_MAX_ATTEMPTS).update(
            status=JobStatus.PROCESSING,
            attempts=F("attempts") + 1,
            started_at=now,
            heartbeat_at=now,
            next_attempt_at=None,
            worker=worker,
            lease=uuid.uuid4(),
            # Each attempt reads the file from its first page (jobs.progress).
            stage=Stage.EXTRACTING,
            pages_done=0,
            pages_total=0,
        )
        if claimed == 0:
            _give_up_on_crash_loop(job_id)
            return None  # someone else holds it, it is not due, or there is nothing to do
        job = Job.objects.select_related("document").get(id=job_id)
        events.attempts_lost(_close_open_attempts(job))
        # Numbers keep counting across operator retries, which start `attempts` again at 0.
        last = JobAttempt.objects.filter(job=job).aggregate(n=Max("number"))["n"] or 0
        JobAttempt.objects.create(job=job, number=last + 1, worker=worker, started_at=now)
        events.changed(job, status=JobStatus.PROCESSING)
    return job


def take_resumed_waiting(*, lane: str, sent_before: datetime) -> uuid.UUID | None:
    """The oldest resumed job of the lane left waiting (Job.objects.resumed_waiting), for
    the calling thread to claim: stamped as sent now, under a row lock skipped by others,
    so that threads asking at once each take a different one (and the sweeper counts
    its grace period again from now)."""
    with transaction.atomic():
        found = (
            Job.objects.resumed_waiting(lane, sent_before=sent_before)
            .select_for_update(skip_locked=True)
            .values_list("id", flat=True)
            .first()
        )
        if found is not None:
            Job.objects.filter(id=found).update(enqueued_at=timezone.now())
    return found


def _give_up_on_crash_loop(job_id: uuid.UUID) -> None:
    detail = (
        f"Every one of the {settings.INGEST_MAX_ATTEMPTS} attempts ended with its worker "
        "dying (killed, out of memory, or hung). The document may be too large or "
        "malformed to process."
    )
    with transaction.atomic():
        # Zero rows: it is not stale (any more), or it has attempts left.
        gave_up = (
            Job.objects.stale()
            .filter(id=job_id, attempts__gte=settings.INGEST_MAX_ATTEMPTS)
            .update(
                status=JobStatus.FAILED,
                error_code="crashed",
                error_detail=detail,
                finished_at=timezone.now(),
            )
        )
        if gave_up:
            job = Job.objects.get(id=job_id)
            events.attempts_lost(_close_open_attempts(job))
            events.changed(job, status=JobStatus.FAILED)
            fairness.release_on_commit(job)


_LOST = "The worker stopped renewing its lease (killed, out of memory, or hung)."


def _close_open_attempts(job: Job) -> int:
    """Attempt records still marked running died with their worker. Call only where the
    job is not held by a live attempt (claiming it, or taking it back). Returns how many."""
    return JobAttempt.objects.filter(job=job, outcome=AttemptOutcome.RUNNING).update(
        outcome=AttemptOutcome.LOST,
        error_code="lease_expired",
        error_message=_LOST,
        finished_at=timezone.now(),
    )


def requeue_stale(*, job: Job) -> bool:
    """Take back a job whose worker died: its open attempt is recorded as lost and the job
    goes back to the queue (sent after commit), or ends `crashed` when it has no
    attempts left. Returns True when re-queued. Call inside a transaction."""
    if job.attempts >= settings.INGEST_MAX_ATTEMPTS:
        _give_up_on_crash_loop(job.id)
        return False
    # Zero rows: the job was claimed, retried or ended since it was picked as stale.
    requeued = (
        Job.objects.stale()
        .filter(id=job.id, attempts=job.attempts)
        .update(
            status=JobStatus.QUEUED,
            queued_at=timezone.now(),
            worker="",
            enqueued_at=None,
            next_attempt_at=None,
            error_code="lease_expired",
            error_detail=_LOST,
        )
    )
    if requeued:
        events.attempts_lost(_close_open_attempts(job))
        send_job_on_commit(job, resumed=True)
        events.changed(job, status=JobStatus.QUEUED)
        fairness.release_on_commit(job)
    return requeued == 1


# --------------------------------------------------------------------------- while it runs


def _held(job: Job) -> QuerySet[Job]:
    """The job's row, as long as this attempt still holds it: its fencing token (the
    lease drawn at its claim) is the row's, and it is processing. An UPDATE of it is
    refused (no row) once another attempt took the job over, or it was cancelled or
    deleted; and it locks the row until commit, so a takeover waits for whatever else
    that transaction writes (the chunks of a batch: jobs.worker.processing)."""
    return Job.objects.filter(
        id=job.id,
        status=JobStatus.PROCESSING,
        lease=job.lease,
        attempts=job.attempts,
        worker=job.worker,
    )


def _fenced(job: Job, write: str, **fields: Any) -> bool:
    """UPDATE the job's row with `fields` if this attempt holds it; False (and the refusal
    counted, by `write`) when it does not."""
    if _held(job).update(**fields):
        return True
    metrics.FENCED_WRITES.labels(write=write).inc()
    return False


def renew_lease(*, job: Job) -> bool:
    """Refresh the heartbeat. False when the attempt lost the job."""
    return _fenced(job, "heartbeat", heartbeat_at=timezone.now())


def record_pages(*, job: Job, done: int, total: int, stage: str = Stage.EXTRACTING) -> bool:
    """Store the pages read so far (the attempt is extracting, or reading scanned pages by
    OCR: `stage`), renew the heartbeat and push it (at most once a second). False when the
    attempt lost the job."""
    updated = _fenced(
        job, "pages", stage=stage, pages_done=done, pages_total=total, heartbeat_at=timezone.now()
    )
    if updated:
        events.changed(
            job,
            status=JobStatus.PROCESSING,
            progress=True,
            stage=stage,
            pages_done=done,
            pages_total=total,
        )
    return updated


def record_progress(
    *, job: Job, done: int, total: int, pages: int | None = None, write: str = "progress"
) -> bool:
    """Store the chunks embedded so far (the attempt is embedding; with `pages`, the file
    was read whole: that many pages of that many), renew the heartbeat and push it (at
    most once a second). False when the attempt lost the job."""
    fields: dict[str, Any] = (
        {"pages_done": pages, "pages_total": pages} if pages is not None else {}
    )
    updated = _fenced(
        job,
        write,  # what a refusal is counted as (the chunks it fences: jobs.worker.processing)
        stage=Stage.EMBEDDING,
        progress_done=done,
        progress_total=total,
        heartbeat_at=timezone.now(),
        **fields,
    )
    if updated:
        events.changed(
            job,
            status=JobStatus.PROCESSING,
            done=done,
            total=total,
            progress=True,
            stage=Stage.EMBEDDING,
            pages_done=pages or 0,
            pages_total=pages or 0,
        )
    return updated


# --------------------------------------------------------------------------- endings


def _finish_attempt(
    job: Job, outcome: str, code: str = "", message: str = "", tb: str = ""
) -> None:
    # At most one record is running: a claim closes the older ones first.
    JobAttempt.objects.filter(job=job, outcome=AttemptOutcome.RUNNING).update(
        outcome=outcome,
        error_code=code,
        error_message=redact.scrub(message)[:5000],
        traceback=redact.scrub(tb)[:20000],
        finished_at=timezone.now(),
    )


def complete_job(
    *,
    job: Job,
    total: int,
    ready_version: int | None,
    embed_model: str,
    extracted_by: str = "",
) -> Outcome:
    """Finish a successful attempt; the owner's pages hear of it after commit.
    `embed_model` is the signature of the embedding that made the vectors
    (search.embedding.signature), recorded with the success so that a version is never
    ready without it (manage.py reprocess embeddings reads it); `extracted_by`, what read
    its text (manage.py reprocess extraction reads it).

    Call inside the transaction that locked the document (documents.services
    `lock_for_completion`, which gives `ready_version`, so two versions finishing at
    once are ordered) and retires stale chunks. Returns SUCCEEDED (the caller then makes
    this version the searchable one), SUPERSEDED when a newer version was already ready
    (the job ends cancelled and this result must be discarded: the caller deletes this
    version's chunks), or LOST when this attempt no longer holds the job (the caller
    rolls back).
    """
    now = timezone.now()
    if ready_version is not None and ready_version > job.version:
        updated = _fenced(
            job,
            "ending",
            status=JobStatus.CANCELLED,
            error_code="superseded",
            finished_at=now,
            error_detail=f"Version {ready_version} was ready first; this result "
            f"for version {job.version} was discarded.",
        )
        if not updated:
            return Outcome.LOST
        _finish_attempt(job, AttemptOutcome.SUPERSEDED, "superseded")
        events.changed(job, status=JobStatus.CANCELLED, ended=AttemptOutcome.SUPERSEDED)
        fairness.release_on_commit(job)
        return Outcome.SUPERSEDED
    # Zero rows here and above: another attempt holds the job now, or it was deleted.
    updated = _fenced(
        job,
        "ending",
        status=JobStatus.SUCCEEDED,
        progress_done=total,
        progress_total=total,
        heartbeat_at=now,
        finished_at=now,
        error_code="",
        error_detail="",
        embed_model=embed_model,
        extracted_by=extracted_by,
    )
    if not updated:
        return Outcome.LOST
    _finish_attempt(job, AttemptOutcome.SUCCEEDED)
    events.changed(
        job, status=JobStatus.SUCCEEDED, ended=AttemptOutcome.SUCCEEDED, done=total, total=total
    )
    fairness.release_on_commit(job)
    return Outcome.SUCCEEDED


def fail_job(*, job: Job, code: str, detail: str, tb: str = "") -> Outcome:
    """End the job as failed with a stable code and a person-readable detail; the
    owner's pages hear of it after commit. FAILED, or LOST when this attempt no longer
    holds the job (nothing changed)."""
    detail = redact.scrub(detail)  # no credentials kept, whatever the error quoted
    with transaction.atomic():
        updated = _fenced(
            job,
            "ending",
            status=JobStatus.FAILED,
            error_code=code,
            error_detail=detail[:5000],
            heartbeat_at=timezone.now(),
            finished_at=timezone.now(),
        )
        if not updated:
            return Outcome.LOST
        _finish_attempt(job, AttemptOutcome.FAILED, code, detail, tb)
        job.error_code, job.error_detail = code, detail[:5000]
        events.changed(job, status=JobStatus.FAILED, ended=AttemptOutcome.FAILED)
        fairness.release_on_commit(job)
    return Outcome.FAILED


def backoff_seconds(attempt: int, retry_after: float | None = None) -> float:
    """Exponential backoff with equal jitter, never sooner than a provider asked."""
    ceiling = min(
        settings.INGEST_RETRY_MAX_SECONDS, settings.INGEST_RETRY_BASE_SECONDS * 2 ** (attempt - 1)
    )
    delay = ceiling / 2 + random.uniform(0, ceiling / 2)
    return max(delay, retry_after or 0.0)


def retry_or_fail(
    *, job: Job, code: str, detail: str, tb: str = "", retry_after: float | None = None
) -> Outcome:
    """After a transient error: back to the queue with a delayed message, or, when the
    attempts are used up, failed (`timeout` if the last one timed out, else
    `retries_exhausted`); the owner's pages hear of it after commit. Returns RETRY,
    FAILED or LOST."""
    if job.attempts >= settings.INGEST_MAX_ATTEMPTS:
        final = "timeout" if code == "timeout" else "retries_exhausted"
        summary = f"Gave up after {job.attempts} attempts. Last error: {detail}"
        return fail_job(job=job, code=final, detail=summary, tb=tb)
    delay = backoff_seconds(job.attempts, retry_after)
    now = timezone.now()
    detail = redact.scrub(detail)  # no credentials kept, whatever the error quoted
    with transaction.atomic():
        updated = _fenced(
            job,
            "ending",
            status=JobStatus.QUEUED,
            queued_at=now,
            next_attempt_at=now + timedelta(seconds=delay),
            error_code=code,
            error_detail=detail[:5000],
            worker="",
            enqueued_at=None,
        )
        if not updated:
            return Outcome.LOST
        _finish_attempt(job, AttemptOutcome.RETRY, code, detail, tb)
        send_job_on_commit(job, delay_seconds=delay, resumed=True)
        events.changed(job, status=JobStatus.QUEUED, ended=AttemptOutcome.RETRY)
        fairness.release_on_commit(job)
    return Outcome.RETRY


def hand_to_ocr(*, job: Job, pages: int, why: str = "") -> Outcome:
    """The attempt read the file's text layer and found `pages` pages that need OCR: the
    job goes on, queued, to the OCR lane (after commit), where its own workers read them.
    `why`, for the history: which pages have text that cannot be read, and why.
    Not a failed attempt: it gives back the attempt it used, and its record ends
    `handed_on`. The lane it leaves has room for the owner's next job. Returns RETRY
    (queued again) or LOST."""
    now = timezone.now()
    with transaction.atomic():
        updated = _fenced(
            job,
            "ending",
            status=JobStatus.QUEUED,
            lane=Lane.OCR,
            queued_at=now,
            next_attempt_at=None,
            attempts=F("attempts") - 1,
            worker="",
            enqueued_at=None,
        )
        if not updated:
            return Outcome.LOST
        plural = "s" if pages != 1 else ""
        said = f"{pages} page{plural} to read by OCR" + (f" ({why})" if why else "")
        _finish_attempt(job, AttemptOutcome.HANDED_ON, "", said[:1000])
        fairness.release_on_commit(job)  # the lane it leaves: job.lane is still that one
        job.lane, job.attempts = Lane.OCR, job.attempts - 1
        send_job_on_commit(job)
        events.changed(job, status=JobStatus.QUEUED)
    return Outcome.RETRY


def expire_job(*, job_id: uuid.UUID) -> bool:
    """A message too old to act on: its job, if still queued, ends failed as `expired`."""
    limit = settings.INGEST_MAX_MESSAGE_AGE_SECONDS
    detail = f"The job waited more than {limit} s in the queue and was not started."
    return bool(fail_queued(job_ids=[job_id], code="expired", detail=detail))


def fail_queued(*, job_ids: list[uuid.UUID], code: str, detail: str) -> list[uuid.UUID]:
    """End those of the jobs still queued as failed with `code`, announced as any ending
    (the owner's pages, metrics, webhooks); the ids that changed. A job a worker holds
    meanwhile is left to it."""
    with transaction.atomic():  # the change and its webhook events, together
        changed = list(
            Job.objects.select_for_update(skip_locked=True)
            .filter(id__in=job_ids, status=JobStatus.QUEUED)
            .values_list("id", flat=True)
        )
        Job.objects.filter(id__in=changed).update(
            status=JobStatus.FAILED,
            error_code=code,
            finished_at=timezone.now(),
            error_detail=detail,
        )
        if changed:
            events.many_changed(Job.objects.filter(id__in=changed), status=JobStatus.FAILED)
    return changed


# --------------------------------------------------------------------------- operators


# Why retry_jobs left a failed job failed, besides its error code (a file failure).
REPLACED = "replaced"


@dataclass(frozen=True)
class Retried:
    """What retry_jobs did: the ids re-queued, and how many failed jobs it left failed,
    by reason: their error code (the file would fail the same way) or REPLACED."""

    requeued: list[uuid.UUID]
    skipped: dict[str, int]


def retry_jobs(*, job_ids: list[uuid.UUID], file_failures_too: bool = False) -> Retried:
    """A fresh attempt for each failed or stale job: `attempts` (what counts against
    INGEST_MAX_ATTEMPTS) starts again at zero, the error is cleared, the job's last
    attempt is stamped `retried_at` (the ops history counts it among the retries), and
    the id is sent after commit. Jobs in any other state are left alone, and so are
    failed jobs that a newer job of their document replaced and, unless
    `file_failures_too` (the stored file was repaired), those whose file would fail the
    same way (jobs.failures.file_refusal, the API's rule): those are in `skipped`."""
    now = timezone.now()
    with transaction.atomic():
        retryable = Job.objects.filter(status=JobStatus.FAILED) | Job.objects.stale()
        found = (
            retryable.select_for_update(of=("self",), skip_locked=True)
            .filter(id__in=job_ids)
            .select_related("document")
        )
        skipped: Counter[str] = Counter()
        jobs = []
        for job in found:
            reason = _left_failed(job, file_failures_too=file_failures_too)
            if reason:
                skipped[reason] += 1
            else:
                jobs.append(job)
        for job in jobs:
            events.attempts_lost(_close_open_attempts(job))
        record_retry(job_ids=[job.id for job in jobs], now=now)
        Job.objects.filter(id__in=[job.id for job in jobs]).update(
            status=JobStatus.QUEUED,
            attempts=0,
            error_code="",
            error_detail="",
            worker="",
            queued_at=now,
            next_attempt_at=None,
            enqueued_at=None,
            finished_at=None,
            progress_done=0,
            progress_total=0,
        )
        for job in jobs:
            send_job_on_commit(job)
        events.many_changed(jobs, status=JobStatus.QUEUED)
    return Retried(requeued=[job.id for job in jobs], skipped=dict(skipped))


def record_retry(*, job_ids: list[uuid.UUID], now: datetime | None = None) -> None:
    """Someone retried these jobs (an operator, retry_jobs; an owner, whose retry is a new
    job, documents.services.retries.retry_document): their last attempts are stamped `retried_at`
    for the ops history's retries. A job that never had an attempt has nothing to stamp."""
    last = JobAttempt.objects.filter(job=OuterRef("job")).order_by("-number")
    JobAttempt.objects.filter(job__in=job_ids, number=Subquery(last.values("number")[:1])).update(
        retried_at=now or timezone.now()
    )


def _left_failed(job: Job, *, file_failures_too: bool) -> str | None:
    """Why a failed job is not worth another attempt (None: it is, as any stale one)."""
    if job.status != JobStatus.FAILED:
        return None
    if job.document.current_job_id != job.id:
        return REPLACED
    if not file_failures_too and failures.file_refusal(job):
        return job.error_code
    return None


def cancel_jobs(*, job_ids: list[uuid.UUID]) -> list[uuid.UUID]:
    """Cancel queued or failed jobs (a processing job is left to finish); the owners'
    pages hear of it after commit. Returns the ids that were cancelled."""
    cancellable = Job.objects.filter(
        id__in=job_ids, status__in=[JobStatus.QUEUED, JobStatus.FAILED]
    )
    with transaction.atomic():
        jobs = list(cancellable.select_for_update(skip_locked=True))
        cancellable.filter(id__in=[job.id for job in jobs]).update(
            status=JobStatus.CANCELLED, finished_at=timezone.now(), next_attempt_at=None
        )
        events.many_changed(jobs, status=JobStatus.CANCELLED)
    return [job.id for job in jobs]


def deleted_with_document(*, job: Job) -> None:
    """The document's delete took its jobs (the foreign key cascades, in the caller's
    transaction): announce its current `job` as cancelled, so the owner's other pages drop
    its row after commit. A worker still processing it finds the row gone and stops."""
    events.deleted(job)


def record_embed_model(
    *, job_ids: "QuerySet[Any, Any] | Iterable[uuid.UUID]", signature: str
) -> int:
    """Record `signature` as the embedding that made these succeeded jobs' vectors, where
    none was recorded (manage.py reprocess embeddings --adopt-unrecorded, for vectors made
    before the record was kept). Not a change of state: nothing is announced. Returns how many."""
    return Job.objects.filter(id__in=job_ids, status=JobStatus.SUCCEEDED, embed_model="").update(
        embed_model=signature
    )


def extracted_by(*, document_id: uuid.UUID, version: int) -> str:
    """What read the text of the version's latest success ("" when none recorded it): a
    job that only embeds that text again (Job.embed_only) records the same."""
    read = (
        Job.objects.filter(document_id=document_id, version=version, status=JobStatus.SUCCEEDED)
        .order_by("-finished_at")
        .values_list("extracted_by", flat=True)
        .first()
    )
    return read or ""


def prune_attempts(*, job_ids: list[uuid.UUID]) -> int:
    """Delete the attempt history of these ended jobs (documents' retention); how many
    attempts went."""
    deleted, _ = JobAttempt.objects.filter(job_id__in=job_ids).delete()
    return deleted


def delete_ended_jobs(*, job_ids: list[uuid.UUID]) -> None:
    """Delete these ended jobs of versions retention pruned, with their attempts (the
    foreign key cascades). Nothing announces it: nobody is waiting on an ended job."""
    Job.objects.filter(id__in=job_ids, status__in=TERMINAL_STATUSES).delete()
