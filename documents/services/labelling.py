"""A document's tags and metadata, replaced by its owner."""

import uuid
from typing import Any

from django.utils import timezone

from documents.models import Document


def relabel(
    *,
    document_id: uuid.UUID,
    owner_id: int,
    tags: list[str] | None = None,
    metadata: dict[str, Any] | None = None,
) -> Document:
    """Replace a document's tags and/or metadata (None: leave it); the document as now
    stored. Raises Document.DoesNotExist when it is not the owner's (or is gone)."""
    changes: dict[str, Any] = {}
    if tags is not None:
        changes["tags"] = tags
    if metadata is not None:
        changes["metadata"] = metadata
    mine = Document.objects.filter(id=document_id, owner_id=owner_id)
    if changes and not mine.update(**changes, updated_at=timezone.now()):
        raise Document.DoesNotExist(document_id)
    return mine.select_related("current_job").get()
