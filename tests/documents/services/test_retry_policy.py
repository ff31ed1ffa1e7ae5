"""A failure caused by the file itself is not retried (documents.services.retries.retry_refusal),
and a retry from the page is admitted as an upload is: backlog, rate and in-flight limits."""

import json

import pytest
from django.test import Client

from documents.front_door import admission
from jobs.models import Job, JobStatus
from search.models import Chunk
from tests.conftest import pdf_upload, wait_until_terminal
from tests.factories import make_document, make_pdf, scanned_pdf

pytestmark = pytest.mark.django_db

FILE_CODES = ["not_a_pdf", "encrypted", "corrupt", "no_text"]


@pytest.fixture(autouse=True)
def fresh_admission():
    admission.forget_backlog()
    yield
    admission.forget_backlog()


def failed(owner, code: str, detail: str = "", **fields):
    document = make_document(owner, **fields)
    Job.objects.filter(id=document.current_job_id).update(
        status=JobStatus.FAILED, error_code=code, error_detail=detail, attempts=1
    )
    document.refresh_from_db()
    return document


def page_client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def notice(response) -> str:
    return json.loads(response["HX-Trigger"])["notice"]


@pytest.mark.parametrize("code", FILE_CODES)
def test_a_failure_of_the_file_itself_is_not_retryable_by_the_api(
    alice_client, alice, code, settings
):
    settings.INGEST_OCR = "off"  # with OCR on, no_text is retryable (below)
    document = failed(alice, code)

    response = alice_client.post(f"/api/documents/{document.id}/retry/")

    assert response.status_code == 409
    body = response.json()
    assert body["code"] == "not_retryable"
    assert f"because of the file itself ({code})" in body["detail"]
    assert "new version" in body["detail"]
    assert Job.objects.filter(document=document).count() == 1


@pytest.mark.parametrize("code", FILE_CODES)
def test_the_page_offers_no_retry_for_it_and_refuses_the_post(alice, code, settings):
    settings.INGEST_OCR = "off"
    document = failed(alice, code)
    client = page_client(alice)

    row = client.get(f"/documents/{document.id}/row/").content.decode()
    response = client.post(f"/documents/{document.id}/retry/")

    assert 'data-status="failed"' in row
    assert ">Retry</button>" not in row
    assert response.status_code == 200  # the row as it is, and why
    assert ">Retry</button>" not in response.content.decode()
    assert "because of the file itself" in notice(response)
    assert Job.objects.filter(document=document).count() == 1


def test_with_ocr_off_the_no_text_refusal_says_ocr_is_off(alice_client, alice, settings):
    settings.INGEST_OCR = "off"
    document = failed(alice, "no_text", "No text layer: it looks scanned; OCR is not enabled.")

    body = alice_client.post(f"/api/documents/{document.id}/retry/").json()

    assert body["code"] == "not_retryable"
    assert "OCR (reading scanned pages) is off on this service" in body["detail"]


@pytest.mark.parametrize("mode", ["auto", "force"])
@pytest.mark.parametrize(
    "detail",
    [
        "No text layer: it looks scanned; OCR is not enabled.",  # before OCR existed
        "OCR found no text on the 2 pages it read, and the text layer has none.",
    ],
)
def test_with_ocr_on_no_text_is_retryable_by_the_api_and_the_page(
    alice_client, alice, settings, broker, mode, detail
):
    settings.INGEST_OCR = mode
    document = failed(alice, "no_text", detail)

    row = page_client(alice).get(f"/documents/{document.id}/row/").content.decode()
    response = alice_client.post(f"/api/documents/{document.id}/retry/")

    assert ">Retry</button>" in row
    assert response.status_code == 202, response.content


@pytest.mark.django_db(transaction=True)
def test_a_scan_read_with_ocr_off_is_read_by_ocr_once_retried_with_it_on(
    alice_client, alice, settings, worker
):
    settings.INGEST_OCR = "off"
    scan = scanned_pdf("The warehouse ships the pallets every Tuesday before noon.")
    upload = {"file": pdf_upload(scan, "scan.pdf")}
    accepted = alice_client.post("/api/documents/", upload, format="multipart").json()
    [job] = wait_until_terminal([accepted["results"][0]["job_id"]])
    assert (job.status, job.error_code) == (JobStatus.FAILED, "no_text")
    refused = alice_client.post(f"/api/documents/{job.document_id}/retry/")

    settings.INGEST_OCR = "auto"
    told = alice_client.get(f"/api/jobs/{job.id}/").json()["error"]["detail"]
    retried = alice_client.post(f"/api/documents/{job.document_id}/retry/")

    assert refused.status_code == 409
    assert "read before OCR (reading scanned pages) was turned on" in told
    assert retried.status_code == 202, retried.content
    [again] = wait_until_terminal([retried.json()["job_id"]], timeout=120)
    assert again.status == JobStatus.SUCCEEDED, again.error_detail
    chunks = Chunk.objects.filter(document_id=job.document_id)
    assert {chunk.source for chunk in chunks} == {"ocr"}
    assert "pallets" in " ".join(chunk.text for chunk in chunks).lower()


@pytest.mark.parametrize("code", ["retries_exhausted", "timeout", "crashed", "expired"])
def test_other_failures_stay_retryable(alice_client, alice, code, broker):
    document = failed(alice, code)

    row = page_client(alice).get(f"/documents/{document.id}/row/").content.decode()
    response = alice_client.post(f"/api/documents/{document.id}/retry/")

    assert ">Retry</button>" in row
    assert response.status_code == 202


def test_too_many_pages_is_retryable_once_the_limit_covers_the_file(
    alice_client, alice, settings, broker
):
    settings.INGEST_MAX_PAGES = 2000
    document = failed(
        alice, "too_many_pages", "The PDF has 2500 pages; the limit is 2000.", filename="big.pdf"
    )
    url = f"/api/documents/{document.id}/retry/"

    refused = alice_client.post(url)
    settings.INGEST_MAX_PAGES = 2400  # higher, still short of the file
    still = alice_client.post(url)
    settings.INGEST_MAX_PAGES = 2500
    row = page_client(alice).get(f"/documents/{document.id}/row/").content.decode()
    accepted = alice_client.post(url)

    assert (refused.status_code, refused.json()["code"]) == (409, "not_retryable")
    assert "2500 pages and the limit is 2000" in refused.json()["detail"]
    assert still.status_code == 409
    assert ">Retry</button>" in row
    assert accepted.status_code == 202


@pytest.mark.django_db(transaction=True)
def test_too_many_pages_reads_the_count_the_real_reader_wrote(
    alice_client, alice, settings, worker
):
    """The decision reads the failure's detail: this holds it to what the reader writes."""
    settings.INGEST_MAX_PAGES = 2
    upload = {"file": pdf_upload(make_pdf(3, words_per_page=30), "three.pdf")}
    accepted = alice_client.post("/api/documents/", upload, format="multipart").json()
    [job] = wait_until_terminal([accepted["results"][0]["job_id"]])
    assert (job.status, job.error_code) == (JobStatus.FAILED, "too_many_pages")
    url = f"/api/documents/{job.document_id}/retry/"

    refused = alice_client.post(url)
    settings.INGEST_MAX_PAGES = 3
    retried = alice_client.post(url)

    assert refused.status_code == 409
    assert "3 pages and the limit is 2" in refused.json()["detail"]
    assert retried.status_code == 202
    [again] = wait_until_terminal([retried.json()["job_id"]])
    assert again.status == JobStatus.SUCCEEDED


def test_three_retries_from_the_page_with_room_for_two_refuse_the_third(alice, settings, broker):
    settings.INGEST_MAX_INFLIGHT_PER_USER = 2
    documents = [failed(alice, "retries_exhausted") for _ in range(3)]
    client = page_client(alice)

    answers = [client.post(f"/documents/{d.id}/retry/") for d in documents]

    assert [a.status_code for a in answers] == [200, 200, 429]
    refused = answers[2]
    assert int(refused["Retry-After"]) >= 1
    assert "You have 2 documents waiting or in processing (the limit is 2)" in notice(refused)
    documents[2].refresh_from_db()
    assert documents[2].current_job.status == JobStatus.FAILED, "no job was made for it"
    assert Job.objects.filter(owner=alice, status=JobStatus.QUEUED).count() == 2


def test_a_retry_from_the_page_waits_while_the_service_is_past_its_backlog(
    alice, bob, settings, broker
):
    settings.INGEST_MAX_BACKLOG = 1
    make_document(bob)  # one job in flight: the backlog is full
    document = failed(alice, "retries_exhausted")

    response = page_client(alice).post(f"/documents/{document.id}/retry/")

    assert response.status_code == 503
    assert int(response["Retry-After"]) >= 1
    assert "The service is busy" in notice(response)
    assert Job.objects.filter(document=document).count() == 1


def test_a_retry_from_the_page_counts_against_the_upload_rate(alice, settings, broker):
    settings.INGEST_UPLOAD_THROTTLE_RATE = "1/hour"
    first, second = failed(alice, "retries_exhausted"), failed(alice, "retries_exhausted")
    client = page_client(alice)

    answers = [client.post(f"/documents/{d.id}/retry/") for d in (first, second)]

    assert [a.status_code for a in answers] == [200, 429]
    assert int(answers[1]["Retry-After"]) >= 1
    assert "try again in" in notice(answers[1])
    assert Job.objects.filter(document=second).count() == 1
