"""Reads for a document's versions: which versions it has, and the stored file of each.

Each version's bytes stay stored under the key its job recorded (Job.storage_key; a
version made again from the same bytes, by manage.py reembed, shares its predecessor's
key), with the name they were uploaded under (Job.filename). Jobs of older rows recorded
no name: the document's own stands in.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import IO, Any

from django.core.files.storage import default_storage

from documents import services
from documents.models import Document
from jobs.models import Job


class NoSuchVersion(Exception):
    """The document has no such version (numbered 1 to its current `version`)."""


@dataclass(frozen=True)
class StoredVersion:
    number: int
    key: str  # in the default storage
    filename: str  # as uploaded
    uploaded_at: datetime
    status: str  # of the version's latest job


def versions_of(document: Document) -> list[StoredVersion]:
    """Every version of the document, newest first."""
    jobs = list(document.jobs.order_by("version", "created_at"))
    first: dict[int, Job] = {}
    latest: dict[int, Job] = {}
    for job in jobs:
        first.setdefault(job.version, job)
        latest[job.version] = job
    return [
        _stored(document, number, first[number], latest[number])
        for number in sorted(first, reverse=True)
    ]


def stored_version(document: Document, number: int | None = None) -> StoredVersion:
    """Version `number` of the document (default: its latest). Raises NoSuchVersion."""
    number = document.version if number is None else number
    if not 1 <= number <= document.version:
        raise NoSuchVersion(number)
    jobs = document.jobs.filter(version=number).order_by("created_at")
    first, latest = jobs.first(), jobs.last()
    if first is None or latest is None:  # every version is made with its job
        raise NoSuchVersion(number)
    return _stored(document, number, first, latest)


def _stored(document: Document, number: int, first: Job, latest: Job) -> StoredVersion:
    if number == document.version:
        key, filename = document.storage_key, document.filename
    else:
        key = first.storage_key or services.storage_key(
            owner_id=document.owner_id, document_id=document.id, version=number
        )
        filename = first.filename or document.filename
    return StoredVersion(number, key, filename, first.created_at, latest.status)


def open_stored(key: str) -> tuple[IO[bytes] | Any, int | None]:
    """The stored file at `key`, opened to be read from its start in blocks, and its size
    when the storage says. From object storage the bytes stream from the bucket as they
    are read (django-storages' own file would first copy the whole object to a temporary
    file). Raises FileNotFoundError when nothing is stored there."""
    try:
        stored = default_storage.open(key, "rb")  # from S3: the object's metadata only
    except Exception as exc:
        if isinstance(exc, OSError) or _missing_object(exc):
            raise FileNotFoundError(key) from exc
        raise
    obj = getattr(stored, "obj", None)  # an S3 object: django-storages' S3File
    if obj is None:
        return stored, getattr(stored, "size", None)
    return obj.get()["Body"], obj.content_length


def _missing_object(exc: Exception) -> bool:
    """botocore's ClientError for a key that is not in the bucket."""
    error = getattr(exc, "response", None) or {}
    return error.get("Error", {}).get("Code") in ("404", "NoSuchKey")
