"""Run one claimed job through the pipeline: extract → clean → split → embed → store."""

import itertools
import logging
from collections.abc import Iterator

from django.conf import settings
from django.core.files.storage import default_storage
from django.db import transaction

from documents.models import Document
from jobs import services
from jobs.models import Job
from search.pipeline.clean import clean_text
from search.pipeline.embed import embed
from search.pipeline.errors import NoText, PermanentError
from search.pipeline.extract import Page, extract_pages
from search.pipeline.split import Piece, split_pages
from search.pipeline.store import delete_stale_chunks, upsert_chunks

log = logging.getLogger(__name__)


class LostJob(Exception):
    """Another attempt owns the job now; this one stops without writing more."""


def run(job: Job) -> None:
    """Process a job this worker has claimed, ending it succeeded or failed.

    Permanent errors end the job as failed with their code. Other errors put the job
    back in the queue and propagate to Dramatiq's retries, until INGEST_MAX_ATTEMPTS.
    """
    try:
        pieces = _pieces(job)
        _store(job, pieces)
    except PermanentError as exc:
        services.mark_failed(job=job, code=exc.code, detail=exc.detail)
    except LostJob:
        log.info("job %s: lost to another attempt; stopping", job.id)
    except Exception as exc:
        # Unknown errors count as transient: back to the queue and let Dramatiq retry,
        # until the attempts run out.
        detail = f"{type(exc).__name__}: {exc}"
        if job.attempts >= settings.INGEST_MAX_ATTEMPTS:
            services.mark_failed(
                job=job,
                code="retries_exhausted",
                detail=f"Gave up after {job.attempts} attempts. Last error: {detail}",
            )
            return
        if not services.release_for_retry(job=job, code="transient", detail=detail):
            # The job was deleted or taken over meanwhile (which may be what broke this
            # attempt, e.g. its file is gone): nothing is left to retry.
            log.info("job %s: lost while failing (%s); dropping", job.id, detail)
            return
        raise


def _pieces(job: Job) -> list[Piece]:
    with default_storage.open(job.document.storage_key, "rb") as fp:
        pages = [Page(page.number, clean_text(page.text)) for page in extract_pages(fp)]
    Document.objects.filter(id=job.document_id).update(page_count=len(pages))
    pieces = list(
        split_pages(pages, size=settings.INGEST_CHUNK_SIZE, overlap=settings.INGEST_CHUNK_OVERLAP)
    )
    if not any(any(ch.isalnum() for ch in piece.text) for piece in pieces):
        raise NoText("No text layer: it looks scanned; OCR is not enabled.")
    return pieces


def _batches(pieces: list[Piece], size: int) -> Iterator[list[Piece]]:
    iterator = iter(pieces)
    while batch := list(itertools.islice(iterator, size)):
        yield batch


def _store(job: Job, pieces: list[Piece]) -> None:
    total = len(pieces)
    done = 0
    for batch in _batches(pieces, settings.INGEST_EMBED_BATCH):
        vectors = embed([piece.text for piece in batch])
        # Progress doubles as the ownership check: a job deleted or taken over while
        # this batch was embedded gets no chunks written.
        if not services.record_progress(job=job, done=done, total=total):
            raise LostJob
        upsert_chunks(
            document_id=job.document_id, version=job.version, pieces=batch, vectors=vectors
        )
        done += len(batch)
    with transaction.atomic():
        delete_stale_chunks(document_id=job.document_id, version=job.version, count=total)
        if not services.mark_succeeded(job=job, total=total):
            transaction.set_rollback(True)
            raise LostJob
