"""The admin's "Redeliver selected deliveries": back to pending, attempts from zero, sent
after commit, and received again with the same webhook-id."""

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import dramatiq
import pytest
from django.contrib.admin.models import LogEntry
from django.test import Client

from jobs.models import Job
from jobs.webhooks.models import Delivery, DeliveryStatus, Endpoint, SigningSecret
from jobs.webhooks.sending import signing
from jobs.webhooks.sending.dispatch import QUEUE_NAME
from tests.conftest import eventually
from tests.jobs.webhooks.admin_pages import (
    PUBLIC,
    delivery_in,
    event_for,
    operator_client,
    run_action,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def operator() -> Client:
    return operator_client()


def queued_deliveries(broker: dramatiq.Broker) -> list[int]:
    """The delivery ids waiting in the `webhooks` queue."""
    raw = broker.client.hvals(f"dramatiq:{QUEUE_NAME}.msgs")
    return sorted(arg for message in raw for arg in dramatiq.Message.decode(message).args)


def own_url_delivery(owner, status: str, url: str = PUBLIC, **fields) -> Delivery:
    """A delivery to an upload's own webhook_url (its job names the URL)."""
    event = event_for(owner)
    Job.objects.filter(id=event.job_id).update(webhook_url=url)
    return delivery_in(status, event=event, url=url, **fields)


def test_redeliver_puts_a_failed_delivery_back_to_pending_and_sends_it(operator, alice, broker):
    failed = own_url_delivery(
        alice, DeliveryStatus.FAILED, attempts=10, codes=(500,) * 10, last_error="HTTP 500"
    )

    response = run_action(operator, "redeliver_selected", [failed])

    assert "Redelivered 1 delivery." in response.content.decode()
    failed.refresh_from_db()
    assert (failed.status, failed.attempts, failed.next_attempt_at) == (
        DeliveryStatus.PENDING,
        0,
        None,
    )
    assert failed.enqueued_at is not None, "sent once the action's transaction committed"
    assert queued_deliveries(broker) == [failed.id]
    assert failed.attempt_log.count() == 10, "the attempt log is kept"
    [entry] = LogEntry.objects.filter(object_id=str(failed.id))
    assert "Redelivered" in entry.get_change_message()


def test_deliveries_to_a_disabled_or_deleted_endpoint_are_left_alone(operator, alice, broker):
    switched_off = Endpoint.objects.create(owner=alice, url=PUBLIC + "/off", active=False)
    to_disabled = delivery_in(
        DeliveryStatus.DISABLED, event=event_for(alice), endpoint=switched_off, url=switched_off.url
    )
    # A deleted endpoint's delivery keeps its URL with no endpoint; its job named no URL.
    to_deleted = delivery_in(DeliveryStatus.FAILED, event=event_for(alice), url=PUBLIC + "/gone")
    failed = own_url_delivery(alice, DeliveryStatus.FAILED)

    response = run_action(operator, "redeliver_selected", [to_disabled, to_deleted, failed])

    assert (
        "Redelivered 1 delivery; 2 were for a disabled or deleted endpoint and were left alone."
        in response.content.decode()
    )
    assert queued_deliveries(broker) == [failed.id]
    statuses = dict(Delivery.objects.values_list("id", "status"))
    assert statuses == {
        to_disabled.id: DeliveryStatus.DISABLED,
        to_deleted.id: DeliveryStatus.FAILED,
        failed.id: DeliveryStatus.PENDING,
    }


# --------------------------------------------------------------------------- end to end


class Heard:
    def __init__(self) -> None:
        self.requests: list[tuple[dict[str, str], bytes]] = []


@pytest.fixture
def receiver() -> Iterator[tuple[str, Heard]]:
    """A local HTTP server that answers 204 to every POST and keeps what it heard."""
    heard = Heard()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            heard.requests.append(({k.lower(): v for k, v in self.headers.items()}, body))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/hook", heard
    server.shutdown()
    server.server_close()


def test_a_redelivered_event_reaches_its_receiver_with_the_same_webhook_id(
    operator, alice, settings, receiver, worker
):
    settings.INGEST_WEBHOOK_ALLOW_PRIVATE = True
    url, heard = receiver
    failed = own_url_delivery(alice, DeliveryStatus.FAILED, url, attempts=10, codes=(503,) * 10)

    run_action(operator, "redeliver_selected", [failed])

    eventually(lambda: Delivery.objects.get(id=failed.id).status == DeliveryStatus.DELIVERED)
    [(headers, body)] = heard.requests
    assert headers["webhook-id"] == failed.event_id
    secret = SigningSecret.objects.get(owner=alice).secret
    signing.verify(secret, headers, body)  # raises unless the owner's secret signed it
    failed.refresh_from_db()
    assert (failed.attempts, failed.last_status_code) == (1, 204)
    assert failed.attempt_log.count() == 11
