"""The outbox: a job's ending writes its event and deliveries in the ending's transaction."""

import pytest
from django.db import transaction

from jobs import failures, services
from jobs.models import Job, JobStatus
from jobs.webhooks.models import Delivery, Endpoint, Event, EventType
from jobs.webhooks.outbox import JobEventBody, JobEventData
from jobs.webhooks.sending import signing
from tests.factories import make_document

pytestmark = pytest.mark.django_db

RECEIVER = "https://hooks.example.com/ingest"


def claimed(owner, **fields):
    document = make_document(owner, filename="q3.pdf", **fields)
    job = services.claim_job(job_id=document.current_job.id, worker="w:1:t")
    assert job is not None
    return job


def test_a_success_writes_one_event_and_a_delivery_per_listening_endpoint(alice, bob, settings):
    base = f"http://127.0.0.1:{settings.WEB_PORT}"  # absolute: tests/jobs/webhooks/test_status_url
    Endpoint.objects.create(owner=alice, url=RECEIVER)
    Endpoint.objects.create(owner=alice, url=RECEIVER + "/failures", events=[EventType.FAILED])
    Endpoint.objects.create(owner=bob, url=RECEIVER + "/bob")
    job = claimed(alice)

    with transaction.atomic():
        services.complete_job(job=job, total=7, ready_version=None, embed_model="hashing::384")

    [event] = Event.objects.all()
    assert event.type == "document.succeeded"
    assert event.payload["id"] == event.id
    assert event.id.startswith("msg_")
    data = event.payload["data"]
    assert data["document_id"] == str(job.document_id)
    assert data["job_id"] == str(job.id)
    assert (data["status"], data["chunks"], data["error"], data["filename"]) == (
        "succeeded",
        7,
        None,
        "q3.pdf",
    )
    start = settings.INGEST_PUBLIC_URL or base
    assert data["status_url"] == f"{start}/api/jobs/{job.id}/"
    document = f"{start}/api/documents/{job.document_id}"
    assert data["links"] == {
        "document": f"{document}/",
        "content": f"{document}/content?version=1",
        "chunks": f"{document}/chunks/?version=1",
    }
    assert list(Delivery.objects.values_list("url", flat=True)) == [RECEIVER]


def test_a_failure_carries_its_code_and_detail_to_the_uploads_own_url(alice):
    job = claimed(alice)
    job.webhook_url = RECEIVER
    job.save(update_fields=["webhook_url"])

    services.fail_job(job=job, code="encrypted", detail="The PDF is password-protected.")

    [event] = Event.objects.all()
    assert event.type == "document.failed"
    # The code and its plain sentence, as the API shows them (jobs.failures).
    assert event.payload["data"]["error"] == {
        "code": "encrypted",
        "detail": failures.sentence("encrypted"),
    }
    assert Delivery.objects.get().url == RECEIVER


def test_an_event_carries_the_documents_tags_and_metadata_as_they_are_at_its_end(alice):
    job = claimed(alice, tags=["contracts", "2024"], metadata={"client": "acme", "year": 2024})
    job.webhook_url = RECEIVER
    job.save(update_fields=["webhook_url"])
    # Relabelled while it was processed: the event tells what the document is at its end.
    job.document.__class__.objects.filter(id=job.document_id).update(tags=["contracts"])

    with transaction.atomic():
        services.complete_job(job=job, total=2, ready_version=None, embed_model="hashing::384")

    data = Event.objects.get().payload["data"]
    assert data["tags"] == ["contracts"]
    assert data["metadata"] == {"client": "acme", "year": 2024}


def test_an_event_of_an_unlabelled_document_has_empty_tags_and_metadata(alice):
    job = claimed(alice)
    job.webhook_url = RECEIVER
    job.save(update_fields=["webhook_url"])

    services.fail_job(job=job, code="corrupt", detail="Broken.")

    data = Event.objects.get().payload["data"]
    assert (data["tags"], data["metadata"]) == ([], {})


def test_nobody_listening_writes_nothing(alice):
    services.fail_job(job=claimed(alice), code="corrupt", detail="Broken.")

    assert not Event.objects.exists()


def test_an_ending_that_rolls_back_leaves_no_event(alice):
    Endpoint.objects.create(owner=alice, url=RECEIVER)
    job = claimed(alice)

    with transaction.atomic():
        services.complete_job(job=job, total=3, ready_version=None, embed_model="hashing::384")
        transaction.set_rollback(True)

    assert not Event.objects.exists()
    assert not Delivery.objects.exists()
    assert job.status == JobStatus.PROCESSING


def test_the_body_has_exactly_the_fields_its_type_names_as_receivers_know_them(alice):
    Endpoint.objects.create(owner=alice, url=RECEIVER)
    job = claimed(alice)

    services.fail_job(job=job, code="encrypted", detail="The PDF is password-protected.")

    [event] = Event.objects.all()
    wire = ["created_at", "data", "id", "type"]
    data = ["chunks", "document_id", "error", "filename", "job_id", "links", "metadata", "pages"]
    data += ["status", "status_url", "tags", "version"]
    assert sorted(event.payload) == sorted(JobEventBody.__required_keys__) == wire
    assert sorted(event.payload["data"]) == sorted(JobEventData.__required_keys__) == data
    sent = signing.body(event.payload).decode()
    assert sent.startswith('{"created_at":"')
    assert '"chunks":0,' in sent
    assert '"links":null,' in sent
    assert sent.endswith('"type":"document.failed"}')


def test_an_event_reaches_a_url_once_however_many_times_the_owner_names_it(alice):
    endpoint = Endpoint.objects.create(owner=alice, url=RECEIVER)
    Endpoint.objects.create(owner=alice, url=RECEIVER.replace("hooks.", "HOOKS."))  # from before
    job = claimed(alice)
    Job.objects.filter(id=job.id).update(webhook_url=RECEIVER)
    job.webhook_url = RECEIVER

    with transaction.atomic():
        services.complete_job(job=job, total=1, ready_version=None, embed_model="hashing::384")

    [delivery] = Delivery.objects.all()
    assert delivery.owner_id == alice.id
    assert delivery.endpoint_id is not None  # an endpoint's, signed with its own secret
    assert delivery.url.lower() == endpoint.url
