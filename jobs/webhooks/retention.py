"""Webhook events past INGEST_RETAIN_DAYS with no delivery still pending go, with their
deliveries and attempts (the cascade), a few batches a sweep (documents/upkeep/retention.py says
what else the sweeper prunes)."""

from datetime import datetime

from django.db import transaction
from django.db.models import Q

from config.common import metrics
from config.common.pruning import in_batches, retention_cutoff
from jobs.webhooks.models import DeliveryStatus, Event

BATCH = 500
BATCHES_PER_PASS = 4


def every_pass(*, now: datetime | None = None) -> int:
    """Prune a few batches of old events; how many went (ingest_pruned_total{kind=events})."""
    before = retention_cutoff(now)
    total = in_batches(
        lambda: prune_events(before=before, batch=BATCH), batch=BATCH, batches=BATCHES_PER_PASS
    )
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
