"""What the webhooks admin's tests share: an operator, and deliveries in every state with
their attempt logs, written as the deliverer writes them."""

from datetime import timedelta

from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from jobs.webhooks.models import (
    Delivery,
    DeliveryAttempt,
    Endpoint,
    Event,
    EventType,
)
from tests.factories import make_document

DELIVERIES = "/admin/webhooks/delivery/"
ENDPOINTS = "/admin/webhooks/endpoint/"
PUBLIC = "https://93.184.215.14/hook"


def operator_client() -> Client:
    operator = User.objects.create_superuser("olivia", "olivia@example.com", "olivia-password")
    client = Client()
    client.force_login(operator)
    return client


def event_for(
    owner: User, event_type: str = EventType.SUCCEEDED, filename: str = "q3.pdf"
) -> Event:
    document = make_document(owner, filename=filename)
    event = Event(type=event_type, owner=owner, document_id=document.id)
    event.job_id = document.current_job_id
    event.payload = {
        "type": event_type,
        "id": event.id,
        "created_at": "2026-11-30T15:51:19Z",
        "data": {"document_id": str(document.id), "filename": filename},
    }
    event.save(force_insert=True)
    return event


def delivery_in(
    status: str,
    *,
    event: Event,
    url: str = PUBLIC,
    endpoint: Endpoint | None = None,
    attempts: int = 0,
    codes: tuple[int | None, ...] = (),
    **fields,
) -> Delivery:
    """A delivery in `status`; one logged attempt per entry of `codes` (None: no answer)."""
    row = Delivery.objects.create(
        event=event,
        owner_id=event.owner_id,
        endpoint=endpoint,
        url=url,
        status=status,
        attempts=attempts,
        **fields,
    )
    started = timezone.now() - timedelta(minutes=len(codes) * 5)
    for number, code in enumerate(codes, start=1):
        DeliveryAttempt.objects.create(
            delivery=row,
            number=number,
            started_at=started + timedelta(minutes=5 * number),
            status_code=code,
            latency_ms=85 if code else 10_000,
            error="" if code else "Timed out after 10 s.",
            response_head=f"<h1>{code}</h1> <script>alert({number})</script>" if code else "",
        )
    if codes:
        row.last_status_code = codes[-1]
        row.save(update_fields=["last_status_code"])
    return row


def run_action(client: Client, action: str, deliveries: list[Delivery]):
    return client.post(
        DELIVERIES,
        {"action": action, ACTION_CHECKBOX_NAME: [str(d.id) for d in deliveries], "index": 0},
        follow=True,
    )


def listed(response) -> set[int]:
    return {row.id for row in response.context["cl"].result_list}
