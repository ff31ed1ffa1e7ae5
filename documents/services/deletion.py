"""Deleting a document with all it has, and its stored files after commit."""

import logging
import uuid

from django.core.files.storage import default_storage
from django.db import (
    transaction,
)

from documents.models import Document
from jobs import services as jobs
from jobs.webhooks.erasure import delete_events_of_documents

log = logging.getLogger(__name__)


def delete_document(*, document_id: uuid.UUID, owner_id: int) -> None:
    """Delete a document, its jobs and chunks, its webhook events and their deliveries,
    then (after commit) its stored files.

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
