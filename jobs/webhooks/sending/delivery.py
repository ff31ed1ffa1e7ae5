"""Delivering one event to one URL: claim, POST, record, and what follows.

No transaction is held across the HTTP call: a short one claims the delivery (the attempt
counted, `next_attempt_at` pushed past the attempt's end so a duplicate message finds it
not due), the POST runs outside, another records what it met. A worker that dies
between them leaves the claim to expire, and the sweeper (sweep.py) sends it again.

Order: a document's events reach a URL in the order they happened. A delivery with an
earlier pending one for the same URL and document waits; when that one ends (delivered,
failed or disabled) it sends the next in line.
"""

import logging
import random
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Max, Q
from django.utils import timezone

from config.common.reconnect import when_database_answers
from jobs.webhooks import endpoints
from jobs.webhooks.models import (
    Delivery,
    DeliveryAttempt,
    DeliveryStatus,
    Endpoint,
    signing_secrets,
)
from jobs.webhooks.network import addresses, client
from jobs.webhooks.sending import dispatch, fair_share, signing

log = logging.getLogger(__name__)

MINUTE, HOUR = 60.0, 3600.0
# A claimed delivery is not due again for this long: past an attempt's 10 s and the
# actor's 30 s time limit. A worker that dies mid-attempt delays the retry this much.
CLAIM_SECONDS = 35.0
# Clocks of workers and of whoever scheduled the message differ a little.
DUE_SLACK_SECONDS = 1.0
# Answers whose Retry-After is honoured.
RETRY_AFTER_STATUSES = frozenset({429, 503})


@dataclass(frozen=True)
class Schedule:
    """How long to wait after each failed attempt: `delays[n - 1]` after the n-th (the
    last one repeats if INGEST_WEBHOOK_MAX_ATTEMPTS asks for more), each ± `jitter` (a
    fraction) so that a receiver back from an outage is not hit by every retry at once;
    never sooner than a 429's or 503's Retry-After, itself capped at `retry_after_cap`."""

    delays: tuple[float, ...] = (
        30,
        2 * MINUTE,
        5 * MINUTE,
        15 * MINUTE,
        30 * MINUTE,
        HOUR,
        3 * HOUR,
        6 * HOUR,
        12 * HOUR,
    )  # about 23 hours from the first attempt to the tenth
    jitter: float = 0.2
    retry_after_cap: float = 6 * HOUR

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        base = self.delays[min(max(attempt, 1), len(self.delays)) - 1]
        delay = base * random.uniform(1 - self.jitter, 1 + self.jitter)
        if retry_after is not None:
            delay = max(delay, min(retry_after, self.retry_after_cap))
        return delay


# Read at each delivery: the tests shrink it (a Schedule of fractions of a second).
SCHEDULE = Schedule()


@dataclass(frozen=True)
class Claim:
    delivery: Delivery  # with its event and endpoint
    number: int  # `attempts` after the claim: the outcome is recorded only if unchanged
    secrets: tuple[str, ...]  # signs with each: a rotated secret's grace window


def deliver(
    delivery_id: int, *, limits: client.Limits = client.LIMITS, schedule: Schedule | None = None
) -> client.Answer | None:
    """One attempt at a pending, due delivery, and its outcome recorded; None (nothing
    done) when it is not pending, not due (another worker claimed it), parked (its owner
    has no free slot), or waits behind an earlier event of the same document to the same
    URL."""
    claim = when_database_answers(lambda: _claim(delivery_id))
    if claim is None:
        return None
    started_at = timezone.now()
    answer = _attempt(claim, limits)
    when_database_answers(lambda: _record(claim, started_at, answer, schedule or SCHEDULE))
    return answer


def redeliver(delivery_ids: Iterable[int]) -> list[int]:
    """Back to pending, attempts from zero, sent after commit (the admin's bulk action):
    the same event, so the same `webhook-id`. Deliveries to a disabled endpoint stay as
    they are. Returns the ids put back."""
    with transaction.atomic():
        ids = list(
            Delivery.objects.select_for_update(of=("self",))
            .filter(id__in=list(delivery_ids))
            .exclude(endpoint__active=False)
            .values_list("id", flat=True)
        )
        Delivery.objects.filter(id__in=ids).update(
            status=DeliveryStatus.PENDING,
            attempts=0,
            next_attempt_at=None,
            claimed_until=None,
            enqueued_at=None,
            delivered_at=None,
        )
        dispatch.send_on_commit(ids)
    return ids


def _claim(delivery_id: int) -> Claim | None:
    now = timezone.now()
    with transaction.atomic():
        # Waits for another claim of the same delivery rather than skipping it: that one
        # may be parking it, and this message may be the wake-up sent when a slot came
        # free meanwhile. Skipped, it would be lost, and the delivery parked for good.
        # The wait is short: the row is only held by a claim or a record, never across
        # the HTTP call.
        delivery = (
            Delivery.objects.select_for_update(of=("self",))
            .select_related("event", "endpoint")
            .filter(id=delivery_id, status=DeliveryStatus.PENDING)
            .first()
        )
        if delivery is None:  # ended
            return None
        if delivery.next_attempt_at and delivery.next_attempt_at > now + timedelta(
            seconds=DUE_SLACK_SECONDS
        ):
            return None  # its own delayed message, or the sweeper, sends it when due
        if delivery.endpoint is not None and not delivery.endpoint.active:
            _end(delivery, DeliveryStatus.DISABLED, "The endpoint is disabled.")
            return None
        if delivery.attempts >= settings.INGEST_WEBHOOK_MAX_ATTEMPTS:
            # Only claims whose worker died got here: each counted, none recorded.
            _end(delivery, DeliveryStatus.FAILED, f"Gave up after {delivery.attempts} attempts.")
            return None
        if _waiting_behind(delivery):
            return None
        if not fair_share.has_slot(delivery.owner_id, now):
            return None  # parked: the end of one of the owner's attempts sends it
        delivery.attempts += 1
        delivery.next_attempt_at = delivery.claimed_until = now + timedelta(seconds=CLAIM_SECONDS)
        delivery.save(update_fields=["attempts", "next_attempt_at", "claimed_until"])
        return Claim(delivery, delivery.attempts, _secrets(delivery))


def _secrets(delivery: Delivery) -> tuple[str, ...]:
    """An endpoint's own secret; for an upload's own URL, the owner's signing secret (made
    on first use); with the secret each replaced, within its grace window."""
    if delivery.endpoint is not None:
        return signing_secrets(delivery.endpoint)
    return signing_secrets(endpoints.signing_secret(owner_id=delivery.event.owner_id))


def _waiting_behind(delivery: Delivery) -> bool:
    event = delivery.event
    earlier = Q(event__created_at__lt=event.created_at) | Q(
        event__created_at=event.created_at, id__lt=delivery.id
    )
    return (
        Delivery.objects.filter(earlier, url=delivery.url, status=DeliveryStatus.PENDING)
        .filter(event__document_id=event.document_id)
        .exists()
    )


def _attempt(claim: Claim, limits: client.Limits) -> client.Answer:
    """The POST, checked again now: the name may resolve elsewhere than it did. One
    budget, `limits.total`, covers it all: resolving the name (at most
    INGEST_WEBHOOK_DNS_TIMEOUT_SECONDS of it), connecting, sending and reading."""
    event = claim.delivery.event
    started = time.monotonic()
    try:
        dns_limit = min(settings.INGEST_WEBHOOK_DNS_TIMEOUT_SECONDS, limits.total)
        target = addresses.check(claim.delivery.url, timeout=dns_limit)
    except addresses.InvalidWebhookURL as exc:
        return client.Answer(None, client.elapsed_ms(started), error=f"DNS: {exc}"[:500])
    content = signing.body(event.payload)
    headers = signing.headers(claim.secrets, event.id, content)
    return client.post(target, content, headers, limits=limits, started=started)


def _record(claim: Claim, started_at: datetime, answer: client.Answer, schedule: Schedule) -> None:
    with transaction.atomic():
        delivery = (
            Delivery.objects.select_for_update(of=("self",))
            .select_related("event")
            .filter(id=claim.delivery.id)
            .first()
        )
        if delivery is None:  # deleted with its event or owner meanwhile
            return
        last = delivery.attempt_log.aggregate(n=Max("number"))["n"] or 0
        DeliveryAttempt.objects.create(
            delivery=delivery,
            number=last + 1,  # keeps counting across redeliveries, which reset `attempts`
            started_at=started_at,
            status_code=answer.status_code,
            latency_ms=answer.latency_ms,
            error=answer.error[:500],
            response_head=answer.head,
        )
        if delivery.status == DeliveryStatus.PENDING and delivery.attempts == claim.number:
            _outcome(delivery, answer, schedule)
        # else redelivered or ended meanwhile: the attempt is history, not the outcome.
        fair_share.send_next(delivery.owner_id)  # this attempt's slot is free again


def _outcome(delivery: Delivery, answer: client.Answer, schedule: Schedule) -> None:
    delivery.claimed_until = None
    delivery.last_status_code = answer.status_code
    delivery.last_error = answer.error[:500]
    if answer.ok:
        delivery.delivered_at = timezone.now()
        _end(delivery, DeliveryStatus.DELIVERED)
    elif answer.status_code == 410:
        _gone(delivery)
    elif delivery.attempts >= settings.INGEST_WEBHOOK_MAX_ATTEMPTS:
        _end(delivery, DeliveryStatus.FAILED)
    else:
        _retry(delivery, answer, schedule)


def _retry(delivery: Delivery, answer: client.Answer, schedule: Schedule) -> None:
    honoured = answer.retry_after if answer.status_code in RETRY_AFTER_STATUSES else None
    delay = schedule.delay(delivery.attempts, honoured)
    delivery.next_attempt_at = timezone.now() + timedelta(seconds=delay)
    delivery.save(
        update_fields=["next_attempt_at", "claimed_until", "last_status_code", "last_error"]
    )
    dispatch.send_on_commit([delivery.id], delay_seconds=delay)


def _gone(delivery: Delivery) -> None:
    """410: the receiver says the URL is gone for good. Its endpoint is deactivated and
    what else waits for it is disabled (for an upload's own URL: what waits for that URL
    outside any endpoint, of the same owner)."""
    if delivery.endpoint_id is not None:
        when = timezone.now().strftime("%Y-%m-%d %H:%M UTC")
        Endpoint.objects.filter(id=delivery.endpoint_id).update(
            active=False,
            disabled_reason=f"Answered 410 Gone on {when} (event {delivery.event_id}).",
        )
        waiting = Delivery.objects.filter(endpoint_id=delivery.endpoint_id)
    else:
        # Only this owner's: another account naming the same URL decides for itself.
        waiting = Delivery.objects.filter(
            owner_id=delivery.owner_id, endpoint__isnull=True, url=delivery.url
        )
    waiting.filter(status=DeliveryStatus.PENDING).exclude(id=delivery.id).update(
        status=DeliveryStatus.DISABLED,
        next_attempt_at=None,
        last_error="Not sent: the URL answered 410 Gone to an earlier event.",
    )
    _end(delivery, DeliveryStatus.DISABLED)


def _end(delivery: Delivery, status: str, error: str | None = None) -> None:
    """Delivered, failed or disabled; the next event of the same document to the same
    URL, if one waits, is sent after commit."""
    delivery.status = status
    delivery.next_attempt_at = delivery.claimed_until = None
    if error is not None:
        delivery.last_error = error
    delivery.save(
        update_fields=[
            "status",
            "next_attempt_at",
            "claimed_until",
            "delivered_at",
            "last_status_code",
            "last_error",
        ]
    )
    following = (
        Delivery.objects.filter(url=delivery.url, status=DeliveryStatus.PENDING)
        .filter(event__document_id=delivery.event.document_id)
        .order_by("event__created_at", "id")
        .first()
    )
    if following is not None:
        wait = 0.0
        if following.next_attempt_at is not None:
            wait = max(0.0, (following.next_attempt_at - timezone.now()).total_seconds())
        dispatch.send_on_commit([following.id], delay_seconds=wait)
