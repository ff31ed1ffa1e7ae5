"""A deleted document's webhook events: they name it by id only, so no foreign key's
cascade reaches them; deleting a document deletes them here, in its transaction."""

import uuid

from jobs.webhooks.models import Event


def forget_events(document_ids: list[uuid.UUID]) -> int:
    """The documents' webhook events, with their deliveries (pending ones too) and
    attempts; how many events."""
    deleted, _ = Event.objects.filter(document_id__in=document_ids).delete()
    return deleted
