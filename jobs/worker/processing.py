"""Run one claimed job through the pipeline: extract → clean → split → embed → store (or,
for an embedding change, only embed its stored chunks again: _embed_again).

Every write is conditional on this attempt still holding the job, and the result
becomes visible in one transaction with the job's success. How each kind of failure
ends is decided here, once: permanent errors fail the job, everything else retries.

Two passing troubles are ridden out inside the attempt instead, because retrying the
job would throw away its extracted text and send it behind the queue for longer than
the trouble lasted: a database restart (each write is tried again on a new connection
while it comes back, config/common/reconnect.py) and a provider asking for a pause (a 429's
cool-down, shared by every worker, is waited out for up to
INGEST_EMBED_MAX_WAIT_SECONDS per attempt, and the same batch sent again).
"""

import contextlib
import itertools
import logging
import tempfile
import time
import traceback
import uuid
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path, PurePosixPath
from typing import IO, TypeVar

from django.conf import settings
from django.core.files.storage import default_storage
from django.db import DatabaseError, InterfaceError, connection, transaction
from dramatiq.middleware.time_limit import TimeLimitExceeded

from config.common import metrics
from config.common.reconnect import UNREACHABLE, when_database_answers
from config.common.unavailable import (
    STORAGE_RETRY_SECONDS,
    STORAGE_WAIT_SECONDS,
    storage_unavailable,
)
from jobs import services
from jobs.models import Job, Lane, Stage
from jobs.worker.document_records import records as documents
from jobs.worker.lease import LeaseKeeper
from search.embedding import embed
from search.embedding.signature import current_signature
from search.pipeline import layout
from search.pipeline.clean import clean_text
from search.pipeline.errors import ExtractTimeout, PermanentError, RateLimited, TransientError
from search.pipeline.extract import Page, pages_to_index, read_document
from search.pipeline.layout.model import Structure
from search.pipeline.page import OcrOrder
from search.pipeline.split import Piece, split_pages
from search.pipeline.store import (
    delete_chunks_of_version,
    delete_stale_chunks,
    delete_stale_structure,
    delete_structure_of_version,
    replace_vectors,
    stored_chunks,
    upsert_chunks,
    upsert_structure,
)
from search.pipeline.structured import split_structure

log = logging.getLogger(__name__)
T = TypeVar("T")
# What a database that went away raises: an error from the server, or a connection closed.
DatabaseErrors = (DatabaseError, InterfaceError)


class LostJob(Exception):
    """Another attempt owns the job now, or it is gone; this one stops writing."""


class _NeedsOcr(Exception):
    """The text layer is read and some pages need OCR: the job goes on to the OCR lane;
    `why` says so of the pages whose text layer cannot be read."""

    def __init__(self, pages: int, why: str = "") -> None:
        super().__init__(pages)
        self.pages, self.why = pages, why


def run(job: Job) -> None:
    """Process a job this worker has claimed, ending it succeeded, failed, or queued
    again for a retry. Never raises for anything the job itself caused."""
    with LeaseKeeper(job) as lease:
        try:
            _process(job, lease)
        except LostJob:
            log.info("job %s: lost to another attempt or deleted; stopping", job.id)
        except _NeedsOcr as needs:
            handed = services.hand_to_ocr(job=job, pages=needs.pages, why=needs.why)
            if handed == services.Outcome.LOST:
                log.info("job %s: lost before it could go on to the OCR lane", job.id)
            else:
                log.info("job %s: %s pages to read by OCR; on to the OCR lane", job.id, needs.pages)
        except PermanentError as exc:
            services.fail_job(job=job, code=exc.code, detail=exc.detail, tb=_tb())
        except ExtractTimeout as exc:
            # The attempt before timed out reading too: the file is heavy, not the machine
            # busy (job.error_code still holds the last attempt's code at claim time).
            if job.error_code == exc.code:
                final = exc.for_good()
                services.fail_job(job=job, code=final.code, detail=final.detail, tb=_tb())
            else:
                _retry(job, exc.code, exc.detail, retry_after=exc.retry_after)
        except TransientError as exc:
            _retry(job, exc.code, exc.detail, retry_after=exc.retry_after)
        except TimeLimitExceeded:
            limit = settings.INGEST_JOB_TIME_LIMIT_SECONDS
            _retry(job, "timeout", f"The attempt ran past its time limit of {limit} s.")
        except DatabaseError as exc:
            _retry_when_database_answers(job, f"Lost the database: {type(exc).__name__}: {exc}")
        except Exception as exc:
            # Unknown errors count as transient, with their class and message kept.
            _retry(job, "unexpected_error", f"{type(exc).__name__}: {exc}")


def _tb() -> str:
    return traceback.format_exc()


def _retry(job: Job, code: str, detail: str, retry_after: float | None = None) -> None:
    outcome = services.retry_or_fail(
        job=job, code=code, detail=detail, tb=_tb(), retry_after=retry_after
    )
    log.info("job %s: %s after %s (%s)", job.id, outcome, code, detail)


def _retry_when_database_answers(job: Job, detail: str) -> None:
    """Put the job back for a retry once the database answers again (a restart takes a
    second or two). If it stays away, the lease expires and the sweeper takes the job
    back; nothing here can lose it."""
    connection.close()  # the old connection may have died with the server
    try:
        when_database_answers(lambda: _retry(job, "connection", detail))
    except UNREACHABLE:
        log.warning("job %s: database still away; the sweeper will take it", job.id)


def _check(job: Job, lease: LeaseKeeper) -> None:
    if lease.lost.is_set():
        raise LostJob


def _write(write: Callable[..., T], **arguments: object) -> T:
    """`write(**arguments)`, one of this attempt's writes (each is safe to repeat:
    conditional or an upsert), tried again on a new connection while a database restart
    lasts."""
    return when_database_answers(lambda: write(**arguments))


# The shared rate limiter's Redis restarting: tried again this often.
LIMITER_RETRY_SECONDS = 1.0


def _embed(texts: list[str], lease: LeaseKeeper) -> list[list[float]]:
    """The batch's vectors. A 429, or the shared limiter's Redis restarting, is waited
    out here while this attempt's waits stay within INGEST_EMBED_MAX_WAIT_SECONDS (the
    limiter makes every worker wait out the provider's Retry-After before its next
    call); past that, the error retries the job."""
    deadline = time.monotonic() + settings.INGEST_EMBED_MAX_WAIT_SECONDS
    while True:
        try:
            return embed(texts)
        except TransientError as exc:
            if isinstance(exc, RateLimited):
                pause = exc.retry_after or 0.0
            elif exc.code == "connection":
                pause = LIMITER_RETRY_SECONDS
                time.sleep(pause)
            else:
                raise
            if lease.lost.is_set() or time.monotonic() + pause > deadline:
                raise
            log.info("embedding: %s; sending the batch again in %.1f s", exc.code, pause)


def _process(job: Job, lease: LeaseKeeper) -> None:
    if job.embed_only:
        chunks = _write(stored_chunks, document_id=job.document_id, version=job.version)
        if chunks:
            _embed_again(job, chunks, lease)
            return
        # None to embed again (a change of dimensions deleted them): read the file.
    pages, structure = _extract(job, lease)
    _check(job, lease)
    size, overlap = settings.INGEST_CHUNK_SIZE, settings.INGEST_CHUNK_OVERLAP
    if structure is not None:
        pieces = split_structure(structure, size=size, overlap=overlap)
    else:
        pieces = list(split_pages(pages, size=size, overlap=overlap))
    _store(job, pieces, lease, pages=len(pages), structure=structure)


# Pages named one by one when the history says why their text cannot be read.
UNREADABLE_LISTED = 5

# The pages read are written to the job at most this often while the reader goes (each a
# small UPDATE that also renews the heartbeat); the count itself is written at once.
PAGES_WRITE_SECONDS = 0.5


class _PagesRead:
    """Hears of the pages the reader has read (read_document's `on_pages`, or by OCR its
    `on_scans`: `stage`) and writes them to the job, throttled: the owner sees "Reading
    pages 12 / 117" move. Best effort: a write the database refuses is skipped (the next
    one may pass, and the job's own writes ride out a restart). Raises LostJob when the
    attempt lost the job, which stops the reader at once."""

    def __init__(self, job: Job, stage: str = Stage.EXTRACTING) -> None:
        self.job = job
        self.stage = stage
        self.written = -PAGES_WRITE_SECONDS

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done and now - self.written < PAGES_WRITE_SECONDS:
            return
        self.written = now
        try:
            held = services.record_pages(job=self.job, done=done, total=total, stage=self.stage)
        except DatabaseErrors:
            log.info("job %s: could not record the pages read", self.job.id, exc_info=True)
            connection.close()  # it may have died with the server: the next write opens anew
            return
        if not held:
            raise LostJob


@contextlib.contextmanager
def _local_file(key: str, lease: LeaseKeeper) -> Iterator[Path]:
    """A path to the stored bytes: the file itself on local storage, a temporary copy
    from object storage (fetched again while the S3 server cannot be reached, for up to
    STORAGE_WAIT_SECONDS)."""
    try:
        yield Path(default_storage.path(key))
        return
    except NotImplementedError:
        pass
    deadline = time.monotonic() + STORAGE_WAIT_SECONDS
    with tempfile.NamedTemporaryFile(suffix=PurePosixPath(key).suffix) as copy:
        while True:
            try:
                _copy_stored(key, copy)
                break
            except Exception as exc:
                if not storage_unavailable(exc):
                    raise
                if lease.lost.is_set() or time.monotonic() > deadline:
                    raise TransientError(
                        f"The file storage did not answer for {STORAGE_WAIT_SECONDS:.0f} s: "
                        f"{type(exc).__name__}: {exc}",
                        code="storage_unavailable",
                    ) from exc
                log.info("storage unavailable (%s); reading %s again", exc, key)
                time.sleep(STORAGE_RETRY_SECONDS)
        yield Path(copy.name)


def _copy_stored(key: str, copy: IO[bytes]) -> None:
    copy.seek(0)
    copy.truncate()
    with default_storage.open(key, "rb") as src:
        for block in iter(lambda: src.read(1024 * 1024), b""):
            copy.write(block)
    copy.flush()


def ocr_order(lane: str) -> OcrOrder | None:
    """What a job of `lane` asks of OCR: none with INGEST_OCR=off; in the OCR lane, to
    read the pages that need it; elsewhere, to find them."""
    if settings.INGEST_OCR == "off":
        return None
    return OcrOrder(
        mode="read" if lane == Lane.OCR else "find",
        force=settings.INGEST_OCR == "force",
        dpi=settings.INGEST_OCR_DPI,
        max_pixels=settings.INGEST_OCR_MAX_PIXELS,
        page_seconds=settings.INGEST_OCR_PAGE_SECONDS,
        max_pages=settings.INGEST_OCR_MAX_PAGES,
    )


def _extract(job: Job, lease: LeaseKeeper) -> tuple[list[Page], Structure | None]:
    """Pages of cleaned text, read in a sandboxed child process (time and memory bound),
    by OCR where they need it in the OCR lane; with INGEST_STRUCTURE on, the document's
    structure (None when PDFium did not read it). Raises _NeedsOcr when the job should go
    on to that lane, the pipeline's permanent errors (NoText for a document with no text
    anywhere) or Timeout."""
    order = ocr_order(job.lane)
    reading = order is not None and order.mode == "read"
    with _local_file(job.storage_key, lease) as path:
        check = partial(documents().check_sha256, document_id=job.document_id, path=path)
        if mismatch := when_database_answers(check):
            raise PermanentError(mismatch, code="checksum_mismatch")
        extracted = read_document(
            path,
            max_pages=settings.INGEST_MAX_PAGES,
            timeout=(
                settings.INGEST_OCR_TIMEOUT_SECONDS
                if reading
                else settings.INGEST_EXTRACT_TIMEOUT_SECONDS
            ),
            memory_mb=settings.INGEST_EXTRACT_MEMORY_MB,
            owner=job.owner_id,  # a warm reader serves one owner only
            on_pages=_PagesRead(job),
            ocr=order,
            on_scans=_PagesRead(job, Stage.OCR),
            structure=settings.INGEST_STRUCTURE == "on",
        )
    if order is not None and not reading and extracted.scans:
        raise _NeedsOcr(len(extracted.scans), unreadable_said(extracted.unreadable))
    raw = pages_to_index(extracted, order)
    if reading:
        metrics.OCR_PAGES.inc(len(extracted.scans))
    pages = [Page(page.number, clean_text(page.text), page.source, page.confidence) for page in raw]
    metrics.PAGES.inc(len(pages))
    paged = extracted.structure is None or extracted.structure.paged
    # Only the newest version describes the document.
    _write(
        documents().record_page_count,
        document_id=job.document_id,
        version=job.version,
        pages=len(pages) if paged else None,
    )
    _write(
        documents().record_what_it_says,
        document_id=job.document_id,
        version=job.version,
        said=extracted.metadata,
    )
    if extracted.attachments:
        _check(job, lease)
        _write(
            documents().add_attachments,
            document_id=job.document_id,
            version=job.version,
            attachments=extracted.attachments,
        )
    return pages, extracted.structure


def unreadable_said(unreadable: dict[int, str]) -> str:
    """Why pages go to OCR though they have text, for the job's history: "page 2: its
    glyphs map to no character; pages 3, 4: its letters make no words"."""
    pages_by_why: dict[str, list[int]] = {}
    for number, why in sorted(unreadable.items()):
        pages_by_why.setdefault(why, []).append(number)
    parts = []
    for why, numbers in pages_by_why.items():
        shown = ", ".join(map(str, numbers[:UNREADABLE_LISTED]))
        more = (
            f" and {len(numbers) - UNREADABLE_LISTED} more"
            if len(numbers) > UNREADABLE_LISTED
            else ""
        )
        parts.append(f"{'pages' if len(numbers) > 1 else 'page'} {shown}{more}: {why}")
    return "; ".join(parts)


def _batches(items: list[T], size: int) -> Iterator[list[T]]:
    iterator = iter(items)
    while batch := list(itertools.islice(iterator, size)):
        yield batch


def _embed_again(job: Job, chunks: list[tuple[uuid.UUID, str]], lease: LeaseKeeper) -> None:
    """An embedding change (Job.embed_only): the version's stored `chunks` (id, text)
    embedded again by the configured embedding and their vectors overwritten in place,
    reading no file. Their ids and texts stay, and so does every citation of them; the
    document's record of what made its vectors changes with the job's success, so until
    then the vector side of a search leaves it out (search/retrieval/vector.py) and its
    text finds it."""
    total, done = len(chunks), 0
    for batch in _batches(chunks, settings.INGEST_EMBED_BATCH):
        vectors = _embed([text for _, text in batch], lease)
        _check(job, lease)
        done += len(batch)
        ids = [chunk_id for chunk_id, _ in batch]
        _write(_store_vectors, job=job, ids=ids, vectors=vectors, done=done, total=total)
    _write(_complete, job=job, total=total, structure=None, text_kept=True)


def _store_vectors(
    *, job: Job, ids: list[uuid.UUID], vectors: list[list[float]], done: int, total: int
) -> None:
    """One batch's new vectors, fenced as a batch of chunks is (_store_batch)."""
    with transaction.atomic():
        if not services.record_progress(job=job, done=done, total=total, write="chunks"):
            raise LostJob
        replace_vectors(ids=ids, vectors=vectors)


def _store(
    job: Job,
    pieces: list[Piece],
    lease: LeaseKeeper,
    *,
    pages: int,
    structure: Structure | None,
) -> None:
    total = len(pieces)
    done = 0
    # The file is read (`pages` of `pages`) and split: the owner sees the chunks' count
    # now, not after the first batch; the structure is written with it.
    _write(_store_structure, job=job, total=total, pages=pages, structure=structure)
    for batch in _batches(pieces, settings.INGEST_EMBED_BATCH):
        vectors = _embed([piece.text for piece in batch], lease)
        _check(job, lease)
        _write(
            _store_batch, job=job, batch=batch, vectors=vectors, done=done, total=total, pages=pages
        )
        done += len(batch)
    _write(_complete, job=job, total=total, structure=structure)


def _store_structure(*, job: Job, total: int, pages: int, structure: Structure | None) -> None:
    """The version's pages and blocks, fenced as a batch of chunks is (_store_batch)."""
    with transaction.atomic():
        if not services.record_progress(job=job, done=0, total=total, pages=pages):
            raise LostJob
        if structure is not None:
            upsert_structure(document_id=job.document_id, version=job.version, structure=structure)


def _store_batch(
    *, job: Job, batch: list[Piece], vectors: list[list[float]], done: int, total: int, pages: int
) -> None:
    """One batch's chunks, fenced: in one transaction with the attempt's progress, whose
    UPDATE names the attempt's lease. A job taken over (or deleted) while the batch was
    embedded refuses that UPDATE, and the batch is not written (LostJob); a takeover
    after it waits on the row lock until the batch is in. Either way a stale attempt
    lands no chunk."""
    with transaction.atomic():
        done += len(batch)
        if not services.record_progress(
            job=job, done=done, total=total, pages=pages, write="chunks"
        ):
            raise LostJob
        upsert_chunks(
            document_id=job.document_id, version=job.version, pieces=batch, vectors=vectors
        )


def _complete(
    *, job: Job, total: int, structure: Structure | None, text_kept: bool = False
) -> None:
    """The attempt's success and the version's chunks made visible, in one transaction.
    `text_kept`: only the vectors were made again (_embed_again), so what read the text,
    and the version's structure, stay as they were."""
    with transaction.atomic():
        ready = documents().lock_for_completion(document_id=job.document_id)
        signature = current_signature()
        if text_kept:
            extracted_by = services.extracted_by(document_id=job.document_id, version=job.version)
        else:
            extracted_by = layout.READER if settings.INGEST_STRUCTURE == "on" else layout.FLAT
        outcome = services.complete_job(
            job=job,
            total=total,
            ready_version=ready,
            embed_model=signature,
            extracted_by=extracted_by,
        )
        if outcome == services.Outcome.LOST:
            transaction.set_rollback(True)
            raise LostJob
        if outcome == services.Outcome.SUPERSEDED:
            delete_chunks_of_version(document_id=job.document_id, version=job.version)
            delete_structure_of_version(document_id=job.document_id, version=job.version)
            return
        documents().make_ready(
            document_id=job.document_id, version=job.version, embed_model=signature
        )
        delete_stale_chunks(document_id=job.document_id, version=job.version, count=total)
        if text_kept:
            return
        delete_stale_structure(
            document_id=job.document_id,
            version=job.version,
            pages=len(structure.pages) if structure else 0,
            blocks=len(structure.blocks) if structure else 0,
        )
