"""Text extraction: each page's raw text, page numbers kept, read in a sandbox.

`extract_document` is what the service uses. The file is read in a child process with
bounded time and memory (search/pipeline/sandbox.py), one of a few kept warm in each worker
process (search/pipeline/pool.py), by the extractor INGEST_EXTRACTOR names; the rules that
tell a damaged or encrypted file from a sound one are in search/pipeline/reader.py, and the
one that tells a scan from a text document in search/pipeline/classify.py.
"""

import os

from django.conf import settings

from search.pipeline.page import OnPages, Page
from search.pipeline.pool import shared_pool

__all__ = ["Page", "extract_document"]  # Page lives in search/pipeline/page.py


def extract_document(
    path: str | os.PathLike[str],
    *,
    max_pages: int,
    timeout: float,
    memory_mb: int,
    owner: int | None = None,
    on_pages: OnPages | None = None,
) -> list[Page]:
    """Each page's raw (uncleaned) text, read in a child process.

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
    pool = shared_pool(
        size=settings.INGEST_EXTRACT_POOL_SIZE,
        recycle_after=settings.INGEST_EXTRACT_POOL_RECYCLE_AFTER,
        memory_mb=memory_mb,
        extractor=settings.INGEST_EXTRACTOR,
    )
    texts = pool.read(path, max_pages=max_pages, timeout=timeout, owner=owner, on_pages=on_pages)
    return [Page(number, text) for number, text in enumerate(texts, start=1)]
