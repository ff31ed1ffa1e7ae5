"""Delivering events to a real receiver through a real Dramatiq worker: retries, Retry-After,
redirects, 410, order per document, the attempt log, redelivery.

The retry schedule is shrunk to a fifth of a second (delivery.SCHEDULE, read at each
delivery); the client's limits are the real ones.
"""

import json
from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.utils import timezone

from jobs.webhooks.models import Delivery, DeliveryStatus, Endpoint, SigningSecret
from jobs.webhooks.sending import delivery as deliveries
from jobs.webhooks.sending import signing
from jobs.webhooks.sending.delivery import Schedule, deliver, redeliver
from tests.conftest import at_once, eventually, running_worker
from tests.fakes.webhook_receiver import (
    GONE,
    TOO_MANY,
    Receiver,
    Reply,
    end_job,
    failing,
    redirect,
)

pytestmark = pytest.mark.django_db(transaction=True)

FAST = Schedule(delays=(0.2,), jitter=0)


@pytest.fixture(autouse=True)
def local_and_fast(settings, monkeypatch) -> None:
    settings.INGEST_WEBHOOK_ALLOW_PRIVATE = True  # the receiver is on 127.0.0.1
    monkeypatch.setattr(deliveries, "SCHEDULE", FAST)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    receiver = Receiver()
    yield receiver
    receiver.close()


def endpoint(owner, receiver: Receiver, path: str) -> Endpoint:
    created = Endpoint.objects.create(owner=owner, url=receiver.url(path))
    receiver.secrets.append(created.secret)
    return created


def ended(status: str, count: int = 1, timeout: float = 20) -> list[Delivery]:
    """Wait until `count` deliveries have `status`; them, oldest first."""
    return eventually(
        lambda: (
            (found := list(Delivery.objects.filter(status=status).order_by("created_at")))
            and len(found) == count
            and found
        ),
        timeout=timeout,
    )


def types(requests) -> list[str]:
    return [json.loads(request.body)["type"] for request in requests]


def test_a_receiver_failing_twice_hears_the_event_once_in_effect_under_one_webhook_id(
    alice, broker, receiver
):
    endpoint(alice, receiver, "/flaky")
    receiver.plan("/flaky", failing(2))

    with running_worker(broker):
        end_job(alice)
        [delivered] = ended(DeliveryStatus.DELIVERED)

    requests = receiver.at("/flaky")
    assert [r.status for r in requests] == [500, 500, 200]
    assert {r.webhook_id for r in requests} == {delivered.event_id}
    assert [r.signature_error for r in requests] == ["", "", ""]
    assert len({r.body for r in requests}) == 1  # the same bytes every time
    [accepted] = receiver.accepted()
    assert json.loads(accepted.body) == delivered.event.payload
    assert (delivered.attempts, delivered.last_status_code, delivered.last_error) == (3, 200, "")
    assert delivered.delivered_at is not None
    log = list(delivered.attempt_log.order_by("number"))
    assert [(a.number, a.status_code) for a in log] == [(1, 500), (2, 500), (3, 200)]
    assert [a.error for a in log] == ["HTTP 500 Internal Server Error"] * 2 + [""]
    assert [a.response_head for a in log] == ["try again later"] * 2 + ["ok"]
    assert all(0 <= a.latency_ms < 5000 and a.started_at for a in log)


def test_a_429_is_retried_no_sooner_than_its_retry_after(alice, broker, receiver):
    endpoint(alice, receiver, "/busy")
    receiver.plan("/busy", TOO_MANY)

    with running_worker(broker):
        end_job(alice)
        [delivered] = ended(DeliveryStatus.DELIVERED)

    first, second = receiver.at("/busy")
    assert (first.status, second.status) == (429, 200)
    assert second.at - first.at >= 1.0  # Retry-After: 1, though the schedule says 0.2 s
    assert len(receiver.accepted()) == 1
    assert delivered.attempt_log.get(number=1).status_code == 429


def test_a_redirect_is_not_followed_and_its_attempt_fails(alice, broker, receiver):
    endpoint(alice, receiver, "/moved")
    receiver.plan("/moved", redirect("/elsewhere"))

    with running_worker(broker):
        end_job(alice)
        [delivered] = ended(DeliveryStatus.DELIVERED)

    assert receiver.at("/elsewhere") == []
    assert [r.status for r in receiver.at("/moved")] == [302, 200]
    first = delivered.attempt_log.get(number=1)
    assert first.status_code == 302
    assert "redirects are not followed (Location: /elsewhere)" in first.error


def test_a_410_disables_the_endpoint_and_what_else_waits_for_it(alice, broker, receiver):
    gone = endpoint(alice, receiver, "/gone")
    receiver.plan("/gone", GONE)
    end_job(alice)
    end_job(alice)
    first, later = Delivery.objects.order_by("created_at")
    # The later one waits for a retry: the 410 must stop it without it being sent.
    later_due = timezone.now() + timedelta(hours=1)
    Delivery.objects.filter(id=later.id).update(next_attempt_at=later_due)

    with running_worker(broker):
        ended(DeliveryStatus.DISABLED, count=2)

    gone.refresh_from_db()
    assert not gone.active
    assert gone.disabled_reason.startswith("Answered 410 Gone on ")
    assert [r.status for r in receiver.requests] == [410]
    first.refresh_from_db()
    assert (first.last_status_code, first.attempt_log.get().response_head) == (
        410,
        "this hook is gone",
    )


def test_a_disabled_endpoints_deliveries_are_not_sent(alice, broker, receiver):
    off = endpoint(alice, receiver, "/off")
    end_job(alice)
    Endpoint.objects.filter(id=off.id).update(active=False, disabled_reason="by hand")

    with running_worker(broker):
        [disabled] = ended(DeliveryStatus.DISABLED)

    assert receiver.requests == []
    assert disabled.last_error == "The endpoint is disabled."


def test_a_documents_events_arrive_in_order_even_when_the_first_needs_retries(
    alice, broker, receiver
):
    receiver.secrets.append(SigningSecret.objects.create(owner=alice).secret)
    url = receiver.url("/ordered")
    receiver.plan("/ordered", failing(2))
    # Both events wait in the queue before any worker runs: the second must not pass.
    first_job = end_job(alice, webhook_url=url, failed=True)
    end_job(alice, webhook_url=url, document=first_job.document)

    with running_worker(broker):
        ended(DeliveryStatus.DELIVERED, count=2)

    requests = receiver.at("/ordered")
    assert types(requests) == ["document.failed"] * 3 + ["document.succeeded"]
    assert [json.loads(r.body)["data"]["version"] for r in receiver.accepted()] == [1, 2]


def test_out_of_attempts_a_delivery_fails_and_the_next_in_line_goes(
    alice, broker, receiver, settings
):
    settings.INGEST_WEBHOOK_MAX_ATTEMPTS = 3
    receiver.secrets.append(SigningSecret.objects.create(owner=alice).secret)
    url = receiver.url("/down")
    receiver.plan("/down", failing(3))
    first_job = end_job(alice, webhook_url=url, failed=True)
    end_job(alice, webhook_url=url, document=first_job.document)

    with running_worker(broker):
        [failed] = ended(DeliveryStatus.FAILED)
        ended(DeliveryStatus.DELIVERED)

    assert (failed.attempts, failed.last_status_code) == (3, 500)
    assert failed.last_error == "HTTP 500 Internal Server Error"
    assert types(receiver.requests) == ["document.failed"] * 3 + ["document.succeeded"]


def test_each_url_is_signed_with_its_own_secret(alice, broker, receiver):
    own = endpoint(alice, receiver, "/endpoint")
    receiver.secrets.clear()  # checked below, one secret at a time

    with running_worker(broker):
        end_job(alice, webhook_url=receiver.url("/upload"))
        ended(DeliveryStatus.DELIVERED, count=2)

    # The upload's own URL: the owner's signing secret, made on first use.
    per_upload = SigningSecret.objects.get(owner=alice).secret
    [to_endpoint], [to_upload] = receiver.at("/endpoint"), receiver.at("/upload")
    signing.verify(own.secret, to_endpoint.headers, to_endpoint.body)
    signing.verify(per_upload, to_upload.headers, to_upload.body)
    with pytest.raises(signing.InvalidSignature):
        signing.verify(per_upload, to_endpoint.headers, to_endpoint.body)
    assert to_endpoint.webhook_id == to_upload.webhook_id  # one event, two deliveries


def test_redelivery_sends_the_same_event_again_and_keeps_the_log(alice, broker, receiver):
    endpoint(alice, receiver, "/again")

    with running_worker(broker):
        end_job(alice)
        [delivered] = ended(DeliveryStatus.DELIVERED)
        assert redeliver([delivered.id]) == [delivered.id]
        eventually(lambda: len(receiver.requests) == 2, timeout=20)
        [again] = ended(DeliveryStatus.DELIVERED)

    first, second = receiver.requests
    assert (first.webhook_id, first.body) == (second.webhook_id, second.body)
    assert len(receiver.accepted()) == 1  # a receiver that dedupes acts once
    assert again.attempts == 1
    assert list(again.attempt_log.values_list("number", flat=True)) == [1, 2]


def test_a_disabled_endpoints_deliveries_are_not_redelivered(alice, broker, receiver):
    off = endpoint(alice, receiver, "/off")
    end_job(alice)
    Endpoint.objects.filter(id=off.id).update(active=False)

    assert redeliver(Delivery.objects.values_list("id", flat=True)) == []


def test_two_workers_given_one_delivery_send_it_once(alice, broker, receiver):
    endpoint(alice, receiver, "/once")
    receiver.plan("/once", Reply(hang=0.5))  # the first is still in flight
    end_job(alice)
    delivery = Delivery.objects.get()

    answers = at_once(lambda: deliver(delivery.id))

    assert sorted(answer is None for answer in answers) == [False, True]
    assert len(receiver.requests) == 1
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == (DeliveryStatus.DELIVERED, 1)
