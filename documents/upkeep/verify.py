"""The database against the storage, both ways: stored files no row names (orphans), and
rows whose file is not stored (missing). `manage.py verify_storage` reports them, and with
`--fix` deletes the orphans and ends the queued jobs of missing files as `file_missing`.

Compared one account at a time (every file of an account sits under
`documents/<owner id>/`): the account's stored names, listed in pages of a thousand on S3,
against the names its documents, jobs and pending direct uploads hold, two sets of
strings in memory (about 50 MB for an account of 200,000 documents). A file younger than
the threshold is no orphan yet: an upload stores its bytes before it records its row.
"""

import os
import posixpath
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from django.core.files.storage import Storage, default_storage
from django.utils import timezone

from documents.direct import bucket
from documents.models import DirectUpload, DirectUploadStatus, Document
from documents.upkeep.orphans import DEFAULT_MIN_AGE, PREFIX
from jobs import services as jobs
from jobs.models import Job, JobStatus

MISSING_DETAIL = (
    "The stored file of this version is missing from the storage, so it cannot be "
    "processed. Upload the file again as a new version."
)


@dataclass(frozen=True)
class Stored:
    name: str
    size: int
    modified: datetime


@dataclass(frozen=True)
class Found:
    kind: str  # "orphan" (a file no row names) or "missing" (a row's file not stored)
    name: str
    size: int = 0
    document_id: uuid.UUID | None = None


@dataclass
class Report:
    accounts: int = 0
    stored: int = 0
    orphans: list[Found] = field(default_factory=list)
    missing: list[Found] = field(default_factory=list)
    deleted: int = 0
    failed_jobs: int = 0


def verify(
    *,
    fix: bool = False,
    min_age: timedelta = DEFAULT_MIN_AGE,
    storage: Storage | None = None,
    on_found: Callable[[Found], None] | None = None,
) -> Report:
    """Compare every account's stored files with its rows; with `fix`, delete the orphans
    older than `min_age` and fail the queued jobs whose file is missing."""
    storage = default_storage if storage is None else storage
    report = Report()
    cutoff = timezone.now() - min_age
    for owner in _owners(storage):
        report.accounts += 1
        stored = {item.name: item for item in stored_files(storage, f"{PREFIX}/{owner}")}
        report.stored += len(stored)
        recorded = _recorded(owner)
        pending = set(  # bytes on their way: neither an orphan nor a loss
            DirectUpload.objects.filter(
                owner_id=owner, status=DirectUploadStatus.STARTED
            ).values_list("storage_key", flat=True)
        )
        for name in sorted(stored.keys() - recorded.keys() - pending):
            item = stored[name]
            if item.modified > cutoff:
                continue
            found = Found("orphan", name, item.size)
            report.orphans.append(found)
            if on_found is not None:
                on_found(found)
            if fix:
                storage.delete(name)
                report.deleted += 1
        missing = [
            Found("missing", name, document_id=recorded[name])
            for name in sorted(recorded.keys() - stored.keys())
        ]
        for found in missing:
            report.missing.append(found)
            if on_found is not None:
                on_found(found)
        if fix and missing:
            report.failed_jobs += _fail_missing([found.name for found in missing], owner)
    return report


def _owners(storage: Storage) -> list[int]:
    """Accounts with stored files or documents, in id order."""
    try:
        directories, _ = storage.listdir(PREFIX)
    except FileNotFoundError:  # a local storage that never stored an upload
        directories = []
    listed = {int(name) for name in directories if name.isdigit()}
    recorded = set(Document.objects.order_by().values_list("owner_id", flat=True).distinct())
    return sorted(listed | recorded)


def _recorded(owner: int) -> dict[str, uuid.UUID]:
    """Each name the account's rows hold: its documents' newest versions and every
    version a job processes, to the document it belongs to."""
    names = dict(Job.objects.filter(owner_id=owner).values_list("storage_key", "document_id"))
    names.update(Document.objects.filter(owner_id=owner).values_list("storage_key", "id"))
    return names


def _fail_missing(names: list[str], owner: int) -> int:
    """End the account's queued jobs of these names as `file_missing`: no worker could
    read them, and a retry would not either."""
    queued = list(
        Job.objects.filter(
            owner_id=owner, storage_key__in=names, status=JobStatus.QUEUED
        ).values_list("id", flat=True)
    )
    return len(jobs.fail_queued(job_ids=queued, code="file_missing", detail=MISSING_DETAIL))


def stored_files(storage: Storage, directory: str) -> Iterator[Stored]:
    """Every file under `directory`, with its size and time: on S3 from the bucket's
    listing (a thousand a request, no request per file), elsewhere from the disk."""
    s3_bucket: Any = getattr(storage, "bucket", None)
    if s3_bucket is not None:
        yield from _listed(storage, s3_bucket, directory)
        return
    root = storage.path(directory)
    for path, _, files in os.walk(root):
        for filename in files:
            full = os.path.join(path, filename)
            name = posixpath.join(directory, os.path.relpath(full, root).replace(os.sep, "/"))
            status = os.stat(full)
            yield Stored(name, status.st_size, datetime.fromtimestamp(status.st_mtime, tz=UTC))


def _listed(storage: Any, s3_bucket: Any, directory: str) -> Iterator[Stored]:
    prefix = bucket.object_key(directory, storage).rstrip("/") + "/"
    for item in s3_bucket.objects.filter(Prefix=prefix):
        yield Stored(bucket.name_of(item.key, storage), item.size, item.last_modified)
