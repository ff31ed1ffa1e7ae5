"""Retention: what the service no longer needs after INGEST_RETAIN_DAYS, pruned by the
sweeper a few small batches a pass (jobs/ops/tick.py), so that no statement holds many
locks or runs long and a backlog drains over passes:

- the attempt history of ended jobs (dead letters keep theirs: an operator reads it);
- versions replaced that long ago (a newer version was made before the cutoff), unless
  search still serves them: their jobs, any chunks left, and their stored files, whose
  bytes leave the owner's storage count;
- webhook events that long ago with no delivery still pending, their deliveries with them
  (jobs/webhooks/retention.py).

Nothing a user still sees goes: a document's current version and its job, the ready
version (its chunks, its file, a job that names it), dead letters. A download of a pruned
version answers 410 `version_pruned`. Finished direct uploads are forgotten after a day
by their own sweep (documents/direct_sweep.py).
"""

import logging
import uuid
from collections.abc import Callable
from datetime import datetime

from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Exists, F, OuterRef, Q
from django.db.models.functions import Greatest

from config import metrics
from config.pruning import in_batches, retention_cutoff
from documents.models import Document
from jobs.models import Job, JobAttempt, JobStatus
from search.models import Chunk

log = logging.getLogger(__name__)

BATCH = 500
BATCHES_PER_PASS = 4
ENDED = (JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELLED)


def every_pass(*, now: datetime | None = None) -> dict[str, int]:
    """Prune the attempt history and the replaced versions past INGEST_RETAIN_DAYS, a few
    batches of each; what was removed, by kind (also counted in ingest_pruned_total)."""
    before = retention_cutoff(now)
    removed = {"attempts": _in_batches(lambda: _attempts(before))}
    removed.update(_versions(before))
    for kind, count in removed.items():
        if count:
            metrics.PRUNED.labels(kind).inc(count)
    return removed


def _in_batches(prune_one: Callable[[], int]) -> int:
    return in_batches(prune_one, batch=BATCH, batches=BATCHES_PER_PASS)


def _attempts(cutoff: datetime) -> int:
    """One batch of attempts of jobs that ended before `cutoff`, dead letters' kept."""
    history = JobAttempt.objects.filter(
        finished_at__lt=cutoff, job__finished_at__lt=cutoff, job__status__in=ENDED
    ).exclude(job__status=JobStatus.FAILED, job__document__current_job=F("job_id"))
    with transaction.atomic():
        ids = list(history.values_list("id", flat=True)[:BATCH])
        deleted, _ = JobAttempt.objects.filter(id__in=ids).delete()
    return deleted


def _replaced(cutoff: datetime) -> "Q":
    """Jobs of a version that a newer one replaced before `cutoff`, ended before it, that
    search does not serve and that are not their document's current job."""
    newer = Job.objects.filter(
        document_id=OuterRef("document_id"), version__gt=OuterRef("version"), created_at__lt=cutoff
    )
    return (
        Q(
            Exists(newer),
            status__in=ENDED,
            finished_at__lt=cutoff,
            version__lt=F("document__version"),
        )
        & ~Q(version=F("document__ready_version"))
        & ~Q(id=F("document__current_job_id"))
    )


def _versions(cutoff: datetime) -> dict[str, int]:
    removed = {"jobs": 0, "chunks": 0, "files": 0}

    def one_batch() -> int:
        jobs, chunks, files = _versions_batch(cutoff)
        removed["jobs"] += jobs
        removed["chunks"] += chunks
        removed["files"] += files
        return jobs

    _in_batches(one_batch)
    return removed


def _versions_batch(cutoff: datetime) -> tuple[int, int, int]:
    with transaction.atomic():
        rows = list(
            Job.objects.select_for_update(of=("self",), skip_locked=True)
            .filter(_replaced(cutoff))
            .values_list("id", "document_id", "version", "storage_key")[:BATCH]
        )
        if not rows:
            return 0, 0, 0
        versions = {(document, version) for _, document, version, _ in rows}
        chunks = Q()
        for document, version in versions:
            chunks |= Q(document_id=document, version=version)
        deleted_chunks, _ = Chunk.objects.filter(chunks).delete()
        Job.objects.filter(id__in=[row[0] for row in rows]).delete()
        keys = {key: document for _, document, _, key in rows if key}
        named = set(
            Job.objects.filter(storage_key__in=keys).values_list("storage_key", flat=True)
        ) | set(Document.objects.filter(storage_key__in=keys).values_list("storage_key", flat=True))
        gone = {key: document for key, document in keys.items() if key not in named}
        transaction.on_commit(lambda: _delete_files(gone))
    return len(rows), deleted_chunks, len(gone)


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
        Document.objects.filter(id=document_id).update(
            stored_bytes=Greatest(F("stored_bytes") - size, 0)
        )
