"""Delivery ids to the broker, by name, after commit: the deliverer actor
(jobs/webhooks/actors.py, `deliver_webhook` on the `webhooks` queue) is never imported by
the processes that write events. A failed send leaves `enqueued_at` empty and the sweeper
sends it later."""

import logging
from collections.abc import Iterable

from django.db import transaction
from django.utils import timezone

from jobs.queue import enqueue_by_name
from jobs.webhooks.models import Delivery, DeliveryStatus

log = logging.getLogger(__name__)

ACTOR_NAME = "deliver_webhook"
QUEUE_NAME = "webhooks"


def send_on_commit(delivery_ids: Iterable[int], *, delay_seconds: float = 0) -> None:
    ids = list(delivery_ids)
    if ids:
        transaction.on_commit(lambda: send(ids, delay_seconds=delay_seconds))


def send(delivery_ids: list[int], *, delay_seconds: float = 0) -> list[int]:
    """Send each id now (after `delay_seconds`) and stamp `enqueued_at`; returns the ids
    the broker took."""
    sent = []
    delay_ms = int(delay_seconds * 1000) or None
    for delivery_id in delivery_ids:
        try:
            enqueue_by_name(QUEUE_NAME, ACTOR_NAME, delivery_id, delay_ms=delay_ms)
        except Exception:
            log.warning("could not send delivery %s; the sweeper will", delivery_id, exc_info=True)
            continue
        sent.append(delivery_id)
    if sent:
        Delivery.objects.filter(id__in=sent, status=DeliveryStatus.PENDING).update(
            enqueued_at=timezone.now()
        )
    return sent
