"""Documents a search cannot see yet: the first version still being processed."""

import uuid

from documents.labels import as_q
from documents.models import Document
from jobs.models import IN_FLIGHT_STATUSES
from search.retrieval.scope import NO_FILTERS, Filters


def pending_documents(
    *, owner_id: int, document_id: uuid.UUID | None = None, filters: Filters = NO_FILTERS
) -> int:
    """The owner's documents (or that one; or those `filters` keep) with no ready version
    and a job queued or processing: a search answers without them, and says how many."""
    documents = Document.objects.filter(
        owner_id=owner_id, ready_version__isnull=True, current_job__status__in=IN_FLIGHT_STATUSES
    )
    if document_id is not None:
        documents = documents.filter(id=document_id)
    if filters:
        documents = documents.filter(as_q(filters))
    return documents.count()
