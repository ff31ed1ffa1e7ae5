"""Reads for a document's versions: which versions it has, and the stored file of each.

Each version's bytes stay stored under the key its job recorded (Job.storage_key; a
version re-processed by manage.py reprocess has more than one job, each with its key),
with the name they were uploaded under (Job.filename). Jobs of older rows recorded
no name: the document's own stands in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import IO, Any

from django.conf import settings
from django.core.files.storage import default_storage
from django.http import FileResponse, HttpResponseRedirect
from django.http.response import HttpResponseBase
from django.utils.http import content_disposition_header

from documents.models import Document
from documents.services import uploads
from jobs.models import Job


class NoSuchVersion(Exception):
    """The document has no such version (numbered 1 to its current `version`)."""


class VersionPruned(Exception):
    """The version was replaced long ago and removed by retention
    (documents/upkeep/retention.py)."""


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
    """Version `number` of the document (default: its latest). Raises NoSuchVersion, or
    VersionPruned for one retention removed."""
    number = document.version if number is None else number
    if not 1 <= number <= document.version:
        raise NoSuchVersion(number)
    jobs = document.jobs.filter(version=number).order_by("created_at")
    first, latest = jobs.first(), jobs.last()
    if first is None or latest is None:  # every version is made with its job...
        raise VersionPruned(number)  # ...and loses it to retention only
    return _stored(document, number, first, latest)


def _stored(document: Document, number: int, first: Job, latest: Job) -> StoredVersion:
    if number == document.version:
        key, filename = document.storage_key, document.filename
    else:
        key = first.storage_key or uploads.storage_key(
            owner_id=document.owner_id, document_id=document.id, version=number
        )
        filename = first.filename or document.filename
    return StoredVersion(number, key, filename, first.created_at, latest.status)


class Unsatisfiable(Exception):
    """A Range none of whose bytes the file has (416); args[0] is the file's size."""


class BadRange(Exception):
    """A Range holding a number longer than any byte position (400); args[0] its digits."""


_RANGE = re.compile(r"bytes=(\d*)-(\d*)")
# More digits than any file's size has (10**18 bytes is an exabyte). int() refuses a string
# of over 4,300 digits: a longer number is refused before it is read (BadRange).
MAX_DIGITS = 18


def _position(digits: str) -> int:
    """A Range's number (leading zeros are still the number); raises BadRange past
    MAX_DIGITS significant digits."""
    digits = digits.lstrip("0") or "0"
    if len(digits) > MAX_DIGITS:
        raise BadRange(len(digits))
    return int(digits)


def byte_range(header: str, size: int) -> tuple[int, int] | None:
    """The (first, last) bytes, inclusive, that a Range header asks of a file of `size`
    bytes: `bytes=0-99`, `bytes=100-` or `bytes=-100` (the last 100). None when the whole
    file is to be sent: no header, a form this does not read (several ranges, another
    unit), which RFC 9110 lets a server ignore. A last byte past the end means up to the
    end, and a suffix longer than the file all of it (RFC 9110, 14.1.1). Raises
    Unsatisfiable (416) when the range starts past the end, BadRange (400) for a number
    longer than any byte position."""
    match = _RANGE.fullmatch(header.strip())
    if match is None or match.groups() == ("", ""):
        return None
    first_digits, last_digits = match.groups()
    if not first_digits:  # the last `last` bytes
        suffix = _position(last_digits)
        if suffix == 0 or size == 0:
            raise Unsatisfiable(size)
        return max(0, size - suffix), size - 1
    first = _position(first_digits)
    if first >= size:
        raise Unsatisfiable(size)
    end = min(_position(last_digits), size - 1) if last_digits else size - 1
    if end < first:
        return None  # `bytes=9-3` is not a valid range: ignored, as the RFC says
    return first, end


def open_stored(
    key: str, span: tuple[int, int] | None = None
) -> tuple[IO[bytes] | Any, int | None]:
    """The stored file at `key` (bytes `span`, inclusive, when given), opened to be read
    in blocks, and its size when the storage says. From object storage the bytes stream
    from the bucket as they are read (a ranged GET for a span; django-storages' own file
    would first copy the whole object to a temporary file). Raises FileNotFoundError when
    nothing is stored there."""
    try:
        stored = default_storage.open(key, "rb")  # from S3: the object's metadata only
    except Exception as exc:
        if isinstance(exc, OSError) or _missing_object(exc):
            raise FileNotFoundError(key) from exc
        raise
    obj = getattr(stored, "obj", None)  # an S3 object: django-storages' S3File
    if obj is None:
        if span is None:
            return stored, getattr(stored, "size", None)
        stored.seek(span[0])
        return _Slice(stored, span[1] - span[0] + 1), getattr(stored, "size", None)
    if span is None:
        return obj.get()["Body"], obj.content_length
    return obj.get(Range=f"bytes={span[0]}-{span[1]}")["Body"], obj.content_length


def stored_size(key: str) -> int:
    """The size of the stored file at `key`; FileNotFoundError when nothing is there."""
    try:
        return default_storage.size(key)
    except Exception as exc:
        if isinstance(exc, OSError) or _missing_object(exc):
            raise FileNotFoundError(key) from exc
        raise


class _Slice:
    """The next `length` bytes of an open file, read in blocks (a local span)."""

    def __init__(self, file: IO[bytes], length: int) -> None:
        self.file, self.left = file, length

    def read(self, size: int = -1) -> bytes:
        size = self.left if size < 0 else min(size, self.left)
        block = self.file.read(size) if size else b""
        self.left -= len(block)
        return block

    def close(self) -> None:
        self.file.close()


def presigned_url(stored: StoredVersion) -> str | None:
    """A signed URL of the bucket that serves this version's bytes, as an attachment under
    its name, for INGEST_S3_DOWNLOAD_REDIRECT_SECONDS; None when the storage is not S3 or
    redirects are off. Raises FileNotFoundError when nothing is stored there (a HEAD:
    the bucket would answer a missing key in its own words)."""
    seconds = settings.INGEST_S3_DOWNLOAD_REDIRECT_SECONDS
    s3: Any = default_storage  # django-storages' S3Storage takes `parameters` and `expire`
    if not seconds or not hasattr(s3, "bucket_name"):
        return None
    stored_size(stored.key)
    disposition = content_disposition_header(as_attachment=True, filename=stored.filename)
    parameters = {
        "ResponseContentDisposition": disposition,
        "ResponseContentType": "application/pdf",
    }
    return s3.url(stored.key, parameters=parameters, expire=seconds)


def _missing_object(exc: Exception) -> bool:
    """botocore's ClientError for a key that is not in the bucket."""
    error = getattr(exc, "response", None) or {}
    return error.get("Error", {}).get("Code") in ("404", "NoSuchKey")


def answer(stored: StoredVersion, headers: Any) -> HttpResponseBase:
    """The download of a stored version for a request with these headers: 302 to a signed
    URL of the bucket (presigned_url), else the bytes streamed, the whole file (200) or the
    one range its Range header asks for (206; RFC 9110). A Range with If-Range gets the
    whole file: no validator is sent, so none can match. Raises FileNotFoundError and
    Unsatisfiable."""
    url = presigned_url(stored)
    if url is not None:
        redirect = HttpResponseRedirect(url)
        redirect["Cache-Control"] = "private, no-store"  # the URL is a credential for a while
        return redirect
    span = None
    if "Range" in headers and "If-Range" not in headers:
        span = byte_range(headers["Range"], stored_size(stored.key))
    body, size = open_stored(stored.key, span)
    response = FileResponse(
        body, as_attachment=True, filename=stored.filename, content_type="application/pdf"
    )
    response["Accept-Ranges"] = "bytes"
    if span is not None:
        response.status_code = 206
        response["Content-Range"] = f"bytes {span[0]}-{span[1]}/{size}"
        response["Content-Length"] = str(span[1] - span[0] + 1)
    elif size is not None:
        response["Content-Length"] = str(size)
    return response
