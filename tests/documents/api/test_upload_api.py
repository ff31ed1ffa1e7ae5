"""POST /api/documents/ answers 202 at once; the work happens later, elsewhere."""

import pytest
from django.core.files.storage import default_storage
from django.test import Client

from documents.models import Document
from jobs.actors import process_fast_job as process_job
from jobs.models import Job, JobStatus
from search.models import Chunk
from tests.conftest import pdf_upload, wait_until_terminal
from tests.factories import make_pdf

pytestmark = pytest.mark.django_db(transaction=True)


def queued_messages(broker) -> int:
    return broker.client.hlen(f"dramatiq:{process_job.queue_name}.msgs")


def test_an_upload_is_answered_202_before_any_processing(alice_client, broker):
    content = make_pdf(pages=2)

    response = alice_client.post("/api/documents/", {"file": pdf_upload(content, "q3.pdf")})

    assert response.status_code == 202
    [result] = response.json()["results"]
    assert result["filename"] == "q3.pdf"
    assert result["status"] == "queued"
    assert response["Location"] == result["status_url"]
    assert result["status_url"].endswith(f"/api/jobs/{result['job_id']}/")
    job = Job.objects.get(id=result["job_id"])
    assert job.status == JobStatus.QUEUED
    assert job.attempts == 0
    assert job.enqueued_at is not None, "the id was sent after commit"
    assert queued_messages(broker) == 1
    assert not Chunk.objects.exists()


def test_the_file_is_stored_under_a_key_made_of_ids(alice_client, alice, broker):
    content = make_pdf()

    response = alice_client.post(
        "/api/documents/", {"file": pdf_upload(content, "../../etc/passwd.pdf")}
    )

    document = Document.objects.get(id=response.json()["results"][0]["document_id"])
    assert document.storage_key == f"documents/{alice.pk}/{document.id}/v1.pdf"
    assert document.size == len(content)
    with default_storage.open(document.storage_key, "rb") as stored:
        assert stored.read() == content


def test_a_queued_upload_is_processed_once_a_worker_starts(alice_client, broker, worker):
    response = alice_client.post("/api/documents/", {"file": pdf_upload(make_pdf())})

    [job] = wait_until_terminal([response.json()["results"][0]["job_id"]])
    assert job.status == JobStatus.SUCCEEDED


def test_a_request_without_a_file_is_refused(alice_client, broker):
    response = alice_client.post("/api/documents/", {})

    assert response.status_code == 400
    assert not Document.objects.exists()


def test_anonymous_uploads_are_refused(client, broker):
    response = client.post("/api/documents/", {"file": pdf_upload(make_pdf())})

    assert response.status_code in (401, 403)
    assert not Document.objects.exists()


def test_a_signed_in_browser_uploads_with_its_session_and_csrf_token(alice, broker):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(alice)
    token = "Zx9" * 10 + "ab"  # any 32 allowed characters, as a CSRF cookie holds
    browser.cookies["csrftoken"] = token
    upload = pdf_upload(make_pdf())

    refused = browser.post("/api/documents/", {"file": upload})
    upload.seek(0)
    accepted = browser.post("/api/documents/", {"file": upload}, HTTP_X_CSRFTOKEN=token)

    assert refused.status_code == 403
    assert accepted.status_code == 202
    assert Document.objects.get().owner == alice


def test_an_uploads_rows_share_one_clock(alice_client, broker):
    answer = alice_client.post("/api/documents/", {"file": pdf_upload(make_pdf(seed=7))})

    job = Job.objects.select_related("document").get(id=answer.json()["results"][0]["job_id"])
    assert job.created_at == job.queued_at == job.enqueued_at == job.document.created_at
