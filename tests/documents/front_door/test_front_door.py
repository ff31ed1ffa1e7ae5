"""The front door: documents.front_door.admission.admit, one order of checks for every
request that makes jobs (backlog, then who asks, then rate, jobs in flight and quota), and
documents.front_door.intake, the one service that turns an admitted upload's files into
documents."""

import json

import pytest
from django.test import Client
from rest_framework.test import APIClient

from documents.front_door import admission
from documents.front_door.refusal import Refusal
from jobs.models import Job, JobStatus
from tests.conftest import pdf_upload
from tests.factories import make_document, make_pdf

pytestmark = pytest.mark.django_db

GIF = b"GIF89a" + b"\x00" * 200


@pytest.fixture(autouse=True)
def fresh_admission():
    admission.forget_backlog()
    yield
    admission.forget_backlog()


def refusal_of(**admit) -> Refusal:
    with pytest.raises(Refusal) as refused:
        admission.admit(**admit)
    return refused.value


def test_a_full_service_refuses_before_asking_who_is_asking(alice, bob, settings):
    settings.INGEST_MAX_BACKLOG = 1
    make_document(bob)
    asked = []

    def signed_in() -> int:
        asked.append(alice.pk)
        return alice.pk

    refusal = refusal_of(signed_in=signed_in)

    assert (refusal.http_status, refusal.code) == (503, "backlog_full")
    assert refusal.retry_after >= 1
    assert asked == []


def test_an_upload_without_credentials_to_a_full_service_is_answered_503(bob, settings):
    settings.INGEST_MAX_BACKLOG = 1
    make_document(bob)

    response = APIClient().post("/api/documents/", {"file": pdf_upload(make_pdf())})

    assert response.status_code == 503
    assert response.json()["code"] == "backlog_full"


def test_the_rate_counts_a_request_that_its_jobs_in_flight_then_refuse(alice, settings):
    settings.INGEST_UPLOAD_THROTTLE_RATE = "1/min"
    settings.INGEST_MAX_INFLIGHT_PER_USER = 1
    make_document(alice)

    first = refusal_of(signed_in=lambda: alice.pk)
    second = refusal_of(signed_in=lambda: alice.pk)

    assert (first.http_status, first.code) == (429, "too_many_in_flight")
    assert (second.http_status, second.code) == (429, "throttled")
    assert "try again in" in second.detail
    assert second.retry_after >= 1


def test_the_quota_is_asked_last_and_only_of_requests_that_add_documents(alice, settings):
    settings.INGEST_MAX_DOCUMENTS_PER_USER = 1
    make_document(alice)

    admission.admit(signed_in=lambda: alice.pk)  # a retry adds no document
    over = refusal_of(signed_in=lambda: alice.pk, quota=True)
    settings.INGEST_MAX_INFLIGHT_PER_USER = 1
    admission.forget_backlog()
    in_flight = refusal_of(signed_in=lambda: alice.pk, quota=True)

    assert (over.http_status, over.code, over.retry_after) == (429, "document_quota_exceeded", None)
    assert in_flight.code == "too_many_in_flight"


def test_files_all_refused_for_one_reason_answer_that_reasons_status(alice_client, broker):
    files = [pdf_upload(GIF, "a.gif"), pdf_upload(GIF, "b.gif")]

    response = alice_client.post("/api/documents/", {"file": files}, format="multipart")

    assert response.status_code == 415
    body = response.json()
    assert body["code"] == "rejected"
    assert [r["error"]["code"] for r in body["results"]] == ["unsupported_type", "unsupported_type"]


def test_rejected_files_do_not_count_as_admitted_jobs(alice_client, broker, settings):
    settings.INGEST_MAX_BACKLOG = 2
    files = [pdf_upload(GIF, f"{n}.gif") for n in range(3)]

    refused = alice_client.post("/api/documents/", {"file": files}, format="multipart")
    accepted = alice_client.post("/api/documents/", {"file": pdf_upload(make_pdf())})

    assert refused.status_code == 415
    assert accepted.status_code == 202


def test_a_new_version_counts_towards_the_backlog_at_once(alice, alice_client, broker, settings):
    settings.INGEST_MAX_BACKLOG = 1
    document = make_document(alice)
    Job.objects.filter(id=document.current_job_id).update(status=JobStatus.SUCCEEDED)

    version = alice_client.post(
        f"/api/documents/{document.id}/versions/", {"file": pdf_upload(make_pdf(seed=2))}
    )
    upload = alice_client.post("/api/documents/", {"file": pdf_upload(make_pdf(seed=3))})

    assert version.status_code == 202
    assert upload.status_code == 503


def test_a_retry_from_the_page_is_told_why_it_cannot_be_retried_even_while_busy(
    alice, bob, settings
):
    settings.INGEST_MAX_BACKLOG = 1
    make_document(bob)  # the backlog is full
    queued = make_document(alice)  # retried in another tab meanwhile
    client = Client()
    client.force_login(alice)

    response = client.post(f"/documents/{queued.id}/retry/")

    assert response.status_code == 200  # its row, as it is
    notice = json.loads(response["HX-Trigger"])["notice"]
    assert notice == "Only a failed document can be retried; this one is queued."
    assert Job.objects.filter(document=queued).count() == 1
