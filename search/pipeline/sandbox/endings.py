"""How a reading in the sandbox ended, in the pipeline's errors (search/pipeline/errors.py).

A bomb must end once, not once per retry. Memory is simple: a reader that needs more than
the limit needs it every time, so that is `too_complex` at once. So is time, counted as the
CPU time the reader used: that is the file's own weight, whatever else the machine is doing,
and a retry would need just as much. A reader killed at the wall-clock deadline before it
got its CPU time was starved by a busy machine, and a later attempt may well finish:
`timeout`, which is transient. The job layer decides what a second one in a row means
(errors.ExtractTimeout.for_good).
"""

import base64
import signal
from dataclasses import dataclass
from typing import TypedDict

from search.pipeline.errors import (
    Corrupt,
    Encrypted,
    ExtractTimeout,
    NoSuchPage,
    NotAPdf,
    PermanentError,
    TooComplex,
    TooManyPages,
    TransientError,
)
from search.pipeline.layout.model import KINDS, Structure
from search.pipeline.page import Attachment, Reading, Scanned

# What a reader out of memory leaves on stderr (compared in lower case): Python's
# MemoryError, or a C or C++ library's (PDFium's) failed allocation.
OUT_OF_MEMORY = ("memoryerror", "std::bad_alloc", "out of memory", "cannot allocate memory")

# The errors a child may report: known-bad input, so they are permanent.
PERMANENT_ERRORS: dict[str, type[PermanentError]] = {
    error.code: error for error in (NotAPdf, Encrypted, Corrupt, TooManyPages, TooComplex)
}


class ErrorPayload(TypedDict):
    code: str
    detail: str


class PagesPayload(TypedDict):
    done: int  # pages read so far
    total: int  # pages in the file


class Payload(TypedDict, total=False):
    """One answer from the child: `pages` (each page's raw text) or `error`, and `cpu`
    (the child's CPU seconds so far); asked for the structure, `structure` (a
    model.Structure's dict; none when PDFium did not read the file); asked about OCR,
    also `scans` (the 0-based indexes of the pages that need it), `unreadable` ([index,
    why] of those whose text layer cannot be read) and `scanned` ([index, text,
    confidence] of each page OCR read). Its first answer says it is `ready`, and
    which `walls` it could put up (sandbox.put_up_walls). While it reads, frames with
    only `progress` (the pages read so far; `ocr` when by OCR) come before the answer.
    A type with a reader of its own (search/pipeline/formats) also gives `metadata` (what
    the file says of itself: an e-mail's headers) and `attachments` ([name, media type,
    bytes in base64] each). Asked to draw a page, `png` (the image, in base64), or `error`
    and, for a page the file does not have, `page_count`."""

    pages: list[str]
    structure: dict
    scans: list[int]
    scanned: list[list]
    unreadable: list[list]
    error: ErrorPayload
    cpu: float
    ready: bool
    walls: dict
    progress: PagesPayload
    png: str
    page_count: int
    metadata: dict
    attachments: list[list]


@dataclass(frozen=True)
class Ending:
    """How a child stopped answering."""

    returncode: int | None
    killed_for: str | None  # by the parent: "cpu" past the CPU time, "wall" past the deadline
    cpu: float  # CPU seconds the child spent on this document
    stderr_tail: str


def reading_or_error(payload: Payload, *, memory_mb: int) -> Reading:
    """What a child's answer says it read, or the error it reported (permanent, or a page
    OCR could not finish on a busy machine). The child parses untrusted bytes: an answer
    that does not add up is a garbled one (ValueError)."""
    if "pages" in payload:
        texts = payload["pages"]
        if not (isinstance(texts, list) and all(isinstance(text, str) for text in texts)):
            raise ValueError("pages that are not texts")
        return Reading(
            texts,
            _scans(payload.get("scans", []), len(texts)),
            _scanned(payload, len(texts)),
            _structure(payload.get("structure"), len(texts)),
            _unreadable(payload.get("unreadable", []), len(texts)),
            _metadata(payload.get("metadata", {})),
            _attachments(payload.get("attachments", [])),
        )
    error = payload.get("error")
    if error and error.get("code") in PERMANENT_ERRORS:
        raise PERMANENT_ERRORS[error["code"]](error["detail"])
    if error and error.get("code") == ExtractTimeout.code:
        raise ExtractTimeout(str(error.get("detail", ""))[:500])
    raise TransientError(f"The PDF reader answered {str(payload)[:200]}", code="extractor_crashed")


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def picture_or_error(payload: Payload) -> bytes:
    """The PNG a child drew (search/pipeline/render.py), or the error it reported:
    NoSuchPage with the file's page count, or another permanent one. An answer that is no
    PNG is a garbled one (ValueError)."""
    if "png" in payload:
        picture = base64.b64decode(
            str(payload["png"]), validate=True
        )  # binascii.Error: a ValueError
        if not picture.startswith(PNG_SIGNATURE):
            raise ValueError("a picture that is no PNG")
        return picture
    error = payload.get("error")
    pages = payload.get("page_count")
    if error and error.get("code") == NoSuchPage.code and isinstance(pages, int):
        raise NoSuchPage(str(error.get("detail", ""))[:500], pages=pages)
    if error and error.get("code") in PERMANENT_ERRORS:
        raise PERMANENT_ERRORS[error["code"]](error["detail"])
    raise TransientError(f"The PDF reader answered {str(payload)[:200]}", code="extractor_crashed")


def _structure(structure: object, pages: int) -> Structure | None:
    if structure is None:
        return None
    try:
        read = Structure.from_dict(structure)  # type: ignore[arg-type]
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"a structure that does not add up: {exc}") from None
    if len(read.pages) != pages:
        raise ValueError("a structure of another page count")
    if any(not 1 <= block.page <= pages or block.kind not in KINDS for block in read.blocks):
        raise ValueError("a block on no page of the file, or of no known kind")
    return read


def _metadata(metadata: object) -> dict[str, str]:
    if not isinstance(metadata, dict):
        raise ValueError("metadata that is not an object")
    found = {}
    for key, value in metadata.items():
        if not (isinstance(key, str) and isinstance(value, str)):
            raise ValueError(f"metadata of {str(key)[:50]}: {str(value)[:50]}")
        found[key[:64]] = value[:1000]
    return found


def _attachments(entries: object) -> list[Attachment]:
    if not isinstance(entries, list):
        raise ValueError("attachments that are not a list")
    found = []
    for entry in entries:
        match entry:
            case [str() as name, str() as media_type, str() as data]:
                found.append(Attachment(name, media_type, base64.b64decode(data, validate=True)))
            case _:
                raise ValueError(f"an attachment of {str(entry)[:100]}")
    return found


def _unreadable(entries: object, pages: int) -> dict[int, str]:
    if not isinstance(entries, list):
        raise ValueError("unreadable pages that are not a list")
    found: dict[int, str] = {}
    for entry in entries:
        match entry:
            case [int() as index, str() as why] if _is_index(index, pages):
                found[index] = why[:200]
            case _:
                raise ValueError(f"an unreadable page of {str(entry)[:100]}")
    return found


def _scans(scans: object, pages: int) -> list[int]:
    if not (isinstance(scans, list) and all(_is_index(index, pages) for index in scans)):
        raise ValueError("scans that are not page indexes")
    return scans


def _scanned(payload: Payload, pages: int) -> dict[int, Scanned]:
    scanned: dict[int, Scanned] = {}
    for entry in payload.get("scanned", []):
        match entry:
            case [int() as index, str() as text, float() | int() as confidence] if (
                _is_index(index, pages) and 0 <= confidence <= 1
            ):
                scanned[index] = Scanned(text, float(confidence))
            case _:
                raise ValueError(f"an OCR'd page of {str(entry)[:100]}")
    return scanned


def _is_index(index: object, pages: int) -> bool:
    return isinstance(index, int) and not isinstance(index, bool) and 0 <= index < pages


def failure(
    ending: Ending, *, timeout: float, wall: float, memory_mb: int, aborts_on_oom: bool = False
) -> Exception:
    """The error to raise for a child that was killed or died without answering.

    `aborts_on_oom`: the reader is PDFium, a C++ library that calls abort() when an
    allocation fails under the child's memory limit (where pdfminer raises MemoryError):
    its SIGABRT is the file's doing, so the job fails once as too_complex rather than
    being retried as a crash.
    """
    # SIGXCPU: its own CPU limit, reached when the parent was not watching.
    if ending.killed_for == "cpu" or ending.returncode == -signal.SIGXCPU:
        return TooComplex(heavy_detail(timeout, ending.cpu))
    if ending.killed_for == "wall":
        return ExtractTimeout(
            f"Reading the PDF took longer than {wall:g} s on a busy machine "
            f"(the reader got {ending.cpu:.1f} s of CPU time of the {timeout:g} s it may use)."
        )
    if any(marker in ending.stderr_tail.lower() for marker in OUT_OF_MEMORY):
        return TooComplex(memory_detail(memory_mb))
    if aborts_on_oom and ending.returncode == -signal.SIGABRT:
        return TooComplex(memory_detail(memory_mb))
    return TransientError(
        f"The PDF reader stopped unexpectedly ({_describe(ending.returncode)}). "
        f"{_last_line(ending.stderr_tail)}".strip(),
        code="extractor_crashed",
    )


def heavy_detail(timeout: float, cpu: float) -> str:
    return (
        f"Reading the PDF takes more than {timeout:g} s of CPU time: the reader used "
        f"{cpu:.1f} s and had not finished."
    )


def memory_detail(memory_mb: int) -> str:
    return (
        f"Reading the PDF needs more than {memory_mb} MB of memory; it may be a decompression bomb."
    )


def _describe(returncode: int | None) -> str:
    if returncode is None:
        return "still running"
    if returncode < 0:
        return f"killed by {signal.Signals(-returncode).name}"
    return f"exit status {returncode}"


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""
