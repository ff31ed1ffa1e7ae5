"""Webhook events past INGEST_RETAIN_DAYS with no delivery still pending go, with their
deliveries and attempts (the cascade), a few batches a sweep (documents/retention.py says
what else the sweeper prunes)."""

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from config import metrics
from jobs.webhooks.models import DeliveryStatus, Event

BATCH = 500
BATCHES_PER_PASS = 4


def every_pass(*, now: datetime | None = None) -> int:
    """Prune a few batches of old events; how many went (ingest_pruned_total{kind=events})."""
    before = (now or timezone.now()) - timedelta(days=settings.INGEST_RETAIN_DAYS)
    total = 0
    for _ in range(BATCHES_PER_PASS):
        count = prune_events(before=before, batch=BATCH)
        total += count
        if count < BATCH:
            break
    if total:
        metrics.PRUNED.labels("events").inc(total)
    return total


def prune_events(*, before: datetime, batch: int) -> int:
    """One batch of at most `batch` events older than `before` with no delivery pending;
    how many were deleted."""
    with transaction.atomic():
        ids = list(
            Event.objects.filter(created_at__lt=before)
            .exclude(Q(deliveries__status=DeliveryStatus.PENDING))
            .values_list("id", flat=True)[:batch]
        )
        Event.objects.filter(id__in=ids).delete()
    return len(ids)
