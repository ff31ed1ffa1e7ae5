"""The whole corpus, through the API and real worker processes, ends as the manifest says."""

import os

import pytest

from jobs.models import Job
from search.models import Chunk
from tests.conftest import pdf_upload, wait_until_terminal
from tests.factories import CORPUS, corpus_rows

pytestmark = pytest.mark.django_db(transaction=True)


def matches(outcome: str, expect: str) -> bool:
    if expect.startswith("succeeded_as:"):  # another type than PDF, read by its own reader
        return outcome == "succeeded"
    if expect == "failed:corrupt_or_no_text":
        return outcome in (
            "failed:corrupt",
            "failed:no_text",
            "failed:too_complex",
            "rejected:not_a_pdf",
        )
    if expect.startswith("rejected_or_failed:"):
        # Refused at upload (no %PDF- header: not_a_pdf), or failed in the worker as said.
        return outcome == "rejected:not_a_pdf" or outcome == f"failed:{expect.split(':', 1)[1]}"
    return outcome == expect


# Each extractor INGEST_EXTRACTOR may name must end every file the same way. The suite
# runs the default one end to end; PDFium's outcome on every file is read in process by
# tests/search/test_reader_pdfium.py, and `make chaos` (which sets INGEST_CHAOS_ROUNDS)
# runs both end to end.
EXTRACTORS = ["pdfminer", "pdfium"] if os.environ.get("INGEST_CHAOS_ROUNDS") else ["pdfminer"]


@pytest.mark.parametrize("extractor", EXTRACTORS)
def test_every_corpus_file_ends_as_its_manifest_says(
    extractor, alice_client, settings, start_worker
):
    settings.INGEST_UPLOAD_THROTTLE_RATE = "1000/min"
    workers = [
        start_worker(threads=2, INGEST_EXTRACTOR=extractor),
        start_worker(threads=2, INGEST_EXTRACTOR=extractor),
    ]
    rows = corpus_rows()
    answers = {}
    for row in rows:
        name = row["file"].rsplit("/", 1)[-1]
        upload = pdf_upload((CORPUS / row["file"]).read_bytes(), name)
        answers[row["file"]] = alice_client.post("/api/documents/", {"file": upload}).json()[
            "results"
        ][0]
    job_ids = [a["job_id"] for a in answers.values() if "job_id" in a]

    jobs = {str(job.id): job for job in wait_until_terminal(job_ids, timeout=240)}

    misses = []
    for row in rows:
        result = answers[row["file"]]
        if result["status"] == "rejected":
            outcome = f"rejected:{result['error']['code']}"
        else:
            job = jobs[result["job_id"]]
            outcome = "succeeded" if job.status == "succeeded" else f"failed:{job.error_code}"
            if job.status == "failed":
                assert job.attempts == 1, f"{row['file']}: a permanent failure was retried"
        if not matches(outcome, row["expect"]):
            misses.append(f"{row['file']}: {outcome}, expected {row['expect']}")
    assert misses == []
    assert not Job.objects.exclude(status__in=["succeeded", "failed"]).exists()
    assert all(worker.popen.poll() is None for worker in workers), "no worker died"
    # Exactly once in effect: no chunk position twice.
    assert (
        Chunk.objects.values("document_id", "version", "index").distinct().count()
        == Chunk.objects.count()
    )
