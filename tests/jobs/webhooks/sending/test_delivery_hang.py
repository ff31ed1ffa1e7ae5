"""A receiver that hangs costs one attempt its 10 s, and no more: the real limit, once."""

import time

import pytest

from jobs.webhooks.models import Delivery, DeliveryStatus, Endpoint
from jobs.webhooks.sending import delivery as deliveries
from jobs.webhooks.sending.delivery import Schedule
from tests.conftest import eventually, running_worker
from tests.fakes.webhook_receiver import Receiver, Reply, end_job

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_hanging_receiver_costs_one_attempt_ten_seconds_then_the_retry_delivers(
    alice, broker, settings, monkeypatch
):
    settings.INGEST_WEBHOOK_ALLOW_PRIVATE = True
    monkeypatch.setattr(deliveries, "SCHEDULE", Schedule(delays=(0.2,), jitter=0))
    receiver = Receiver()
    try:
        hook = Endpoint.objects.create(owner=alice, url=receiver.url("/slow"))
        receiver.secrets.append(hook.secret)
        receiver.plan("/slow", Reply(hang=30))

        started = time.monotonic()
        with running_worker(broker):
            end_job(alice)
            delivered = eventually(
                lambda: Delivery.objects.get(status=DeliveryStatus.DELIVERED), timeout=30
            )
        elapsed = time.monotonic() - started
    finally:
        receiver.close()

    hung, answered = delivered.attempt_log.order_by("number")
    assert hung.status_code is None
    assert hung.error == "read: no complete answer within 10 s"
    assert 9_900 <= hung.latency_ms < 11_000
    assert answered.status_code == 200
    assert elapsed < 15
    # The receiver acted on the first but answered too late; the retry, with the same
    # webhook-id, is dropped as a duplicate.
    first, second = receiver.requests
    assert first.webhook_id == second.webhook_id == delivered.event_id
    assert len(receiver.accepted()) == 1
