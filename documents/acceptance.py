"""Which files the service takes, and why it refuses the others, in words a person
understands: one rule for uploads through the web (front_door/validation.py), direct
uploads finished from the bucket (direct/completion.py) and an e-mail's attachments
(services/processing.py). The bytes decide a file's type (search/file_types.py)."""

from dataclasses import dataclass
from pathlib import PurePosixPath

from django.conf import settings

from config.common import humanize
from search import file_types
from search.file_types import FileType

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
_NO_HEADER = (
    f"no {file_types.PDF_MAGIC.decode()} header in its first {file_types.PDF_MAGIC_WINDOW} bytes"
)
NOT_A_PDF = Rejection("not_a_pdf", f"The file is not a PDF: {_NO_HEADER}.", 415)
# A file named .pdf whose bytes are words only (a PDF after too much junk?).
TEXT_NAMED_PDF = Rejection(
    NOT_A_PDF.code,
    f"Its name says PDF, but it is not one (it looks like plain text, with {_NO_HEADER}).",
    NOT_A_PDF.http_status,
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
            return TEXT_NAMED_PDF
        return Rejection(
            "unsupported_type",
            f"The file is named {suffix} but holds only text: it may be damaged. Send the "
            "file again, or name it for what it is.",
            415,
        )
    if found in TEXT_TYPES and size > size_limit(found):  # read whole: a limit of its own
        return too_large(found)
    return found
