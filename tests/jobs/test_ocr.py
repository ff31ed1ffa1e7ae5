"""Scanned pages become text: found in the fast lane, read by OCR in the `ocr` lane, with a
real Tesseract in the sandboxed child and a real Dramatiq worker."""

import pytest

from jobs.models import AttemptOutcome, JobAttempt, JobStatus, Lane
from search.models import Chunk
from tests.conftest import pdf_upload, wait_until_terminal
from tests.factories import joined_pdf, private_use_pdf, scanned_pdf, text_pdf
from tests.search.scans import image_pages_pdf

pytestmark = pytest.mark.django_db(transaction=True)

CONTRACT = (
    "This agreement is made between the buyer and the seller. The seller delivers the "
    "goods within thirty days of the order, and the buyer pays the invoice within sixty days."
)


def upload(client, content: bytes, name: str = "scan.pdf") -> dict:
    response = client.post("/api/documents/", {"file": pdf_upload(content, name)})
    assert response.status_code == 202, response.content
    return response.json()["results"][0]


def test_a_scan_is_read_by_ocr_in_its_own_lane(alice_client, worker, settings):
    result = upload(alice_client, scanned_pdf(CONTRACT))

    [job] = wait_until_terminal([result["job_id"]], timeout=120)

    assert job.status == JobStatus.SUCCEEDED, job.error_detail
    assert job.lane == Lane.OCR
    assert job.attempts == 1, "the hand-off to the OCR lane is not an attempt"
    outcomes = list(
        JobAttempt.objects.filter(job=job).order_by("number").values_list("outcome", flat=True)
    )
    assert outcomes == [AttemptOutcome.HANDED_ON, AttemptOutcome.SUCCEEDED]
    chunks = list(Chunk.objects.filter(document_id=result["document_id"]))
    text = " ".join(chunk.text for chunk in chunks).lower()
    assert "seller delivers the goods" in text
    assert {chunk.source for chunk in chunks} == {"ocr"}
    assert all(0.5 < chunk.confidence <= 1 for chunk in chunks)


def test_a_document_mixing_text_and_scanned_pages_keeps_its_text_layer(alice_client, worker):
    mixed = joined_pdf(
        text_pdf("The born digital page speaks of invoices and receipts."), scanned_pdf(CONTRACT)
    )
    result = upload(alice_client, mixed, "mixed.pdf")

    [job] = wait_until_terminal([result["job_id"]], timeout=120)

    assert job.status == JobStatus.SUCCEEDED, job.error_detail
    by_page = {
        chunk.page: chunk for chunk in Chunk.objects.filter(document_id=result["document_id"])
    }
    assert by_page[1].source == "text"
    assert by_page[1].confidence is None
    assert "invoices and receipts" in by_page[1].text
    assert by_page[2].source == "ocr"
    assert "thirty days" in by_page[2].text.lower()


def test_a_scan_where_ocr_finds_nothing_ends_no_text_saying_so(alice_client, worker):
    result = upload(alice_client, scanned_pdf(blank_pages=2), "blank.pdf")

    [job] = wait_until_terminal([result["job_id"]], timeout=120)

    assert (job.status, job.error_code) == (JobStatus.FAILED, "no_text")
    assert "OCR found no text on the 2 pages it read" in job.error_detail
    detail = alice_client.get(f"/api/jobs/{job.id}/").json()["error"]["detail"]
    assert "OCR" in detail


def test_with_ocr_off_a_scan_ends_no_text_at_once(alice_client, worker, settings):
    settings.INGEST_OCR = "off"
    result = upload(alice_client, scanned_pdf(CONTRACT))

    [job] = wait_until_terminal([result["job_id"]], timeout=60)

    assert (job.status, job.error_code, job.lane) == (JobStatus.FAILED, "no_text", Lane.FAST)
    assert "INGEST_OCR=off" in job.error_detail


def test_a_page_holding_a_huge_image_ends_too_complex_once(alice_client, worker):
    result = upload(alice_client, image_pages_pdf(width=40_000, height=40_000), "huge.pdf")

    [job] = wait_until_terminal([result["job_id"]], timeout=120)

    assert (job.status, job.error_code, job.lane) == (JobStatus.FAILED, "too_complex", Lane.OCR)
    assert job.attempts == 1
    assert "40000 x 40000 pixels" in job.error_detail


def test_a_two_thousand_page_scan_ends_too_many_pages_once_before_the_ocr_lane(
    alice_client, worker
):
    result = upload(alice_client, image_pages_pdf(pages=2000), "long-scan.pdf")

    [job] = wait_until_terminal([result["job_id"]], timeout=120)

    assert (job.status, job.error_code) == (JobStatus.FAILED, "too_many_pages")
    assert job.lane == Lane.FAST, "failed where it was found, never sent on to OCR"
    assert job.attempts == 1
    assert "2000 pages to read by OCR" in job.error_detail


def test_a_text_layer_that_cannot_be_read_is_read_by_ocr_and_the_history_says_why(
    alice_client, worker
):
    readable = "The born digital page speaks of invoices and receipts."
    garbled = private_use_pdf(CONTRACT)
    result = upload(alice_client, joined_pdf(text_pdf(readable), garbled), "garbled.pdf")

    [job] = wait_until_terminal([result["job_id"]], timeout=120)

    assert job.status == JobStatus.SUCCEEDED, job.error_detail
    handed = JobAttempt.objects.get(job=job, outcome=AttemptOutcome.HANDED_ON)
    assert handed.error_message == (
        "1 page to read by OCR (page 2: its glyphs map to private-use characters)"
    )
    by_page = {c.page: c for c in Chunk.objects.filter(document_id=result["document_id"])}
    assert (by_page[1].source, by_page[2].source) == ("text", "ocr")
    assert "seller delivers the goods" in by_page[2].text.lower()
    assert not any("\ue000" <= ch <= "\uf8ff" for ch in by_page[2].text)
