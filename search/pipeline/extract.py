"""Text extraction: each page's raw text, page numbers kept, read in a sandbox.

`extract_document` is what the service uses. The file is read by pdfminer.six in a child
process with bounded time and memory (search/pipeline/sandbox.py); the rules that tell a
damaged or encrypted file from a sound one are in search/pipeline/reader.py, and the one
that tells a scan from a text document in search/pipeline/classify.py.
"""

import os

from search.pipeline.page import Page
from search.pipeline.sandbox import read_in_sandbox

__all__ = ["Page", "extract_document"]  # Page lives in search/pipeline/page.py


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
