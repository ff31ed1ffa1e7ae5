"""A version's page as a PNG (GET /api/documents/{id}/pages/{n}.png, served by
documents/api/page_images.py): drawn once, then kept (documents/page_cache.py).

The drawing happens while the request waits, in the web process's time, so it is bounded:

- **Where.** Not in the web process: PDFium draws in the sandboxed child the workers read
  documents in (search/pipeline/sandbox), with its walls (no sockets, no new processes, no
  file but the one handed to it). The PDF was accepted, but drawing decodes the page's
  images, code that reading it never ran, and a child that hangs or is taken over is
  killed without the web process. Each web process keeps POOL_SIZE child started, which
  reads one owner's documents only, as in the workers: a drawing then takes tens of
  milliseconds, a fresh child about 0.2 s more.
- **How long.** DRAW_SECONDS of CPU time, and 1.5 times that in wall-clock time on a busy
  machine: past either, the child is killed and the answer is an error, never a request
  thread stuck for good.
- **How much.** One page, at most MAX_WIDTH pixels wide (search/pipeline/render.py caps its
  pixels), in a child held to INGEST_EXTRACT_MEMORY_MB.
- **How many at once.** DRAWS_AT_ONCE per web process; a request that waits BUSY_SECONDS
  for its turn is refused (Busy: 503 with Retry-After), so drawing can never take every
  thread that serves the API.

The child can open no file, so a file in object storage is first copied to a temporary
file, the whole of it, for each page drawn (kept pages cost nothing).
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from django.conf import settings
from django.core.files.storage import default_storage

from config.common import metrics
from documents import downloads, page_cache
from documents.content import Content
from search.models import DocumentPage
from search.pipeline.errors import PipelineError
from search.pipeline.sandbox.pool import Pool, shared_pool

MIN_WIDTH, DEFAULT_WIDTH, MAX_WIDTH = 100, 1000, 2000
DRAW_SECONDS = 10.0
DRAWS_AT_ONCE = 2
BUSY_SECONDS = 5.0
POOL_SIZE = 1
RECYCLE_AFTER = 200  # pages a child draws before it is replaced
COPY_BLOCK = 1 << 20

_turns = threading.BoundedSemaphore(DRAWS_AT_ONCE)


class Busy(Exception):
    """Every turn to draw was taken for BUSY_SECONDS."""


def page_count(found: Content) -> int | None:
    """How many pages the version has, as its reading recorded (None when not known)."""
    pages = DocumentPage.objects.filter(document_id=found.document.id, version=found.version)
    return pages.count() or found.job.pages_total or None


def image(found: Content, number: int, width: int) -> bytes:
    """Page `number` of the version as a PNG `width` pixels wide: the one kept, else drawn
    and kept. Raises Busy, FileNotFoundError when the version's file is not stored, the
    storage's own errors, and the drawing's (search/pipeline/sandbox: NoSuchPage,
    TooComplex, Corrupt, ExtractTimeout, TransientError)."""
    name = f"{found.job.id}-{number}-{width}"
    kept = page_cache.get(found.document.id, name)
    if kept is not None:
        metrics.PAGE_IMAGES.labels(outcome="cached", code="").inc()
        return kept
    drawn = _draw(found, number, width)
    page_cache.put(found.document.id, name, drawn)
    return drawn


def _draw(found: Content, number: int, width: int) -> bytes:
    if not _turns.acquire(timeout=BUSY_SECONDS):
        metrics.PAGE_IMAGES.labels(outcome="busy", code="").inc()
        raise Busy
    started = time.perf_counter()
    try:
        stored = downloads.stored_version(found.document, found.version)
        with _local_file(stored.key) as path:
            drawn = _pool().render_page(
                path,
                number=number,
                width=width,
                timeout=DRAW_SECONDS,
                owner=found.document.owner_id,
            )
    except PipelineError as exc:
        metrics.PAGE_IMAGES.labels(outcome="failed", code=exc.code).inc()
        raise
    except FileNotFoundError:
        metrics.PAGE_IMAGES.labels(outcome="failed", code="file_missing").inc()
        raise
    finally:
        _turns.release()
    metrics.PAGE_DRAW_SECONDS.observe(time.perf_counter() - started)
    metrics.PAGE_IMAGES.labels(outcome="drawn", code="").inc()
    return drawn


def _pool() -> Pool:
    return shared_pool(
        size=POOL_SIZE,
        recycle_after=RECYCLE_AFTER,
        memory_mb=settings.INGEST_EXTRACT_MEMORY_MB,
        extractor="pdfium",
    )


@contextlib.contextmanager
def _local_file(key: str) -> Iterator[Path]:
    """A path to the stored bytes: the file itself on local storage, a temporary copy from
    object storage. Raises FileNotFoundError when nothing is stored at `key`."""
    try:
        local = Path(default_storage.path(key))
    except NotImplementedError:  # object storage
        local = None
    if local is not None:
        if not local.is_file():
            raise FileNotFoundError(key)
        yield local
        return
    body, _ = downloads.open_stored(key)
    with tempfile.NamedTemporaryFile(suffix=PurePosixPath(key).suffix) as copy:
        try:
            shutil.copyfileobj(body, copy, COPY_BLOCK)
        finally:
            body.close()
        copy.flush()
        yield Path(copy.name)
