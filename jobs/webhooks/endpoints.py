"""Writes for where webhooks go: a user's endpoints and the secret that signs deliveries
to their uploads' own URLs. The API (api.py) and the admin (admin.py) both call these,
so a URL is checked and a deleted endpoint's pending deliveries end the same way from
either."""

from collections.abc import Iterable, Sequence
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from config.common import locks
from jobs.models import Job
from jobs.webhooks.models import (
    Delivery,
    DeliveryStatus,
    Endpoint,
    SigningSecret,
    all_event_types,
    new_secret,
)
from jobs.webhooks.network import addresses
from jobs.webhooks.network.addresses import InvalidWebhookURL

DELETED = "The endpoint was deleted."


class InvalidEvents(ValueError):
    """The event types are not a non-empty list of known ones; the message says why."""


class EndpointConflict(ValueError):
    """An endpoint that may not be added beside the owner's others; `code` says which rule
    (too_many_endpoints, duplicate_endpoint), the message says it for a person."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def checked_events(events: Sequence[str] | None) -> list[str]:
    """The event types to listen to, in their canonical order; every type when None."""
    if events is None:
        return all_event_types()
    known = all_event_types()
    if isinstance(events, str) or not isinstance(events, Sequence):
        raise InvalidEvents(f"events must be a list drawn from: {', '.join(known)}.")
    unknown = [str(name) for name in events if name not in known]
    if unknown:
        raise InvalidEvents(
            f"Unknown event type {unknown[0]!r}: events must be drawn from {', '.join(known)}."
        )
    if not events:
        raise InvalidEvents(f"events may not be empty: name one or more of {', '.join(known)}.")
    return [name for name in known if name in events]


def upload_url(given: Sequence[str]) -> str:
    """An upload's own webhook URL from the values of its form field `webhook_url`, checked
    (addresses.check), or "" when none was given; InvalidWebhookURL for more than one value
    or one a webhook may not be sent to."""
    if len(given) > 1:
        raise InvalidWebhookURL("Send at most one webhook_url per request.")
    url = given[0].strip() if given else ""
    if url:
        addresses.check(url)
    return url


def create(*, owner: User, url: str, events: Sequence[str] | None = None) -> Endpoint:
    """A new active endpoint; InvalidWebhookURL, InvalidEvents or EndpointConflict before
    anything is written. Two requests at once for one owner are counted one after the
    other (a lock per owner), so neither limit can be passed by racing."""
    addresses.check(url)
    listened = checked_events(events)
    limit = settings.INGEST_MAX_WEBHOOK_ENDPOINTS_PER_USER
    with transaction.atomic():
        locks.hold(f"ingest.endpoints:{owner.pk}")
        taken = list(Endpoint.objects.filter(owner=owner).values_list("url", flat=True))
        if len(taken) >= limit:
            raise EndpointConflict(
                "too_many_endpoints",
                f"You have {len(taken)} webhook endpoints, the most one account may have "
                f"({limit}). Delete one you no longer use first.",
            )
        same = addresses.same_url(url)
        if any(addresses.same_url(other) == same for other in taken):
            raise EndpointConflict(
                "duplicate_endpoint",
                "You already have an endpoint with this URL: each event reaches a URL once, "
                "so a second one would add nothing.",
            )
        return Endpoint.objects.create(owner=owner, url=url, events=listened)


def delete(endpoints: QuerySet[Endpoint] | Iterable[Endpoint]) -> int:
    """Delete endpoints; their pending deliveries end `disabled` first. Delivered and
    failed ones stay, with their URL, as history (the foreign key goes to NULL).

    Disabling first matters: a pending delivery whose endpoint is gone would otherwise
    look like an upload's own URL to the deliverer, and be sent, signed with the owner's
    signing secret, to an address its owner just asked to stop hearing from."""
    ids = [endpoint.pk for endpoint in endpoints]
    with transaction.atomic():
        Delivery.objects.filter(endpoint_id__in=ids, status=DeliveryStatus.PENDING).update(
            status=DeliveryStatus.DISABLED, next_attempt_at=None, last_error=DELETED
        )
        deleted, _ = Endpoint.objects.filter(pk__in=ids).delete()
    return deleted


def of_deleted_endpoints(delivery_ids: Iterable[int]) -> set[int]:
    """The deliveries among these that went to an endpoint since deleted.

    A deleted endpoint's deliveries keep their URL with no endpoint, as an upload's own
    URL's do; sent again, they would go, signed with the owner's signing secret, to an
    address its owner removed. An upload's own is told apart by its job's `webhook_url`;
    one whose job is gone (its document deleted) cannot be, and counts as deleted."""
    orphans = list(
        Delivery.objects.filter(id__in=list(delivery_ids), endpoint__isnull=True).values_list(
            "id", "url", "event__job_id"
        )
    )
    own = dict(
        Job.objects.filter(id__in={job_id for _, _, job_id in orphans}).values_list(
            "id", "webhook_url"
        )
    )
    return {delivery_id for delivery_id, url, job_id in orphans if own.get(job_id) != url}


def signing_secret(*, owner_id: int) -> SigningSecret:
    """The owner's signing secret, created on first use: by the first delivery to one of
    their uploads' own URLs, or by a rotation (POST /api/webhooks/signing-secret/).
    (get_or_create inserts in a savepoint and reads the row back when a concurrent first
    use won: one secret.)"""
    found, _ = SigningSecret.objects.get_or_create(owner_id=owner_id)
    return found


def existing_signing_secret(*, owner_id: int) -> SigningSecret | None:
    """The owner's signing secret if there is one; a read never makes one."""
    return SigningSecret.objects.filter(owner_id=owner_id).first()


def _replace_secret(holder: SigningSecret | Endpoint) -> None:
    """A new secret; the old one keeps signing beside it for the grace window."""
    holder.previous_secret = holder.secret
    holder.previous_valid_until = timezone.now() + timedelta(
        seconds=settings.INGEST_WEBHOOK_SECRET_GRACE_SECONDS
    )
    holder.secret = new_secret()


def rotate_signing_secret(*, owner_id: int) -> SigningSecret:
    """A new secret signs from now on; the old one signs too, beside it, for
    INGEST_WEBHOOK_SECRET_GRACE_SECONDS, so receivers can switch without missing a
    delivery. Makes the secret when there is none."""
    with transaction.atomic():
        current, created = SigningSecret.objects.select_for_update().get_or_create(
            owner_id=owner_id
        )
        if created:
            return current
        _replace_secret(current)
        current.rotated_at = timezone.now()
        current.save(
            update_fields=["secret", "rotated_at", "previous_secret", "previous_valid_until"]
        )
    return current


def rotate_endpoint_secret(endpoint: Endpoint) -> Endpoint:
    """The endpoint's new secret, with its old one signing beside it for the grace window."""
    with transaction.atomic():
        locked = Endpoint.objects.select_for_update().get(pk=endpoint.pk)
        _replace_secret(locked)
        locked.save(update_fields=["secret", "previous_secret", "previous_valid_until"])
    return locked
