"""Recovery for deliveries, on each pass of the sweeper (jobs/sweeper.py, on_each_pass): a pending
delivery whose message never left (the broker was down at commit), or was lost (a
flushed Redis, a worker that died mid-attempt), is sent again. The database is the
record; a duplicate message is harmless (the claim drops it), a lost one would not be.
"""

import logging
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from jobs.sweeper import broker_started_at
from jobs.webhooks.models import Delivery, DeliveryStatus
from jobs.webhooks.sending import dispatch, fair_share

log = logging.getLogger(__name__)

# A delivery this recent may still be on its way: its on-commit send has not run.
UNSENT_GRACE_SECONDS = 10
# A sent delivery due this long ago and not picked up: its message is taken as lost. A
# claim lasts delivery.CLAIM_SECONDS, so a worker that died mid-attempt costs both.
GRACE_SECONDS = 60


def resend_due(*, grace: float = GRACE_SECONDS, limit: int = 1000) -> list[int]:
    """Send again what waits without a message; returns the ids sent. Safe in several
    sweepers at once: rows are picked FOR UPDATE SKIP LOCKED and stamped (`enqueued_at`)
    before the lock is released, so the next sweeper's pass skips them."""
    now = timezone.now()
    with transaction.atomic():
        ids = list(
            Delivery.objects.select_for_update(skip_locked=True, of=("self",))
            .filter(_lost(now, grace, broker_started_at()))
            .first_in_line()
            .exclude(fair_share.owner_busy(now))
            .order_by("created_at")
            .values_list("id", flat=True)[:limit]
        )
        Delivery.objects.filter(id__in=ids).update(enqueued_at=now)
    if not ids:
        return []
    sent = dispatch.send(ids)
    unsent = set(ids) - set(sent)
    if unsent:
        # Picked again on the next pass, as never sent.
        Delivery.objects.filter(id__in=unsent).update(enqueued_at=None)
        log.warning("webhooks: %d deliveries could not be sent; next sweep", len(unsent))
    return sent


def _lost(now: datetime, grace: float, broker_started: datetime | None) -> Q:
    never_sent = Q(
        enqueued_at__isnull=True,
        created_at__lt=now - timedelta(seconds=UNSENT_GRACE_SECONDS),
    )
    # Sent `grace` ago and due (its retry, or a dead worker's claim, ended) `grace` ago.
    before = now - timedelta(seconds=grace)
    overdue = Q(enqueued_at__lt=before) & (
        Q(next_attempt_at__isnull=True) | Q(next_attempt_at__lt=before)
    )
    lost = never_sent | overdue
    if broker_started is not None:
        # Sent to a Redis that has restarted since, and due: its message went with it.
        due = Q(next_attempt_at__isnull=True) | Q(next_attempt_at__lte=now)
        lost |= Q(enqueued_at__lt=broker_started) & due
    return Q(status=DeliveryStatus.PENDING) & lost
