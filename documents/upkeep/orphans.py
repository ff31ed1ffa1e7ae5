"""Stored files that no document references, and their removal.

An upload stores its bytes before the transaction that records the Document (see
services.uploads.create_upload), so a transaction that fails leaves a file behind: an orphan.
This module finds such files under `documents/` in the default storage and deletes them.

Only files older than a threshold are considered: a file that young may belong to an
upload whose transaction has not committed yet, and deleting it would lose that upload.
So the threshold must exceed the longest an upload's transaction can stay open.
"""

import itertools
import posixpath
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.core.files.storage import Storage, default_storage
from django.utils import timezone

from documents.models import Document
from jobs.models import Job

PREFIX = "documents"
DEFAULT_MIN_AGE = timedelta(hours=1)
# Keys checked against the database per query: one query per batch, never one per file,
# and never the whole table in memory.
BATCH_SIZE = 500


@dataclass(frozen=True)
class Orphan:
    key: str
    size: int


@dataclass(frozen=True)
class CleanupReport:
    found: int
    deleted: int
    total_bytes: int


def cleanup_orphans(
    *,
    min_age: timedelta = DEFAULT_MIN_AGE,
    dry_run: bool = False,
    storage: Storage | None = None,
    on_orphan: Callable[[Orphan], None] | None = None,
) -> CleanupReport:
    """Find the orphans older than `min_age` and delete them, unless `dry_run`.

    `on_orphan` is called with each orphan as it is found (before it is deleted), so a
    caller can report progress on a large storage. `storage` defaults to the default
    storage. Returns how many orphans were found and deleted, and their size in bytes.
    """
    storage = default_storage if storage is None else storage
    found = deleted = total_bytes = 0
    for orphan in find_orphans(storage=storage, min_age=min_age):
        found += 1
        total_bytes += orphan.size
        if on_orphan is not None:
            on_orphan(orphan)
        if not dry_run:
            storage.delete(orphan.key)
            deleted += 1
    return CleanupReport(found=found, deleted=deleted, total_bytes=total_bytes)


def find_orphans(*, storage: Storage, min_age: timedelta = DEFAULT_MIN_AGE) -> Iterator[Orphan]:
    """Yield each file under `documents/` that no document or job names and that was
    last modified more than `min_age` ago. Reads the storage lazily, batch by batch."""
    cutoff = timezone.now() - min_age
    for batch in _batches(_walk(storage, PREFIX), BATCH_SIZE):
        # Ask the database first: it answers a whole batch at once, while each age
        # check may be a request to the object store.
        referenced = _referenced(batch)
        for key in batch:
            if key in referenced:
                continue
            orphan = _orphan_if_old(storage, key, cutoff)
            if orphan is not None:
                yield orphan


def _referenced(keys: list[str]) -> set[str]:
    """Keys a document (its newest version) or a job (the version it processes) names,
    in one query."""
    by_documents = Document.objects.filter(storage_key__in=keys).values_list("storage_key")
    by_jobs = Job.objects.filter(storage_key__in=keys).values_list("storage_key")
    return {key for (key,) in by_documents.union(by_jobs)}


def _orphan_if_old(storage: Storage, key: str, cutoff: datetime) -> Orphan | None:
    try:
        if storage.get_modified_time(key) > cutoff:
            return None
        return Orphan(key=key, size=storage.size(key))
    except Exception:
        # Gone since it was listed (its document was deleted, another cleanup ran)?
        # Then there is nothing to do. S3Storage says so with a botocore ClientError,
        # FileSystemStorage with FileNotFoundError: ask the storage rather than the error.
        if storage.exists(key):
            raise
        return None


def _walk(storage: Storage, directory: str) -> Iterator[str]:
    """Every file key under `directory`, depth first. `listdir` is the one listing call
    both FileSystemStorage and S3Storage implement (S3 answers it with a delimiter)."""
    try:
        directories, files = storage.listdir(directory)
    except FileNotFoundError:
        # A local storage that has never stored an upload has no documents/ directory.
        return
    for name in sorted(files):
        yield posixpath.join(directory, name)
    for name in sorted(directories):
        yield from _walk(storage, posixpath.join(directory, name))


def _batches(keys: Iterable[str], size: int) -> Iterator[list[str]]:
    iterator = iter(keys)
    while batch := list(itertools.islice(iterator, size)):
        yield batch
