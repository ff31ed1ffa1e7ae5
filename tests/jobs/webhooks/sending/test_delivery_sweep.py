"""The sweeper sends again the deliveries whose message was lost, and only those."""

from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.utils import timezone

from jobs import sweeper
from jobs.sweeper import broker_started_at
from jobs.webhooks.models import Delivery, DeliveryStatus, Endpoint
from jobs.webhooks.sending import sweep
from tests.conftest import at_once, eventually, running_worker
from tests.fakes.webhook_receiver import Receiver, end_job

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def receiver(settings) -> Iterator[Receiver]:
    settings.INGEST_WEBHOOK_ALLOW_PRIVATE = True
    receiver = Receiver()
    yield receiver
    receiver.close()


@pytest.fixture
def hook(alice, receiver) -> Endpoint:
    created = Endpoint.objects.create(owner=alice, url=receiver.url("/hook"))
    receiver.secrets.append(created.secret)
    return created


def lost(owner, broker, **fields) -> Delivery:
    """A delivery whose message the broker lost (flushed), left as `fields` say."""
    end_job(owner)
    broker.flush_all()
    delivery = Delivery.objects.latest("created_at")
    Delivery.objects.filter(id=delivery.id).update(**fields)
    return delivery


def ago(seconds: float):
    return timezone.now() - timedelta(seconds=seconds)


def test_a_delivery_never_sent_is_sent_and_delivered(alice, hook, receiver, broker):
    delivery = lost(alice, broker, enqueued_at=None, created_at=ago(11))

    with running_worker(broker):
        assert sweep.resend_due() == [delivery.id]
        eventually(lambda: Delivery.objects.get(status=DeliveryStatus.DELIVERED))

    [accepted] = receiver.accepted()
    assert accepted.webhook_id == delivery.event_id


def test_a_dead_workers_claim_is_sent_again_once_it_and_the_grace_are_over(
    alice, hook, receiver, broker
):
    # Claimed (attempt 1 counted, due again after the claim) by a worker that died.
    delivery = lost(alice, broker, attempts=1, next_attempt_at=ago(61), enqueued_at=ago(120))

    with running_worker(broker):
        assert sweep.resend_due() == [delivery.id]
        delivered = eventually(lambda: Delivery.objects.get(status=DeliveryStatus.DELIVERED))

    assert delivered.attempts == 2
    assert len(receiver.requests) == 1


def sent_ago(seconds: float):
    """`seconds` ago, but after the broker's Redis started: a message sent before that is
    lost for certain, and sent again at once (the next test)."""
    started = broker_started_at()
    assert started is not None
    return max(ago(seconds), started + timedelta(seconds=2))


@pytest.mark.parametrize(
    "fields",
    [
        lambda: {"enqueued_at": None, "created_at": ago(2)},  # its on-commit send may come
        lambda: {"enqueued_at": timezone.now()},  # sent just now
        lambda: {"enqueued_at": ago(120), "next_attempt_at": ago(-3600)},  # retry in an hour
        lambda: {"enqueued_at": sent_ago(120), "next_attempt_at": ago(10)},  # just due
        lambda: {"enqueued_at": None, "created_at": ago(60), "status": DeliveryStatus.DELIVERED},
        lambda: {"enqueued_at": None, "created_at": ago(60), "status": DeliveryStatus.DISABLED},
    ],
)
def test_deliveries_on_their_way_or_ended_are_left_alone(alice, hook, broker, fields):
    lost(alice, broker, **fields())

    assert sweep.resend_due() == []


def test_a_due_delivery_sent_before_the_brokers_redis_started_is_sent_at_once(alice, hook, broker):
    started = broker_started_at()
    assert started is not None
    delivery = lost(alice, broker, enqueued_at=started - timedelta(seconds=1))

    assert sweep.resend_due() == [delivery.id]


def test_a_delivery_waiting_behind_an_earlier_event_of_its_document_is_left_to_it(
    alice, hook, broker
):
    first_job = end_job(alice)
    end_job(alice, document=first_job.document)
    broker.flush_all()
    earlier, later = Delivery.objects.order_by("created_at")
    Delivery.objects.filter(id=earlier.id).update(next_attempt_at=ago(-3600))  # retry later
    Delivery.objects.filter(id=later.id).update(enqueued_at=ago(120))

    assert sweep.resend_due() == []


def test_two_sweepers_at_once_send_each_delivery_once(alice, hook, broker):
    for _ in range(6):
        end_job(alice)
    broker.flush_all()
    Delivery.objects.update(enqueued_at=None, created_at=ago(11))

    sent = at_once(sweep.resend_due)

    ids = [delivery_id for one in sent for delivery_id in one]
    assert sorted(ids) == sorted(Delivery.objects.values_list("id", flat=True))
    assert Delivery.objects.filter(enqueued_at__isnull=True).count() == 0


def test_the_sweepers_every_pass_sends_them(alice, hook, receiver, broker):
    lost(alice, broker, enqueued_at=None, created_at=ago(11))

    with running_worker(broker):
        sweeper.run_each_pass()
        eventually(lambda: Delivery.objects.get(status=DeliveryStatus.DELIVERED))

    assert len(receiver.accepted()) == 1
