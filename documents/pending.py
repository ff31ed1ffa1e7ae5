"""Documents a search cannot see yet: the first version still being processed."""

import uuid

from documents.models import Document
from jobs.models import IN_FLIGHT_STATUSES


def pending_documents(*, owner_id: int, document_id: uuid.UUID | None = None) -> int:
    """The owner's documents (or that one) with no ready version and a job queued or
    processing: a search answers without them, and says how many there are."""
    documents = Document.objects.filter(
        owner_id=owner_id, ready_version__isnull=True, current_job__status__in=IN_FLIGHT_STATUSES
    )
    if document_id is not None:
        documents = documents.filter(id=document_id)
    return documents.count()
