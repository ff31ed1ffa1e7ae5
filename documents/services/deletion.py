"""Deleting a document with all it has, and its stored files after commit."""

import logging
import uuid
from collections.abc import Callable

from django.core.files.storage import default_storage
from django.db import (
    transaction,
)
from django.db.models import F
from django.db.models.functions import Greatest

from documents import page_cache
from documents.models import Document
from jobs import services as jobs
from jobs.models import Job
from jobs.webhooks.erasure import delete_events_of_documents

log = logging.getLogger(__name__)


def delete_document(*, document_id: uuid.UUID, owner_id: int) -> None:
    """Delete a document, its jobs and chunks, its webhook events and their deliveries,
    then (after commit) its stored files and the page images this host keeps of it.

    A worker still processing it finds its job row gone: its conditional writes change
    nothing and its chunk inserts fail on the document foreign key, so nothing comes
    back. Raises Document.DoesNotExist for another owner's document.
    """
    with transaction.atomic():
        document = (
            Document.objects.select_for_update(of=("self",))
            .select_related("current_job")
            .get(id=document_id, owner_id=owner_id)
        )
        keys = {document.storage_key, *document.jobs.values_list("storage_key", flat=True)}
        current = document.current_job
        delete_events_of_documents([document.id])  # and their deliveries, pending ones too
        document.delete()
        transaction.on_commit(lambda: delete_files(keys))
        transaction.on_commit(lambda: page_cache.forget(document_id))
        if current is not None:  # the owner's other pages drop the row
            jobs.deleted_with_document(job=current)


def delete_files(keys: set[str]) -> None:
    """Delete each stored file; one that cannot be is logged and left to verify_storage
    (or cleanup_orphans), and a second erasure."""
    for key in keys:
        try:
            default_storage.delete(key)
        except Exception:
            log.warning("could not delete %s; verify_storage --fix will", key, exc_info=True)


BATCH = 200


def erase_documents(
    *, owner_id: int, batch: int = BATCH, on_batch: Callable[[int], None] | None = None
) -> int:
    """Delete every document of the account, a batch a transaction; how many.
    `on_batch(done)` hears of each batch."""
    done = 0
    while True:
        with transaction.atomic():
            rows = list(
                Document.objects.select_for_update(of=("self",))
                .filter(owner_id=owner_id)
                .order_by()
                .values_list("id", "storage_key")[:batch]
            )
            if not rows:
                return done
            ids = [document_id for document_id, _ in rows]
            keys = {key for _, key in rows} | set(
                Job.objects.filter(document_id__in=ids).values_list("storage_key", flat=True)
            )
            delete_events_of_documents(ids)
            Document.objects.filter(id__in=ids).delete()
            transaction.on_commit(lambda keys=keys: delete_files(keys))  # type: ignore[misc]
            for document_id in ids:
                transaction.on_commit(lambda d=document_id: page_cache.forget(d))  # type: ignore[misc]
        done += len(rows)
        if on_batch is not None:
            on_batch(done)


def release_stored_bytes(*, document_id: uuid.UUID, size: int) -> None:
    """Take a deleted file's bytes off its document's storage count (retention)."""
    Document.objects.filter(id=document_id).update(
        stored_bytes=Greatest(F("stored_bytes") - size, 0)
    )
