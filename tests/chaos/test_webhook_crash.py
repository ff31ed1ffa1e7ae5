"""A worker SIGKILLed after its job succeeded, while the webhook was on its way: the event
still arrives, with the same webhook-id, once the claim runs out and the sweeper re-sends."""

import time

import pytest

from jobs.models import JobStatus
from jobs.webhooks.models import Delivery, DeliveryStatus, Endpoint
from jobs.webhooks.sending.delivery import CLAIM_SECONDS
from jobs.webhooks.sending.sweep import resend_due
from tests.conftest import eventually, pdf_upload, wait_until_terminal
from tests.factories import make_pdf
from tests.fakes.webhook_receiver import Receiver, Reply

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def receiver(settings):
    settings.INGEST_WEBHOOK_ALLOW_PRIVATE = True
    receiver = Receiver()
    yield receiver
    receiver.close()


def test_a_worker_killed_before_the_webhook_answered_delivers_it_later_with_the_same_id(
    alice, alice_client, broker, start_worker, receiver
):
    endpoint = Endpoint.objects.create(owner=alice, url=receiver.url("/hook"))
    receiver.secrets.append(endpoint.secret)
    receiver.plan("/hook", Reply(hang=60))  # the first POST gets no answer: the worker dies
    doomed = start_worker(INGEST_WEBHOOK_ALLOW_PRIVATE="true")
    answer = alice_client.post("/api/documents/", {"file": pdf_upload(make_pdf(seed=5))})
    [job] = wait_until_terminal([answer.json()["results"][0]["job_id"]])
    assert job.status == JobStatus.SUCCEEDED
    [first] = eventually(lambda: receiver.at("/hook"), timeout=30)

    doomed.kill()  # the job is done; its webhook is not
    start_worker(INGEST_WEBHOOK_ALLOW_PRIVATE="true")
    time.sleep(CLAIM_SECONDS + 1)  # the dead worker's claim on the delivery runs out
    resend_due(grace=0)  # the Procfile's sweeper, one pass

    delivery = eventually(lambda: Delivery.objects.get(status=DeliveryStatus.DELIVERED), timeout=30)
    [_, again] = receiver.at("/hook")  # the one never answered, and its redelivery
    assert again.webhook_id == first.webhook_id
    assert again.body == first.body
    assert not again.signature_error
    assert delivery.attempts == 2
    assert delivery.event.job_id == job.id
