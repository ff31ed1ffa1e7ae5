"""Deleting webhook events whose documents or owner are gone. An event names its document
by id only (no foreign key's cascade reaches it), so the documents app asks for this in
the transaction that deletes the documents; an event's deliveries and their attempts go
with it by cascade."""

import uuid

from jobs.webhooks.models import Event


def delete_events_of_documents(document_ids: list[uuid.UUID]) -> int:
    """The documents' events, with their deliveries (pending ones too); how many events."""
    deleted, _ = Event.objects.filter(document_id__in=document_ids).delete()
    return deleted


def delete_events_of_owner(owner_id: int, *, batch: int) -> None:
    """Every event left of an account (documents deleted earlier), `batch` at a time."""
    events = Event.objects.filter(owner_id=owner_id)
    while ids := list(events.values_list("id", flat=True)[:batch]):
        Event.objects.filter(id__in=ids).delete()
