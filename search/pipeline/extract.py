"""Text extraction: each page's raw text, page numbers kept, read in a sandbox.

`extract_document` is what the service uses. The file is read in a child process with
bounded time and memory (search/pipeline/sandbox/process.py), one of a few kept warm in each worker
process (search/pipeline/sandbox/pool.py), by the extractor INGEST_EXTRACTOR names; the rules that
tell a damaged or encrypted file from a sound one are in search/pipeline/reader.py, and the
one that tells a scan from a text document in search/pipeline/classify.py. Asked to, the
child also finds the pages that need OCR, or reads them (search/pipeline/ocr.py): OCR
children are a pool of their own, started with the engine's languages.
"""

import os
from dataclasses import dataclass, field

from django.conf import settings

from search.pipeline.classify import (
    NO_IMAGES_DETAIL,
    NO_TEXT_DETAIL,
    OCR_FOUND_NOTHING,
    classify_text,
    has_text,
    takes_ocr,
)
from search.pipeline.errors import NoText
from search.pipeline.layout.model import Structure
from search.pipeline.page import Attachment, OcrOrder, OnPages, Page
from search.pipeline.sandbox.pool import shared_pool

__all__ = [
    "Extracted",
    "Page",
    "extract_document",
    "pages_to_index",
    "read_document",
]  # Page lives in search/pipeline/page.py


@dataclass(frozen=True)
class Extracted:
    """Each page's raw text (from OCR where it was read and found more), the page
    numbers (1-based) that need OCR, whether or not it was read, and the document's
    structure when it was asked for and read (a page that took OCR's text, from the words
    OCR read); and why, for those pages sent to OCR because their text layer cannot be
    read (by page number). A type with a reader of its own (search/pipeline/formats)
    also says what the file says of itself, and what came attached to it."""

    pages: list[Page]
    scans: list[int]
    structure: Structure | None = None
    unreadable: dict[int, str] = field(default_factory=dict)
    metadata: dict[str, str] = field(default_factory=dict)  # what the file says of itself
    attachments: list[Attachment] = field(default_factory=list)


def extract_document(
    path: str | os.PathLike[str],
    *,
    max_pages: int,
    timeout: float,
    memory_mb: int,
    owner: int | None = None,
    on_pages: OnPages | None = None,
) -> list[Page]:
    """Each page's raw (uncleaned) text from its text layer, read in a child process.

    Permanent (fail at once): NotAPdf, Encrypted, Corrupt, TooManyPages (more than
    `max_pages`, found before any page is read), TooComplex (needs more than `memory_mb` MB,
    or more than `timeout` seconds of CPU time). Transient (retry): ExtractTimeout (the reader
    did not get that CPU time within 1.5 x `timeout` seconds: a busy machine;
    errors.ExtractTimeout.for_good says what a second one means),
    TransientError "extractor_crashed" (the reader died some other way). OSError if
    `path` is missing. Pages are returned even when they hold no text: see
    classify.classify_text. `owner`: whose document it is; a warm child reads one owner's
    documents only. `on_pages(read, total)` hears of the pages read as the child goes: the
    count first (0 read), then every quarter of a second or so; what it raises is raised
    here, and the child stopped.
    """
    extracted = read_document(
        path,
        max_pages=max_pages,
        timeout=timeout,
        memory_mb=memory_mb,
        owner=owner,
        on_pages=on_pages,
    )
    return extracted.pages


def read_document(
    path: str | os.PathLike[str],
    *,
    max_pages: int,
    timeout: float,
    memory_mb: int,
    owner: int | None = None,
    on_pages: OnPages | None = None,
    ocr: OcrOrder | None = None,
    on_scans: OnPages | None = None,
    structure: bool = False,
) -> Extracted:
    """As extract_document, and with `ocr`: the pages that need OCR ("find"), or those
    pages read by OCR ("read", by a child of the OCR pool: INGEST_OCR_LANGUAGES,
    INGEST_OCR_MEMORY_MB), `on_scans` hearing of them as they are read. A page OCR read
    takes its text when OCR found more than the text layer has (with `force`: any text).

    Raises as extract_document, and for OCR (search/pipeline/ocr.py): TooManyPages past
    `ocr.max_pages` pages to read, TooComplex for a page past the pixel cap or its CPU
    time, ExtractTimeout for one a busy machine starved.
    """
    reading_ocr = ocr is not None and ocr.mode == "read"
    pool = shared_pool(
        size=settings.INGEST_EXTRACT_POOL_SIZE,
        recycle_after=settings.INGEST_EXTRACT_POOL_RECYCLE_AFTER,
        memory_mb=settings.INGEST_OCR_MEMORY_MB if reading_ocr else memory_mb,
        extractor=settings.INGEST_EXTRACTOR,
        ocr_languages=settings.INGEST_OCR_LANGUAGES if reading_ocr else "",
        tessdata=settings.INGEST_OCR_TESSDATA if reading_ocr else "",
    )
    reading = pool.read_pages(
        path,
        max_pages=max_pages,
        timeout=timeout,
        owner=owner,
        on_pages=on_pages,
        ocr=ocr,
        on_scans=on_scans,
        structure=structure,
    )
    pages = []
    for index, text in enumerate(reading.texts):
        page = Page(index + 1, text)
        scanned = reading.scanned.get(index)
        # A page whose text layer cannot be read takes whatever OCR found on it.
        force = bool(ocr and ocr.force) or index in reading.unreadable
        if scanned is not None and takes_ocr(text, scanned.text, force=force):
            page = Page(index + 1, scanned.text, source="ocr", confidence=scanned.confidence)
        pages.append(page)
    return Extracted(
        pages,
        [index + 1 for index in reading.scans],
        reading.structure,
        {index + 1: why for index, why in reading.unreadable.items()},
        reading.metadata,
        reading.attachments,
    )


def pages_to_index(extracted: Extracted, ocr: OcrOrder | None) -> list[Page]:
    """The pages of `extracted` worth indexing, read with `ocr` (None: OCR is off), or
    NoText saying why there are none.

    Read by OCR: a page where OCR found nothing is no error, and only a document with no
    text anywhere is NoText (OCR found none). Otherwise classify.classify_text's rules,
    saying that OCR is off, or that no page holds an image OCR could read.
    """
    pages = extracted.pages
    if ocr is not None and ocr.mode == "read" and extracted.scans:
        if not has_text(pages):
            read = len(extracted.scans)
            raise NoText(OCR_FOUND_NOTHING.format(pages=f"{read} page{'s' if read != 1 else ''}"))
        return pages
    classify_text(pages, detail=NO_TEXT_DETAIL if ocr is None else NO_IMAGES_DETAIL)
    return pages
