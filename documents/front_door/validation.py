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
from pathlib import PurePosixPath
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
from documents.filenames import display_name
from search import file_types
from search.file_types import FileType

PDF_MAGIC = b"%PDF-"
MAGIC_WINDOW = 1024  # the PDF header may follow some junk; pdfminer looks this far too
HEAD_BYTES = file_types.HEAD_BYTES  # what the type is decided on
# What the refusals list as read.
READ_TYPES = (
    "PDF, images (PNG, JPEG, TIFF, WebP), Word (.docx), PowerPoint (.pptx), Excel (.xlsx), "
    "OpenDocument (.odt, .odp, .ods), web pages (.html), Markdown, plain text and e-mail (.eml)"
)


@dataclass(frozen=True)
class Rejection:
    code: str
    detail: str
    http_status: int


def size_limit(kind: FileType | None) -> int:
    """The largest file of `kind` accepted (None: the type is not known yet)."""
    if kind in TEXT_TYPES:
        return min(settings.INGEST_MAX_UPLOAD_BYTES, settings.INGEST_MAX_TEXT_BYTES)
    return settings.INGEST_MAX_UPLOAD_BYTES


def too_large(kind: FileType | None = None) -> Rejection:
    limit = size_limit(kind)
    if kind in TEXT_TYPES and limit < settings.INGEST_MAX_UPLOAD_BYTES:
        detail = (
            f"This file ({kind.said}) is larger than the limit of {humanize.size(limit)} for text."
        )
        return Rejection("too_large", detail, 413)
    return Rejection(
        "too_large", f"The file is larger than the limit of {humanize.size(limit)}.", 413
    )


# Types whose reader holds the whole text at once: a smaller limit of their own.
TEXT_TYPES = (file_types.HTML, file_types.MARKDOWN, file_types.TEXT)
EMPTY = Rejection("empty", "The file is empty.", 400)
NOT_A_PDF = Rejection(
    "not_a_pdf",
    f"The file is not a PDF: no %PDF- header in its first {MAGIC_WINDOW} bytes.",
    415,
)
LEGACY = Rejection(
    "legacy_office_format",
    "This is an older Microsoft Office document (.doc, .xls or .ppt), which is not read: "
    "save it as .docx, .xlsx or .pptx (or as a PDF) and send that.",
    415,
)


def unsupported_type(said: str | None) -> Rejection:
    seen = f"it looks like {said}" if said else "its first bytes match no type read here"
    return Rejection(
        "unsupported_type",
        f"This type of file is not read ({seen}). The service reads {READ_TYPES}.",
        415,
    )


def decide(head: bytes, name: str, size: int = 0) -> FileType | Rejection:
    """The type of a file that starts with `head` (its first HEAD_BYTES, or the whole of
    a shorter one), is named `name` and has `size` bytes so far, or why it is refused. The
    bytes decide; the name only tells a file named like a binary type whose bytes are
    text, or match nothing (then damaged or mislabelled: refused, as `not_a_pdf` when it
    is named .pdf). Text is refused too when `size` passes the limit for text; every
    type's common limit is the caller's to check (a direct upload's is another)."""
    found = file_types.detect(head, name=name)
    suffix = PurePosixPath(name.lower()).suffix
    if isinstance(found, file_types.Unsupported):
        if found.said is None and suffix == ".pdf":  # bytes of nothing known: a broken PDF?
            return NOT_A_PDF
        return LEGACY if found.legacy else unsupported_type(found.said)
    if file_types.mislabelled(found, name):
        if suffix == ".pdf":
            return not_a_pdf(head)
        return Rejection(
            "unsupported_type",
            f"The file is named {suffix} but holds only text: it may be damaged. Send the "
            "file again, or name it for what it is.",
            415,
        )
    if found in TEXT_TYPES and size > size_limit(found):  # read whole: a limit of its own
        return too_large(found)
    return found


def not_a_pdf(head: bytes) -> Rejection:
    """NOT_A_PDF for a file named .pdf with no PDF header, saying what it looks like."""
    found = file_types.detect(head)
    said = found.said
    if said is None:
        return NOT_A_PDF
    if found in (file_types.TEXT, file_types.MARKDOWN):  # a PDF after too much junk?
        said = f"plain text, with no %PDF- header in its first {MAGIC_WINDOW} bytes"
    return Rejection(
        NOT_A_PDF.code,
        f"Its name says PDF, but it is not one (it looks like {said}).",
        NOT_A_PDF.http_status,
    )


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
