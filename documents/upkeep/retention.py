"""Retention: what the service no longer needs after INGEST_RETAIN_DAYS, pruned by the
sweeper a few small batches a pass (jobs/sweeper.py, on_each_pass), so that no statement
holds many locks or runs long and a backlog drains over passes:

- the attempt history of ended jobs (dead letters keep theirs: an operator reads it);
- versions replaced that long ago (a newer version was made before the cutoff), unless
  search still serves them: their jobs, any chunks left, and their stored files, whose
  bytes leave the owner's storage count;
- webhook events that long ago with no delivery still pending, their deliveries with them
  (jobs/webhooks/retention.py).

Nothing a user still sees goes: a document's current version and its job, the ready
version (its chunks, its file, a job that names it), dead letters. A download of a pruned
version answers 410 `version_pruned`. Finished direct uploads are forgotten after a day
by their own sweep (documents/direct/sweep.py).
"""

import logging
import uuid
from collections.abc import Callable
from datetime import datetime

from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import F, QuerySet

from config.common import metrics
from config.common.pruning import in_batches, retention_cutoff
from documents.models import Document, RetentionMark
from documents.services.deletion import release_stored_bytes
from jobs import services as job_services
from jobs.models import Job, JobStatus
from search.pipeline.store import delete_chunks_of_versions, delete_structure_of_versions

log = logging.getLogger(__name__)

BATCH = 250  # jobs a batch: about 40 ms of work on a large database
BATCHES_PER_PASS = 2
ENDED = (JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELLED)


def every_pass(*, now: datetime | None = None) -> dict[str, int]:
    """Prune the attempt history and the replaced versions past INGEST_RETAIN_DAYS, a few
    batches of each; what was removed, by kind (also counted in ingest_pruned_total)."""
    before = retention_cutoff(now)
    removed = dict.fromkeys(("attempts", "jobs", "chunks", "files"), 0)

    def batch_of(prune: Callable[[datetime], tuple[int, dict[str, int]]]) -> Callable[[], int]:
        def one_batch() -> int:
            walked, counts = prune(before)
            for kind, count in counts.items():
                removed[kind] += count
            return walked

        return one_batch

    in_batches(batch_of(_attempts), batch=BATCH, batches=BATCHES_PER_PASS)
    in_batches(batch_of(_versions), batch=BATCH, batches=BATCHES_PER_PASS)
    for kind, count in removed.items():
        if count:
            metrics.PRUNED.labels(kind).inc(count)
    return removed


# Each prune walks the jobs in one order, from where its last batch stopped
# (RetentionMark), up to the cutoff: a pass reads what crossed the cutoff since the last
# one, not every job the years have left. The mark's row lock keeps two sweepers' batches
# apart.


def _walk(name: str, jobs: QuerySet[Job], field: str) -> list:
    """The next BATCH jobs of the walk `name` after its mark (locked till the commit),
    ordered by `field` then id, as (field, id, document, version, status, current job of
    the document)."""
    mark = RetentionMark.objects.select_for_update().filter(walk=name).first()
    if mark is not None:
        jobs = jobs.filter(**{f"{field}__gte": mark.at}).exclude(
            **{field: mark.at, "id__lte": mark.job_id}
        )
    columns = (field, "id", "document_id", "version", "status", "document__current_job_id")
    return list(jobs.order_by(field, "id").values_list(*columns)[:BATCH])


def _advance(name: str, last: tuple) -> None:
    RetentionMark.objects.update_or_create(walk=name, defaults={"at": last[0], "job_id": last[1]})


def _attempts(cutoff: datetime) -> tuple[int, dict[str, int]]:
    """Walk the jobs that ended before `cutoff` by when they ended, and delete their
    attempts, dead letters' kept (a retry or a cancel ends it again, later in the walk).
    (jobs walked, what was removed)."""
    ended = Job.objects.filter(finished_at__lt=cutoff)
    with transaction.atomic():
        jobs = _walk("attempts", ended, "finished_at")
        if not jobs:
            return 0, {}
        done = [
            job for _, job, _, _, status, current in jobs
            if status in ENDED and not (status == JobStatus.FAILED and current == job)
        ]  # fmt: skip
        deleted = job_services.prune_attempts(job_ids=done)
        _advance("attempts", jobs[-1])
    return len(jobs), {"attempts": deleted}


def _versions(cutoff: datetime) -> tuple[int, dict[str, int]]:
    """Walk the jobs of newer versions made before `cutoff`, by when they were made, and
    prune the versions each replaced: their jobs that ended before it, unless search
    serves that version or the job is its document's current one, their chunks and their
    files. (jobs walked, what was removed)."""
    newer = Job.objects.filter(version__gt=1, created_at__lt=cutoff)
    with transaction.atomic():
        walked = _walk("versions", newer, "created_at")
        if not walked:
            return 0, {}
        replaced: dict[uuid.UUID, int] = {}
        for _, _, document, version, _, _ in walked:
            replaced[document] = max(version, replaced.get(document, 0))
        candidates = (
            Job.objects.select_for_update(of=("self",))
            .filter(document_id__in=replaced, status__in=ENDED, finished_at__lt=cutoff)
            .exclude(version=F("document__ready_version"))
            .exclude(id=F("document__current_job_id"))
            .values_list("id", "document_id", "version", "storage_key")
        )
        rows = [row for row in candidates if row[2] < replaced[row[1]]]
        chunks, files = _forget_versions(rows) if rows else (0, 0)
        _advance("versions", walked[-1])
    return len(walked), {"jobs": len(rows), "chunks": chunks, "files": files}


def _forget_versions(rows: list[tuple]) -> tuple[int, int]:
    """Delete these jobs and their versions' chunks and structure; their files after the
    commit, unless another job or a document still names one. (chunks, files)."""
    versions = {(row[1], row[2]) for row in rows}
    deleted_chunks = delete_chunks_of_versions(versions)
    delete_structure_of_versions(versions)
    job_services.delete_ended_jobs(job_ids=[row[0] for row in rows])
    keys = {key: document for _, document, _, key in rows if key}
    named = set(
        Job.objects.filter(storage_key__in=keys).values_list("storage_key", flat=True)
    ) | set(Document.objects.filter(storage_key__in=keys).values_list("storage_key", flat=True))
    gone = {key: document for key, document in keys.items() if key not in named}
    transaction.on_commit(lambda: _delete_files(gone))
    return deleted_chunks, len(gone)


def _delete_files(keys: dict[str, uuid.UUID]) -> None:
    """Delete each file and take its bytes off its document's storage count."""
    for key, document_id in keys.items():
        try:
            size = default_storage.size(key)
            default_storage.delete(key)
        except Exception:
            # Gone already (S3 says so with a ClientError, a disk with FileNotFoundError:
            # ask the storage), or the storage is down: verify_storage finds it later.
            if default_storage.exists(key):
                log.warning("retention: could not delete %s", key, exc_info=True)
            continue
        release_stored_bytes(document_id=document_id, size=size)
