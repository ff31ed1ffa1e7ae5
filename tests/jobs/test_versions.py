"""New versions: search serves version n until n + 1 is ready; an older result never wins."""

import pytest

from documents.models import Document
from jobs import services
from jobs.models import Job, JobStatus
from jobs.worker import processing
from search.models import Chunk
from tests.conftest import pdf_upload, wait_until_terminal
from tests.factories import make_pdf

pytestmark = pytest.mark.django_db(transaction=True)


def upload(client, content: bytes) -> dict:
    return client.post("/api/documents/", {"file": pdf_upload(content)}).json()["results"][0]


def new_version(client, document_id: str, content: bytes):
    return client.post(
        f"/api/documents/{document_id}/versions/", {"file": pdf_upload(content, "v.pdf")}
    )


def versions_of_chunks(document_id: str) -> set[int]:
    return set(Chunk.objects.filter(document_id=document_id).values_list("version", flat=True))


def test_a_new_version_gets_its_own_job_and_replaces_the_old_chunks_when_ready(
    alice_client, broker, worker
):
    first = upload(alice_client, make_pdf(pages=2, seed=1))
    wait_until_terminal([first["job_id"]])

    response = new_version(alice_client, first["document_id"], make_pdf(pages=3, seed=2))

    assert response.status_code == 202
    second = response.json()
    assert second["version"] == 2
    assert second["job_id"] != first["job_id"]
    [job] = wait_until_terminal([second["job_id"]])
    assert job.status == JobStatus.SUCCEEDED
    document = Document.objects.get(id=first["document_id"])
    assert (document.version, document.ready_version, document.page_count) == (2, 2, 3)
    assert versions_of_chunks(first["document_id"]) == {2}


def test_search_keeps_serving_version_one_while_version_two_is_processed(
    alice_client, broker, worker
):
    first = upload(alice_client, make_pdf(pages=2, seed=1))
    wait_until_terminal([first["job_id"]])
    worker.pause()
    try:
        second = new_version(alice_client, first["document_id"], make_pdf(seed=2)).json()
        document = Document.objects.get(id=first["document_id"])
        assert document.ready_version == 1
        assert versions_of_chunks(first["document_id"]) == {1}
    finally:
        worker.resume()
    wait_until_terminal([second["job_id"]])


def test_an_older_version_finishing_last_is_discarded(alice_client, alice, broker):
    first = upload(alice_client, make_pdf(pages=2, seed=1))
    old_job = services.claim_job(job_id=first["job_id"], worker="slow")
    second = new_version(alice_client, first["document_id"], make_pdf(pages=2, seed=2)).json()
    new_job = services.claim_job(job_id=second["job_id"], worker="fast")

    processing.run(new_job)  # version 2 is ready first
    processing.run(old_job)  # then version 1 finishes

    old_job.refresh_from_db()
    assert old_job.status == JobStatus.CANCELLED
    assert old_job.error_code == "superseded"
    assert "discarded" in old_job.error_detail
    assert Document.objects.get(id=first["document_id"]).ready_version == 2
    assert versions_of_chunks(first["document_id"]) == {2}


def test_another_users_document_cannot_get_a_version(bob_client, alice_client, broker):
    first = upload(alice_client, make_pdf())

    response = new_version(bob_client, first["document_id"], make_pdf(seed=5))

    assert response.status_code == 404
    assert Job.objects.count() == 1


def test_a_version_identical_to_another_document_returns_that_one(alice_client, broker):
    first = upload(alice_client, make_pdf(seed=1))
    second = upload(alice_client, make_pdf(seed=2))

    response = new_version(alice_client, second["document_id"], make_pdf(seed=1))

    assert response.status_code == 202
    assert response.json()["duplicate"] is True
    assert response.json()["document_id"] == first["document_id"]
    assert Document.objects.get(id=second["document_id"]).version == 1
    assert Job.objects.count() == 2


def test_a_version_identical_to_the_current_one_is_a_duplicate_and_makes_nothing(
    alice_client, broker
):
    first = upload(alice_client, make_pdf(seed=1))
    second = new_version(alice_client, first["document_id"], make_pdf(seed=2)).json()
    stored = Document.objects.get(id=first["document_id"]).stored_bytes

    response = new_version(alice_client, first["document_id"], make_pdf(seed=2))

    # As an upload of bytes the owner has is answered (POST /api/documents/).
    assert response.status_code == 202
    again = response.json()
    assert again["duplicate"] is True
    assert again["document_id"] == first["document_id"]
    assert (again["version"], again["job_id"]) == (2, second["job_id"])
    document = Document.objects.get(id=first["document_id"])
    assert (document.version, document.stored_bytes) == (2, stored)
    assert Job.objects.count() == 2
    assert broker.client.hlen("dramatiq:fast.msgs") == 2  # no third job was sent
    assert upload(alice_client, make_pdf(seed=2)) == {
        key: again[key] for key in ("filename", "document_id", "job_id", "status", "status_url")
    } | {"duplicate": True}


def test_an_older_versions_bytes_make_a_new_version(alice_client, broker):
    first = upload(alice_client, make_pdf(seed=1))
    new_version(alice_client, first["document_id"], make_pdf(seed=2))

    response = new_version(alice_client, first["document_id"], make_pdf(seed=1))

    assert response.status_code == 202
    assert "duplicate" not in response.json()
    assert response.json()["version"] == 3
    assert Job.objects.count() == 3


def test_a_version_must_be_a_pdf(alice_client, broker):
    first = upload(alice_client, make_pdf())

    response = new_version(alice_client, first["document_id"], b"plain text, not a pdf" * 80)

    assert response.status_code == 415
    assert response.json()["code"] == "not_a_pdf"
    assert Document.objects.get().version == 1


def test_large_documents_go_to_the_batch_lane(alice_client, broker, settings):
    settings.INGEST_FAST_LANE_MAX_BYTES = 5_000
    small = upload(alice_client, make_pdf(pages=1, words_per_page=10))
    large = upload(alice_client, make_pdf(pages=30, words_per_page=300, seed=3))

    assert Job.objects.get(id=small["job_id"]).lane == "fast"
    assert Job.objects.get(id=large["job_id"]).lane == "batch"
    assert broker.client.hlen("dramatiq:fast.msgs") == 1
    assert broker.client.hlen("dramatiq:batch.msgs") == 1


def test_a_new_version_may_be_of_another_type_and_is_read_as_that(alice_client, worker):
    first = upload(alice_client, make_pdf())
    wait_until_terminal([first["job_id"]])

    response = alice_client.post(
        f"/api/documents/{first['document_id']}/versions/",
        {"file": pdf_upload(b"# Notes\n\nThe second version is a Markdown file.\n", "notes.md")},
    )

    assert response.status_code == 202, response.content
    [job] = wait_until_terminal([response.json()["job_id"]])
    assert job.status == JobStatus.SUCCEEDED, job.error_detail
    document = Document.objects.get(id=first["document_id"])
    assert (document.version, document.file_type, document.page_count) == (2, "markdown", None)
    assert document.storage_key.endswith("/v2.md")
    assert versions_of_chunks(document.id) == {2}
