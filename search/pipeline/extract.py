"""Text extraction: each page's raw text, page numbers kept, read in a sandbox.

`extract_document` is what the service uses. The file is read by pdfminer.six in a child
process with bounded time and memory (search/pipeline/sandbox.py); the rules that tell a
damaged or encrypted file from a sound one are in search/pipeline/reader.py, and the one
that tells a scan from a text document in search/pipeline/classify.py.
"""

import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

from search.pipeline.sandbox import read_in_sandbox

# Enough for any real document; extract_pages has no INGEST_MAX_PAGES to apply.
UNBOUNDED_PAGES = 1_000_000


@dataclass(frozen=True)
class Page:
    number: int  # 1-based
    text: str


def extract_document(
    path: str | os.PathLike[str], *, max_pages: int, timeout: float, memory_mb: int
) -> list[Page]:
    """Each page's raw (uncleaned) text, read in a child process.

    Permanent (fail at once): NotAPdf, Encrypted, Corrupt, TooManyPages (more than
    `max_pages`, found before any page is read), TooComplex (needs more than `memory_mb` MB).
    Transient (retry): Timeout (more than `timeout` seconds), TransientError with code
    "extractor_crashed" (the reader died some other way). OSError if `path` is missing.
    Pages are returned even when they hold no text: see classify.classify_text.
    """
    texts = read_in_sandbox(path, max_pages=max_pages, timeout=timeout, memory_mb=memory_mb)
    return [Page(number, text) for number, text in enumerate(texts, start=1)]


def extract_file(fp: BinaryIO, *, max_pages: int, timeout: float, memory_mb: int) -> list[Page]:
    """extract_document for an open file, e.g. from default_storage (which may be S3).

    The child reads a path, so the bytes are copied to a temporary file first, removed
    afterwards. Same result and errors as extract_document.
    """
    with tempfile.NamedTemporaryFile(prefix="extract-", suffix=".pdf") as copy:
        shutil.copyfileobj(fp, copy)
        copy.flush()
        return extract_document(
            copy.name, max_pages=max_pages, timeout=timeout, memory_mb=memory_mb
        )


def extract_pages(fp: BinaryIO) -> Iterator[Page]:
    """Each page's raw text, read in this process: nothing bounds its time or memory.

    For trusted files and tests only. Same rules and errors as extract_document, less
    Timeout, TooComplex and extractor_crashed.
    """
    # Imported here: a worker that reads PDFs only through the sandbox never loads pdfminer.
    from search.pipeline.reader import read_pdf

    texts = read_pdf(fp, max_pages=UNBOUNDED_PAGES)
    yield from (Page(number, text) for number, text in enumerate(texts, start=1))
