"""Streaming validation of uploaded files, before anything is stored.

`GuardedUploadHandler` replaces Django's upload handlers for the upload endpoints. It
checks each file while its bytes stream in: the size limit stops writing the moment it
is passed, the file's type is decided from its first bytes (search/file_types.py: a type
the service does not read is refused there and then), and files past the per-request
limit are not written at all. It also hashes each file on the way, so the upload service
never reads it again.
"""

import hashlib
import io
from dataclasses import dataclass, field
from typing import TypeAlias

from django.conf import settings
from django.core.files.uploadedfile import (
    InMemoryUploadedFile,
    TemporaryUploadedFile,
    UploadedFile,
)
from django.core.files.uploadhandler import FileUploadHandler, StopFutureHandlers
from django.http import HttpRequest
from rest_framework import status
from rest_framework.exceptions import APIException

from config.common import humanize
from documents.acceptance import (
    EMPTY,
    HEAD_BYTES,
    Rejection,
    decide,
    size_limit,
    too_large,
)
from documents.filenames import display_name
from search.file_types import FileType


def too_many_files() -> Rejection:
    limit = settings.INGEST_MAX_FILES_PER_REQUEST
    return Rejection("too_many_files", f"At most {limit} files can be sent in one request.", 400)


@dataclass
class RejectedFile:
    """Stands in request.FILES for a file that broke a rule; its bytes were discarded."""

    name: str
    rejection: Rejection


# What request.FILES holds for a request parsed by GuardedUploadHandler.
ReceivedFile: TypeAlias = UploadedFile | RejectedFile


class RequestTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "request_too_large"
    default_detail = "The request is larger than the upload limits allow."


# The name Django's temporary upload file is made with: only its suffix shows.
TEMPORARY_NAME = "upload.bin"


@dataclass
class _Current:
    name: str  # display_name of the sent name: what every later step sees
    content_type: str
    charset: str | None
    size: int = 0
    head: bytes = b""
    digest: "hashlib._Hash" = field(default_factory=hashlib.sha256)
    # In memory up to FILE_UPLOAD_MAX_MEMORY_SIZE, then a named temporary file that
    # FileSystemStorage can move into place instead of copying. None once rejected.
    spool: io.BytesIO | TemporaryUploadedFile | None = None
    rejection: Rejection | None = None
    kind: FileType | None = None  # decided once HEAD_BYTES are in (or the file ends)

    def write(self, data: bytes) -> None:
        if isinstance(self.spool, io.BytesIO) and self.size > settings.FILE_UPLOAD_MAX_MEMORY_SIZE:
            # Django names the temporary file after the upload's extension, and a name
            # with a 300-character one made that file's name too long for the file
            # system (a 500). Its name on disk is ours; the sent name is kept apart.
            on_disk = TemporaryUploadedFile(TEMPORARY_NAME, self.content_type, 0, self.charset)
            on_disk.name = self.name
            on_disk.write(self.spool.getbuffer())
            self.spool = on_disk
        assert self.spool is not None  # only a rejected file has none, and it gets no writes
        self.spool.write(data)

    def finish(self) -> UploadedFile:
        assert self.spool is not None  # only a rejected file has none, and it is not finished
        self.spool.seek(0)
        if isinstance(self.spool, TemporaryUploadedFile):
            self.spool.size = self.size
            return self.spool
        return InMemoryUploadedFile(
            self.spool, "file", self.name, self.content_type, self.size, self.charset
        )


class GuardedUploadHandler(FileUploadHandler):
    chunk_size = 256 * 1024  # fewer, larger reads than Django's 64 KiB

    def __init__(self, request: HttpRequest | None = None) -> None:
        super().__init__(request)
        self.max_bytes = settings.INGEST_MAX_UPLOAD_BYTES
        self.max_files = settings.INGEST_MAX_FILES_PER_REQUEST
        self.count = 0
        self.current: _Current | None = None

    # Django passes the boundary as bytes (MultiPartParser encodes it); django-stubs says str.
    def handle_raw_input(  # type: ignore[override]
        self,
        input_data: object,
        META: dict,
        content_length: int,
        boundary: bytes,
        encoding: str | None = None,
    ) -> None:
        # A body bigger than every allowed file together is refused before it is read.
        ceiling = self.max_files * self.max_bytes + 1024 * 1024
        if content_length and content_length > ceiling:
            raise RequestTooLarge(
                f"The request has {humanize.size(content_length)}; at most {self.max_files} files "
                f"of {humanize.size(self.max_bytes)} each are accepted."
            )

    def new_file(
        self,
        field_name: str,
        file_name: str,
        content_type: str,
        content_length: int | None,
        charset: str | None = None,
        content_type_extra: dict | None = None,
    ) -> None:
        super().new_file(
            field_name, file_name, content_type, content_length, charset, content_type_extra
        )
        self.count += 1
        # Cleaned once, here: a sent name may be 900 characters, or hold control
        # characters or lone surrogates that Postgres and the file system refuse.
        self.current = _Current(
            name=display_name(file_name), content_type=content_type, charset=charset
        )
        if self.count > self.max_files:
            self.current.rejection = too_many_files()
        else:
            self.current.spool = io.BytesIO()
        raise StopFutureHandlers()

    def receive_data_chunk(self, raw_data: bytes, start: int) -> None:
        current = self.current
        if current is None or current.rejection is not None:
            return None  # discarded: only counted against nothing, never written
        current.size += len(raw_data)
        if current.size > self.max_bytes or current.size > size_limit(current.kind):
            self._reject(current, too_large(current.kind))
            return None
        if current.kind is None:
            current.head += raw_data[: HEAD_BYTES - len(current.head)]
            if len(current.head) >= HEAD_BYTES and not self._decide(current):
                return None
        current.digest.update(raw_data)
        current.write(raw_data)
        return None

    # A RejectedFile stands in request.FILES for a refused file (MultiPartParser keeps
    # whatever this returns); django-stubs allows only an UploadedFile or None.
    def file_complete(self, file_size: int) -> ReceivedFile:  # type: ignore[override]
        current = self.current
        assert current is not None  # Django calls new_file before each file_complete
        self.current = None
        if current.rejection is None and current.size == 0:
            current.rejection = EMPTY
        elif current.rejection is None and current.kind is None:
            self._decide(current)
        if current.rejection is not None:
            if current.spool is not None:
                current.spool.close()
            return RejectedFile(name=current.name, rejection=current.rejection)
        upload = current.finish()
        # Attributes of our own on Django's object, read back by services.sha256_of and
        # services.type_of.
        setattr(upload, "sha256", current.digest.hexdigest())  # noqa: B010
        setattr(upload, "file_type", current.kind)  # noqa: B010
        return upload

    def _decide(self, current: _Current) -> bool:
        """Decide the file's type from its head; False (and the file rejected) when it
        is refused, or already past its type's size limit."""
        decided = decide(current.head, current.name, current.size)
        if isinstance(decided, Rejection):
            self._reject(current, decided)
            return False
        current.kind = decided
        return True

    def _reject(self, current: _Current, rejection: Rejection) -> None:
        assert current.spool is not None  # a file is rejected once; until then it has a spool
        current.rejection = rejection
        current.spool.close()
        current.spool = None
