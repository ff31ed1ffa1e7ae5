"""Deliveries are fair between owners: at most INGEST_WEBHOOK_MAX_CONCURRENT_PER_USER of
one owner's attempts are in flight at once, so an owner whose receivers hang holds that
many of the deliverer's threads and no more, and everyone else's go ahead.

How it holds:
- A claim (delivery._claim) takes the owner's lock and counts the owner's attempts in
  flight. At the limit it leaves the delivery pending and due, with no message: parked.
- When one of the owner's attempts ends, the owner's next in line are sent, as many as
  there are free slots (`send_next`).
- A new event's deliveries are sent only as far as the owner has free slots; the rest
  are parked from the start. So the queue never holds an owner's backlog in front of
  another owner's delivery: a thread meets at most a few messages that end parked, each
  one short transaction.
- The sweeper sends a parked delivery whose owner has nothing in flight (after a worker
  died mid-attempt, once its claim has run out), as it sends any lost message.
"""

from collections.abc import Sequence
from datetime import datetime

from django.conf import settings
from django.db.models import Exists, OuterRef
from django.utils import timezone

from config.common import locks
from jobs.webhooks.models import Delivery
from jobs.webhooks.sending import dispatch


def limit() -> int:
    return settings.INGEST_WEBHOOK_MAX_CONCURRENT_PER_USER


def in_flight(owner_id: int, now: datetime) -> int:
    return Delivery.objects.in_flight(now).filter(owner_id=owner_id).count()


def _free_slots(owner_id: int, now: datetime) -> int:
    return max(0, limit() - in_flight(owner_id, now))


def has_slot(owner_id: int, now: datetime) -> bool:
    """Whether one more of the owner's attempts may start; holds the owner's lock for
    the rest of the transaction, so that two claims at once count one after the other."""
    locks.hold(f"ingest.webhooks:{owner_id}")
    return in_flight(owner_id, now) < limit()


def sendable(owner_id: int, delivery_ids: Sequence[int]) -> list[int]:
    """Those of an owner's new deliveries to send now: as many as the owner has free slots."""
    ids = list(delivery_ids)
    if not ids:
        return []
    return ids[: _free_slots(owner_id, timezone.now())]


def send_next(owner_id: int) -> list[int]:
    """After one of the owner's attempts ended: send the owner's oldest due deliveries,
    as many as there are free slots, after commit; returns their ids."""
    now = timezone.now()
    free = _free_slots(owner_id, now)
    if not free:
        return []
    ids = list(
        Delivery.objects.due(now)
        .filter(owner_id=owner_id)
        .first_in_line()
        .order_by("created_at", "id")
        .values_list("id", flat=True)[:free]
    )
    dispatch.send_on_commit(ids)
    return ids


def owner_busy(now: datetime) -> Exists:
    """For a delivery queryset: its owner has an attempt in flight, whose end sends the
    owner's next in line."""
    return Exists(Delivery.objects.in_flight(now).filter(owner_id=OuterRef("owner_id")))
