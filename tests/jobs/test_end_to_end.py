"""A real upload through the API, a real Dramatiq worker, chunks in pgvector."""

import pytest

from jobs.actors import process_fast_job as process_job
from jobs.models import Job, JobStatus
from search.models import Chunk
from search.pipeline.store import chunk_id
from tests.conftest import eventually, pdf_upload, running_worker, wait_until_terminal
from tests.factories import CORPUS, corpus_rows, make_pdf

pytestmark = pytest.mark.django_db(transaction=True)


def upload(client, content: bytes, name: str = "report.pdf") -> dict:
    response = client.post("/api/documents/", {"file": pdf_upload(content, name)})
    assert response.status_code == 202, response.content
    return response.json()["results"][0]


def test_a_generated_pdf_becomes_chunks_in_pgvector(alice_client, worker):
    result = upload(alice_client, make_pdf(pages=3, words_per_page=400))

    [job] = wait_until_terminal([result["job_id"]])

    assert job.status == JobStatus.SUCCEEDED
    assert job.attempts == 1
    chunks = list(Chunk.objects.filter(document_id=result["document_id"]).order_by("index"))
    assert len(chunks) == job.progress_total == job.progress_done > 3
    assert {chunk.page for chunk in chunks} == {1, 2, 3}
    assert all(len(chunk.embedding) == 384 for chunk in chunks)
    assert [c.id for c in chunks] == [chunk_id(c.document_id, 1, c.index) for c in chunks]
    status = alice_client.get(f"/api/jobs/{job.id}/").json()
    assert status["status"] == "succeeded"
    assert status["progress"] == {
        "stage": "done",
        "done": len(chunks),
        "total": len(chunks),
        "pages_done": 3,
        "pages_total": 3,
    }


CORPUS_SAMPLE = [
    "py-pdf__sample-files/001-trivial/minimal-document.pdf",
    "py-pdf__sample-files/004-pdflatex-4-pages/pdflatex-4-pages.pdf",
    "py-pdf__sample-files/005-libreoffice-writer-password/libreoffice-writer-password.pdf",
    "py-pdf__sample-files/019-grayscale-image/grayscale-image.pdf",
    "py-pdf__sample-files/002-trivial-libre-office-writer/source.odt",
]


def test_real_pdfs_from_the_corpus_end_as_the_manifest_says(alice_client, worker):
    expected = {row["file"]: row["expect"] for row in corpus_rows()}
    answers = {}
    for name in CORPUS_SAMPLE:
        upload_file = pdf_upload((CORPUS / name).read_bytes(), name.rsplit("/", 1)[-1])
        answers[name] = alice_client.post("/api/documents/", {"file": upload_file}).json()
    job_ids = [a["results"][0]["job_id"] for a in answers.values() if "job_id" in a["results"][0]]

    jobs = {str(job.id): job for job in wait_until_terminal(job_ids)}

    for name, answer in answers.items():
        result = answer["results"][0]
        if result["status"] == "rejected":
            outcome = f"rejected:{result['error']['code']}"
        else:
            job = jobs[result["job_id"]]
            outcome = job.status if job.status == "succeeded" else f"failed:{job.error_code}"
            assert job.attempts == 1, "permanent failures are not retried"
            has_chunks = Chunk.objects.filter(document_id=result["document_id"]).exists()
            assert has_chunks == (outcome == "succeeded")
        assert matches(outcome, expected[name]), f"{name}: {outcome}"


def matches(outcome: str, expect: str) -> bool:
    if expect.startswith("succeeded_as:"):  # another type than PDF, read by its own reader
        return outcome == "succeeded"
    """The manifest's `expect`: rejected_or_failed:X allows a 415 at upload too."""
    if expect.startswith("rejected_or_failed:"):
        code = expect.split(":", 1)[1]
        return outcome in (f"rejected:{code}", f"failed:{code}")
    return outcome == expect


def test_the_same_job_sent_twice_stores_each_chunk_once(alice_client, broker):
    result = upload(alice_client, make_pdf(pages=2, words_per_page=300))
    process_job.send(result["job_id"])  # a duplicate delivery of the same id

    with running_worker(broker):
        [job] = wait_until_terminal([result["job_id"]])
        broker.join(process_job.queue_name, timeout=30_000)

    assert job.status == JobStatus.SUCCEEDED
    assert job.attempts == 1, "the second delivery found the job claimed and was dropped"
    chunks = Chunk.objects.filter(document_id=result["document_id"])
    assert chunks.count() == job.progress_total
    assert chunks.values("index").distinct().count() == chunks.count()


def test_processing_a_version_again_overwrites_its_chunks(alice_client, worker):
    result = upload(alice_client, make_pdf(pages=2, words_per_page=300))
    [job] = wait_until_terminal([result["job_id"]])
    first_ids = set(
        Chunk.objects.filter(document_id=result["document_id"]).values_list("id", flat=True)
    )

    Job.objects.filter(id=job.id).update(status=JobStatus.QUEUED)
    process_job.send(str(job.id))
    again = eventually(lambda: Job.objects.get(id=job.id, attempts=2, status=JobStatus.SUCCEEDED))

    assert again.status == JobStatus.SUCCEEDED
    second_ids = set(
        Chunk.objects.filter(document_id=result["document_id"]).values_list("id", flat=True)
    )
    assert second_ids == first_ids
