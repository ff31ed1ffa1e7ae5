"""/metrics after real uploads through the API and real jobs through a real worker: every
counter moved by what happened, and every gauge says what the database says."""

import pytest
from django.db.models import Sum

from documents.models import Document
from jobs.models import Job, JobStatus, Lane
from search.models import Chunk
from tests.conftest import pdf_upload, running_worker, wait_until_terminal
from tests.factories import make_pdf, scanned_pdf
from tests.jobs.ops.metrics_reader import delta, scrape, value

pytestmark = pytest.mark.django_db(transaction=True)


def post(client, *files) -> dict:
    response = client.post("/api/documents/", {"file": list(files)})
    return response.json()


def test_counters_follow_the_uploads_and_the_jobs(alice_client, broker):
    before = scrape()
    pdfs = [make_pdf(pages=n, words_per_page=300, seed=n) for n in (1, 2, 3)]
    answer = post(alice_client, *(pdf_upload(p, f"doc{n}.pdf") for n, p in enumerate(pdfs)))
    post(alice_client, pdf_upload(pdfs[0], "again.pdf"))  # the same bytes: a duplicate
    post(alice_client, pdf_upload(b"just some text", "notes.pdf"))  # not a PDF
    job_ids = [result["job_id"] for result in answer["results"]]

    with running_worker(broker):
        wait_until_terminal(job_ids)
    after = scrape()

    assert delta(before, after, "ingest_uploads_total", outcome="accepted", code="") == 3
    assert delta(before, after, "ingest_uploads_total", outcome="duplicate", code="") == 1
    assert delta(before, after, "ingest_uploads_total", outcome="rejected", code="not_a_pdf") == 1
    # Two 202s (the three files, the duplicate); the refusal is not an acknowledgement.
    assert delta(before, after, "ingest_upload_ack_seconds_count") == 2
    assert delta(before, after, "ingest_job_attempts_total", outcome="succeeded") == 3
    assert delta(before, after, "ingest_job_queue_wait_seconds_count", lane="fast") == 3
    assert delta(before, after, "ingest_job_processing_seconds_count", lane="fast") == 3
    assert delta(before, after, "ingest_document_time_to_ready_seconds_count") == 3
    pages = Document.objects.aggregate(n=Sum("page_count"))["n"]
    assert delta(before, after, "ingest_pages_extracted_total") == pages == 6
    assert delta(before, after, "ingest_chunks_stored_total") == Chunk.objects.count() > 3


def test_the_database_gauges_say_what_the_database_holds(alice_client, broker, no_other_workers):
    answer = post(alice_client, *(pdf_upload(make_pdf(seed=n), f"d{n}.pdf") for n in range(4)))
    job_ids = [result["job_id"] for result in answer["results"]]

    queued = scrape()

    assert value(queued, "ingest_jobs", status="queued", lane="fast") == 4
    assert value(queued, "ingest_jobs", status="succeeded", lane="fast") == 0
    assert value(queued, "ingest_queue_oldest_age_seconds", lane="fast") > 0
    assert value(queued, "ingest_queue_oldest_age_seconds", lane="batch") == 0
    assert value(queued, "ingest_workers_wanted", lane="fast") >= 1
    assert value(queued, "ingest_metrics_database_up") == 1

    with running_worker(broker, threads=3):
        wait_until_terminal(job_ids)
        done = scrape()

    for status in JobStatus.values:
        for lane in Lane.values:
            held = Job.objects.filter(status=status, lane=lane).count()
            assert value(done, "ingest_jobs", status=status, lane=lane) == held
    assert value(done, "ingest_jobs", status="succeeded", lane="fast") == 4
    assert value(done, "ingest_queue_oldest_age_seconds", lane="fast") == 0
    assert value(done, "ingest_worker_threads") == 3
    assert value(done, "ingest_workers_busy") == 0


def test_a_scan_read_by_ocr_counts_its_pages_in_the_ocr_lane(alice_client, broker):
    scan = scanned_pdf("The seller delivers the goods within thirty days of the order.")
    before = scrape()
    [result] = post(alice_client, pdf_upload(scan, "scan.pdf"))["results"]

    with running_worker(broker):
        [job] = wait_until_terminal([result["job_id"]], timeout=120)
    after = scrape()

    assert job.status == JobStatus.SUCCEEDED, job.error_detail
    assert delta(before, after, "ingest_ocr_pages_total") == 1
    assert delta(before, after, "ingest_job_processing_seconds_count", lane="ocr") == 1
    assert value(after, "ingest_jobs", status="succeeded", lane="ocr") == 1
    assert value(after, "ingest_jobs", status="queued", lane="ocr") == 0
    assert value(after, "ingest_job_seconds_per_attempt", lane="ocr") > 0
