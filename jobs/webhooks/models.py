import base64
import secrets
import uuid
from datetime import datetime

from django.conf import settings
from django.db import models
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone


class EventType(models.TextChoices):
    SUCCEEDED = "document.succeeded"
    FAILED = "document.failed"


def new_secret() -> str:
    """A Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes (the key)."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


def new_event_id() -> str:
    return f"msg_{uuid.uuid4().hex}"


def all_event_types() -> list[str]:
    return list(EventType.values)


def signing_secrets(holder: "Endpoint | SigningSecret") -> tuple[str, ...]:
    """The secrets a delivery signs with now: the current one, and the one it replaced
    while its grace window lasts (receivers accept any one signature that matches)."""
    until = holder.previous_valid_until
    if holder.previous_secret and until is not None and until > timezone.now():
        return (holder.secret, holder.previous_secret)
    return (holder.secret,)


class Endpoint(models.Model):
    """A URL a user registered (/api/webhooks/) to hear of all their documents' events."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webhook_endpoints"
    )
    url = models.URLField(max_length=2000)
    events = models.JSONField(default=all_event_types, help_text="The event types it hears.")
    secret = models.CharField(max_length=100, default=new_secret, editable=False)
    # The secret before the last rotation: deliveries carry its signature too until then.
    previous_secret = models.CharField(max_length=100, blank=True, editable=False)
    previous_valid_until = models.DateTimeField(null=True, blank=True, editable=False)
    active = models.BooleanField(default=True)
    disabled_reason = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.url


class SigningSecret(models.Model):
    """The secret that signs deliveries to a user's per-upload `webhook_url`s."""

    owner = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="webhook_signing_secret",
    )
    secret = models.CharField(max_length=100, default=new_secret)
    rotated_at = models.DateTimeField(default=timezone.now)
    # The secret before the last rotation: deliveries carry its signature too until then.
    previous_secret = models.CharField(max_length=100, blank=True)
    previous_valid_until = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"signing secret of user {self.owner_id}"


class Event(models.Model):
    """Something that happened to a document, written in the same transaction as the
    job's change (the outbox). `payload` is the body every delivery sends, byte for byte
    the same each time; `id` is its `webhook-id`."""

    id = models.CharField(primary_key=True, max_length=40, default=new_event_id, editable=False)
    type = models.CharField(max_length=40, choices=EventType.choices)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    # No foreign keys: the event is history and outlives a deleted document or job.
    document_id = models.UUIDField()
    job_id = models.UUIDField()
    payload = models.JSONField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created_at"]
        indexes = [
            models.Index(fields=["document_id", "created_at"]),
            # Retention finds the old ones (jobs/webhooks/retention.py).
            models.Index(fields=["created_at"], name="event_created_at"),
        ]

    def __str__(self) -> str:
        return f"{self.type} {self.id}"


class DeliveryStatus(models.TextChoices):
    PENDING = "pending"  # to be sent, now or at next_attempt_at
    DELIVERED = "delivered"  # a 2xx answered
    FAILED = "failed"  # every attempt failed; an operator may redeliver
    DISABLED = "disabled"  # the endpoint answered 410 or was disabled or deleted


class DeliveryQuerySet(models.QuerySet["Delivery"]):
    def pending(self) -> "DeliveryQuerySet":
        return self.filter(status=DeliveryStatus.PENDING)

    def in_flight(self, now: datetime) -> "DeliveryQuerySet":
        """Claimed by a worker whose attempt has not been recorded yet, and whose claim
        has not run out (a worker that died mid-attempt holds its slot that long)."""
        return self.pending().filter(claimed_until__gt=now)

    def due(self, now: datetime) -> "DeliveryQuerySet":
        """Pending, not held by an attempt, and not waiting for a retry's time."""
        idle = Q(claimed_until__isnull=True) | Q(claimed_until__lte=now)
        due = Q(next_attempt_at__isnull=True) | Q(next_attempt_at__lte=now)
        return self.pending().filter(idle & due)

    def first_in_line(self) -> "DeliveryQuerySet":
        """Leaves out those waiting, in order, for an earlier event of the same document
        to the same URL: that one sends the next when it ends."""
        return self.exclude(
            Exists(
                Delivery.objects.pending().filter(
                    url=OuterRef("url"),
                    event__document_id=OuterRef("event__document_id"),
                    event__created_at__lt=OuterRef("event__created_at"),
                )
            )
        )


class Delivery(models.Model):
    """One event on its way to one URL: a registered endpoint's, or the upload's own."""

    id = models.BigAutoField(primary_key=True)
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="deliveries")
    # The event's owner, kept on the row: deliveries in flight are counted per owner.
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    endpoint = models.ForeignKey(
        Endpoint, null=True, blank=True, on_delete=models.SET_NULL, related_name="deliveries"
    )
    url = models.CharField(max_length=2000)
    status = models.CharField(
        max_length=16, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING
    )
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    # Set while a worker makes an attempt (its claim), cleared when the outcome is recorded.
    claimed_until = models.DateTimeField(null=True, blank=True)
    enqueued_at = models.DateTimeField(null=True, blank=True, help_text="When last sent.")
    delivered_at = models.DateTimeField(null=True, blank=True)
    last_status_code = models.PositiveIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    objects = DeliveryQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "deliveries"
        indexes = [
            # Each owner's pending ones: their attempts in flight, and the next in line.
            models.Index(
                fields=["owner", "created_at"],
                name="delivery_pending_owner",
                condition=Q(status="pending"),
            ),
            # The sweeper's and the ordering check's reads: pending ones only.
            models.Index(
                fields=["next_attempt_at"],
                name="delivery_pending",
                condition=Q(status="pending"),
            ),
            models.Index(fields=["url", "created_at"], name="delivery_url_created"),
        ]

    def __str__(self) -> str:
        return f"{self.event_id} → {self.url} ({self.status})"


class DeliveryAttempt(models.Model):
    """What one try at a delivery met, for whoever has to find out why."""

    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="attempt_log")
    number = models.PositiveIntegerField()
    started_at = models.DateTimeField()
    status_code = models.PositiveIntegerField(null=True, blank=True)
    latency_ms = models.PositiveIntegerField(default=0)
    error = models.CharField(max_length=500, blank=True)
    response_head = models.TextField(blank=True, help_text="The answer's first 1 KB.")

    class Meta:
        ordering = ["delivery", "number"]

    def __str__(self) -> str:
        return f"attempt {self.number} of delivery {self.delivery_id}"
