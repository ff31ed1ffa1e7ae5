"""An event's status_url is absolute, and the one the upload's answer gave: the job keeps
where the request reached the service (Job.public_url); INGEST_PUBLIC_URL, when set, is
every link's start; a job no request made points at the web process's own port."""

import pytest
from django.db import transaction
from django.urls import reverse

from jobs import services
from jobs.models import Job
from jobs.webhooks.models import Endpoint, Event
from jobs.webhooks.sending import signing
from tests.conftest import pdf_upload
from tests.factories import make_document, make_pdf

pytestmark = pytest.mark.django_db(transaction=True)

PUBLIC = "https://93.184.215.14/hook"  # a public literal address: checked, never called


def finish(job_id: str) -> Event:
    """The job, claimed and succeeded: its event."""
    job = services.claim_job(job_id=job_id, worker="w:1:t")
    assert job is not None
    with transaction.atomic():  # as the worker ends a job
        services.complete_job(job=job, total=3, ready_version=None, embed_model="hashing::384")
    return Event.objects.get(job_id=job_id)


def test_the_events_status_url_is_the_one_the_uploads_answer_gave(alice_client, broker):
    answer = alice_client.post(
        "/api/documents/",
        {"file": pdf_upload(make_pdf()), "webhook_url": PUBLIC},
        format="multipart",
        HTTP_HOST="127.0.0.1:8010",
    )
    [result] = answer.json()["results"]

    event = finish(result["job_id"])

    assert result["status_url"] == f"http://127.0.0.1:8010/api/jobs/{result['job_id']}/"
    assert event.payload["data"]["status_url"] == result["status_url"]
    assert f'"status_url":"{result["status_url"]}"'.encode() in signing.body(event.payload)


def test_a_new_version_and_a_retry_keep_the_address_their_own_request_used(
    alice, alice_client, broker
):
    Endpoint.objects.create(owner=alice, url=PUBLIC)
    first = alice_client.post(
        "/api/documents/", {"file": pdf_upload(make_pdf(seed=1))}, HTTP_HOST="127.0.0.1:8010"
    ).json()["results"][0]
    version = alice_client.post(
        f"/api/documents/{first['document_id']}/versions/",
        {"file": pdf_upload(make_pdf(seed=2))},
        HTTP_HOST="localhost:8010",
    ).json()

    assert Job.objects.get(id=first["job_id"]).public_url == "http://127.0.0.1:8010"
    assert finish(version["job_id"]).payload["data"]["status_url"] == version["status_url"]
    assert version["status_url"].startswith("http://localhost:8010/api/jobs/")

    failed = make_document(alice)
    claimed = services.claim_job(job_id=failed.current_job_id, worker="w:1:t")
    assert claimed is not None
    services.fail_job(job=claimed, code="embedding_rejected", detail="refused")
    retried = alice_client.post(
        f"/api/documents/{failed.id}/retry/", HTTP_HOST="localhost:8010"
    ).json()
    assert finish(retried["job_id"]).payload["data"]["status_url"] == retried["status_url"]


def test_ingest_public_url_starts_every_events_status_url(alice, settings):
    settings.INGEST_PUBLIC_URL = "https://ingest.example.com"
    Endpoint.objects.create(owner=alice, url=PUBLIC)
    job = make_document(alice).current_job
    Job.objects.filter(id=job.id).update(public_url="http://10.1.2.3:8000")

    data = finish(str(job.id)).payload["data"]

    path = reverse("job-detail", kwargs={"job_id": job.id})
    assert data["status_url"] == f"https://ingest.example.com{path}"


def test_a_job_no_request_made_points_at_the_web_processs_port(alice, settings):
    settings.INGEST_PUBLIC_URL = ""
    settings.WEB_PORT = 8010
    Endpoint.objects.create(owner=alice, url=PUBLIC)
    job = make_document(alice).current_job  # as manage.py reembed makes them

    data = finish(str(job.id)).payload["data"]

    assert data["status_url"] == f"http://127.0.0.1:8010/api/jobs/{job.id}/"
