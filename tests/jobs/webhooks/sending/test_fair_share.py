"""Deliveries are fair between owners (jobs/webhooks/sending/fair_share.py), through a real Dramatiq
worker and a real receiver: an owner whose receivers hang holds at most its share of the
deliverer's threads, and another owner's event arrives meanwhile."""

import threading
import time
from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from jobs.webhooks.models import Delivery, DeliveryStatus, Endpoint
from jobs.webhooks.network import client
from jobs.webhooks.sending import delivery as deliveries
from jobs.webhooks.sending import fair_share
from jobs.webhooks.sending.delivery import Schedule
from tests.conftest import eventually, running_worker
from tests.fakes.webhook_receiver import Receiver, Reply, end_job

pytestmark = pytest.mark.django_db(transaction=True)

HANG = 2.0  # seconds each of the slow owner's receivers takes to answer


@pytest.fixture(autouse=True)
def local(settings, monkeypatch) -> None:
    settings.INGEST_WEBHOOK_ALLOW_PRIVATE = True  # the receiver is on 127.0.0.1
    monkeypatch.setattr(deliveries, "SCHEDULE", Schedule(delays=(0.2,), jitter=0))


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    receiver = Receiver()
    yield receiver
    receiver.close()


def most_at_once(arrivals: list[float], lasting: float) -> int:
    """The most requests under way together, each lasting `lasting` seconds from arrival
    (less a little: one that starts as another ends does not overlap it)."""
    window = lasting * 0.95
    return max(sum(1 for other in arrivals if t - window < other <= t) for t in arrivals)


def test_an_owner_whose_receivers_hang_holds_its_share_and_no_more(
    alice, bob, broker, receiver, settings
):
    assert settings.INGEST_WEBHOOK_MAX_CONCURRENT_PER_USER == 2
    for n in range(10):
        path = f"/alice/{n}"
        created = Endpoint.objects.create(owner=alice, url=receiver.url(path))
        receiver.secrets.append(created.secret)
        receiver.plan(path, [Reply(hang=HANG)] * 100)
    bobs = Endpoint.objects.create(owner=bob, url=receiver.url("/bob"))
    receiver.secrets.append(bobs.secret)

    with running_worker(broker, threads=4):
        for _ in range(4):
            end_job(alice)  # 40 deliveries of 2 s each: 40 s at her share
        time.sleep(0.5)
        ended = time.monotonic()
        end_job(bob)
        [bob_heard] = eventually(lambda: receiver.at("/bob"), timeout=30)
        waited = bob_heard.at - ended
        time.sleep(HANG * 2)  # a few more of hers, to see her share hold
        alice_arrivals = [r.at for r in receiver.requests if r.path.startswith("/alice/")]

    # Bob waited for no one: his delivery went while all of hers were still to come.
    assert waited < HANG, f"bob's event arrived {waited:.1f} s after his job ended"
    assert len(alice_arrivals) >= 4
    assert most_at_once(alice_arrivals, HANG) == 2
    assert Delivery.objects.filter(owner=alice, status=DeliveryStatus.PENDING).count() >= 30


def test_parked_deliveries_are_all_delivered_in_the_end(alice, broker, receiver):
    for n in range(5):
        created = Endpoint.objects.create(owner=alice, url=receiver.url(f"/{n}"))
        receiver.secrets.append(created.secret)
        receiver.plan(f"/{n}", [Reply(hang=0.3)] * 10)

    with running_worker(broker, threads=4):
        for _ in range(3):
            end_job(alice)
        delivered = eventually(
            lambda: Delivery.objects.filter(status=DeliveryStatus.DELIVERED).count() == 15 or None,
            timeout=30,
        )

    assert delivered
    assert [len(receiver.accepted(f"/{n}")) for n in range(5)] == [3] * 5
    arrivals = [r.at for r in receiver.requests]
    assert most_at_once(arrivals, 0.3) <= 2


def test_a_410_from_one_owners_url_leaves_another_owners_deliveries_alone(
    alice, bob, broker, receiver
):
    url = receiver.url("/shared")
    receiver.plan("/shared", [Reply(410)])
    end_job(bob, webhook_url=url)
    # Bob's delivery waits for a retry an hour off: still pending when Alice's meets the 410.
    Delivery.objects.filter(owner=bob).update(next_attempt_at=timezone.now() + timedelta(hours=1))

    with running_worker(broker):
        end_job(alice, webhook_url=url)
        eventually(
            lambda: (
                Delivery.objects.filter(owner=alice, status=DeliveryStatus.DISABLED).exists()
                or None
            )
        )

    [bobs] = Delivery.objects.filter(owner=bob)
    assert bobs.status == DeliveryStatus.PENDING


def test_a_wake_up_arriving_while_another_claim_parks_the_delivery_is_not_lost(
    alice, broker, receiver, monkeypatch
):
    """One claim finds the owner at the limit and parks the delivery; meanwhile a slot
    comes free and its wake-up message claims the same delivery. The wake-up must wait
    for the parking claim and then send it, not skip it as held: nothing else would."""
    created = Endpoint.objects.create(owner=alice, url=receiver.url("/woken"))
    receiver.secrets.append(created.secret)
    end_job(alice)
    [delivery] = Delivery.objects.all()
    parking, release = threading.Event(), threading.Event()
    real_has_slot = fair_share.has_slot

    def full_for_the_first(owner_id, now):
        if not parking.is_set():
            parking.set()
            assert release.wait(10)
            return False  # at the limit when it looked
        return real_has_slot(owner_id, now)

    monkeypatch.setattr(fair_share, "has_slot", full_for_the_first)
    answers: dict[str, object] = {}

    def run(name: str) -> None:
        try:
            answers[name] = deliveries.deliver(delivery.id)
        finally:
            connection.close()

    parker = threading.Thread(target=run, args=("parker",))
    parker.start()
    assert parking.wait(10)
    waker = threading.Thread(target=run, args=("waker",))
    waker.start()
    time.sleep(0.3)  # the waker reaches the row the parker holds
    release.set()
    parker.join(10)
    waker.join(10)

    assert answers["parker"] is None
    waker = answers["waker"]
    assert isinstance(waker, client.Answer)
    assert waker.ok
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == (DeliveryStatus.DELIVERED, 1)
    assert len(receiver.accepted("/woken")) == 1
