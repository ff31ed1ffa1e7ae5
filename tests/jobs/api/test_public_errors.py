"""Users get an error's code and a plain sentence; tracebacks, worker names, database
errors and the provider's address stay in the admin (jobs.failures)."""

import inspect
import json

import pytest
from django.test import Client

from jobs import failures, services
from jobs.models import Job, JobStatus
from search.pipeline import classify, errors
from tests.factories import make_document

pytestmark = pytest.mark.django_db

WORKER = "ingest-worker-7:4242:Thread-3"
INTERNALS = [
    "Traceback",
    "ingest-worker-7",
    "4242",
    "psycopg",
    "OperationalError",
    "embeddings.internal",
    "site-packages",
]
LAST_ERROR = (
    "Gave up after 2 attempts. Last error: OperationalError: connection to server at "
    '"10.0.0.5", port 5432 failed (psycopg); provider https://embeddings.internal:8443/v1'
)
TRACEBACK = (
    'Traceback (most recent call last):\n  File "/srv/.venv/lib/site-packages/psycopg/x.py"'
    "\npsycopg.OperationalError: server closed the connection"
)


@pytest.fixture
def failed(alice, settings) -> Job:
    """A job that failed after two attempts, the way the worker records it."""
    settings.OPENAI_BASE_URL = "https://embeddings.internal:8443/v1"
    settings.INGEST_MAX_ATTEMPTS = 2
    job_id = make_document(alice, filename="q3.pdf").current_job_id
    first = services.claim_job(job_id=job_id, worker=WORKER)
    services.retry_or_fail(job=first, code="connection", detail=LAST_ERROR, tb=TRACEBACK)
    Job.objects.filter(id=job_id).update(next_attempt_at=None)
    second = services.claim_job(job_id=job_id, worker=WORKER)
    services.retry_or_fail(job=second, code="provider_unavailable", detail=LAST_ERROR, tb=TRACEBACK)
    job = Job.objects.get(id=job_id)
    assert (job.status, job.error_code) == (JobStatus.FAILED, "retries_exhausted")
    return job


def shows_no_internals(text: str) -> None:
    for internal in INTERNALS:
        assert internal not in text, internal


def test_the_job_api_gives_the_code_and_a_sentence_and_no_internals(alice_client, failed):
    body = alice_client.get(f"/api/jobs/{failed.id}/").json()

    shows_no_internals(json.dumps(body))
    assert body["error"] == {
        "code": "retries_exhausted",
        "detail": "Gave up after 2 attempts. " + failures.SENTENCES["retries_exhausted"],
    }
    first, second = body["attempt_history"]
    assert set(first) == {
        "number",
        "started_at",
        "finished_at",
        "duration_seconds",
        "outcome",
        "error_code",
        "error_message",
    }
    assert (first["error_code"], first["error_message"]) == (
        "connection",
        failures.SENTENCES["connection"],
    )
    assert second["error_code"] == "retries_exhausted"


def test_the_documents_api_shows_the_same(alice_client, failed):
    listed = alice_client.get("/api/documents/").json()
    detail = alice_client.get(f"/api/documents/{failed.document_id}/").json()

    for body in (listed, detail):
        shows_no_internals(json.dumps(body))
    assert detail["job"]["error"]["code"] == "retries_exhausted"


def test_the_page_its_row_and_the_document_page_show_the_sentence(alice, failed):
    client = Client()
    client.force_login(alice)

    pages = [
        client.get("/").content.decode(),
        client.get(f"/documents/{failed.document_id}/row/").content.decode(),
        client.get(f"/documents/{failed.document_id}/").content.decode(),
    ]

    for html in pages:
        shows_no_internals(html)
        assert "Gave up after 2 attempts. A temporary problem" in html
    assert failures.SENTENCES["connection"] in pages[2]  # the attempt, on the document's page


def test_the_admin_keeps_everything_for_staff(operator_client, failed):
    html = operator_client.get(f"/admin/jobs/job/{failed.id}/change/").content.decode()

    assert "embeddings.internal" in html
    assert "Traceback" in html
    assert WORKER in html


def test_every_code_a_job_can_end_with_has_its_own_sentence():
    pipeline_codes = {
        cls.code
        for _, cls in inspect.getmembers(errors, inspect.isclass)
        if issubclass(cls, errors.PipelineError) and cls.code not in {"error", "permanent"}
    }
    job_codes = {
        "retries_exhausted",
        "crashed",
        "expired",
        "superseded",
        "lease_expired",
        "connection",
        "unexpected_error",
        "extractor_crashed",
        "embedding_rejected",
        "embedding_dimension_mismatch",
    }

    missing = (pipeline_codes | job_codes) - {"transient"} - set(failures.SENTENCES)

    assert not missing
    assert failures.sentence("something_new") == failures.FALLBACK
    assert failures.sentence("") == ""


OLD_NO_TEXT = "No text layer: it looks scanned; OCR is not enabled."  # before OCR existed


def failed_no_text(owner, detail: str) -> Job:
    """A job whose attempt failed no_text with `detail`, as the worker ends it."""
    job_id = make_document(owner, filename="scan.pdf").current_job_id
    job = services.claim_job(job_id=job_id, worker=WORKER)
    services.fail_job(job=job, code="no_text", detail=detail)
    return Job.objects.get(id=job_id)


@pytest.mark.parametrize(
    ("ocr", "detail", "told"),
    [
        ("off", OLD_NO_TEXT, "OCR (reading scanned pages) is off on this service"),
        ("off", classify.NO_TEXT_DETAIL, "OCR (reading scanned pages) is off on this service"),
        ("auto", OLD_NO_TEXT, "it was read before OCR (reading scanned pages) was turned on"),
        ("force", classify.NO_TEXT_DETAIL, "it was read before OCR"),
        (
            "auto",
            classify.OCR_FOUND_NOTHING.format(pages="2 pages"),
            "Neither the PDF's text layer nor OCR found any text in it",
        ),
        ("auto", classify.NO_IMAGES_DETAIL, "none of its pages holds an image that OCR"),
    ],
)
def test_no_text_says_what_happened_with_ocr_as_it_is_now(
    alice, alice_client, settings, ocr, detail, told
):
    settings.INGEST_OCR = ocr
    job = failed_no_text(alice, detail)
    client = Client()
    client.force_login(alice)

    body = alice_client.get(f"/api/jobs/{job.id}/").json()
    row = client.get(f"/documents/{job.document_id}/row/").content.decode()
    page = client.get(f"/documents/{job.document_id}/").content.decode()

    assert body["error"] == {"code": "no_text", "detail": failures.job_sentence(job)}
    assert told in body["error"]["detail"]
    assert told in body["attempt_history"][0]["error_message"]
    assert told.replace("'", "&#x27;") in row
    assert page.count(told.replace("'", "&#x27;")) == 3  # its row, the job, the attempt
    assert "OCR is not enabled" not in body["error"]["detail"] + row + page
    retry_offered = ">Retry</button>" in row
    assert retry_offered == (ocr != "off")
