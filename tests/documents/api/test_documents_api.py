"""The documents API: list, detail, delete, retry, each scoped to the owner."""

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from documents.models import Document
from jobs.models import Job, JobStatus
from jobs.services import claim_job
from jobs.worker import processing
from search.models import Chunk
from tests.conftest import pdf_upload, wait_until_terminal
from tests.factories import make_document, make_pdf


def set_status(document: Document, status: str, **fields) -> None:
    Job.objects.filter(id=document.current_job_id).update(status=status, **fields)


@pytest.mark.django_db
def test_the_list_shows_the_owners_documents_newest_first(alice_client, alice, bob):
    older = make_document(alice, filename="older.pdf")
    newer = make_document(alice, filename="newer.pdf")
    make_document(bob, filename="bobs.pdf")

    body = alice_client.get("/api/documents/").json()

    assert [d["filename"] for d in body["results"]] == ["newer.pdf", "older.pdf"]
    assert body["results"][0]["id"] == str(newer.id)
    assert body["results"][1]["status"] == "queued"
    assert body["results"][1]["job"]["id"] == str(older.current_job_id)


@pytest.mark.django_db
def test_the_list_filters_by_status_and_pages(alice_client, alice):
    for i in range(5):
        make_document(alice, filename=f"ok-{i}.pdf")
    failed = make_document(alice, filename="bad.pdf")
    set_status(failed, JobStatus.FAILED)

    only_failed = alice_client.get("/api/documents/?status=failed").json()
    first_page = alice_client.get("/api/documents/?page_size=2").json()
    second_page = alice_client.get(first_page["next"]).json()

    assert [d["filename"] for d in only_failed["results"]] == ["bad.pdf"]
    assert len(first_page["results"]) == 2
    assert len(second_page["results"]) == 2
    assert {d["id"] for d in first_page["results"]}.isdisjoint(
        d["id"] for d in second_page["results"]
    )


@pytest.mark.django_db
def test_an_unknown_status_filter_is_a_clear_400(alice_client):
    response = alice_client.get("/api/documents/?status=done")

    assert response.status_code == 400
    assert "queued" in str(response.json()["fields"]["status"])


@pytest.mark.django_db(transaction=True)
def test_the_detail_shows_status_version_chunks_and_pages(alice_client, worker):
    result = alice_client.post(
        "/api/documents/", {"file": pdf_upload(make_pdf(pages=3, words_per_page=300))}
    ).json()["results"][0]
    wait_until_terminal([result["job_id"]])

    body = alice_client.get(f"/api/documents/{result['document_id']}/").json()

    assert body["status"] == "succeeded"
    assert body["version"] == 1
    assert body["page_count"] == 3
    assert (
        body["chunk_count"] == Chunk.objects.filter(document_id=result["document_id"]).count() > 0
    )
    assert body["job"]["progress"]["done"] == body["chunk_count"]


@pytest.mark.django_db
def test_another_users_document_is_404_everywhere(bob_client, alice):
    document = make_document(alice)
    set_status(document, JobStatus.FAILED)

    assert bob_client.get(f"/api/documents/{document.id}/").status_code == 404
    assert bob_client.delete(f"/api/documents/{document.id}/").status_code == 404
    assert bob_client.post(f"/api/documents/{document.id}/retry/").status_code == 404
    assert Document.objects.filter(id=document.id).exists()


@pytest.mark.django_db(transaction=True)
def test_delete_removes_the_file_the_chunks_and_the_jobs(alice_client, worker):
    result = alice_client.post("/api/documents/", {"file": pdf_upload(make_pdf())}).json()[
        "results"
    ][0]
    wait_until_terminal([result["job_id"]])
    key = Document.objects.get(id=result["document_id"]).storage_key

    response = alice_client.delete(f"/api/documents/{result['document_id']}/")

    assert response.status_code == 204
    assert not Document.objects.exists()
    assert not Job.objects.exists()
    assert not Chunk.objects.exists()
    assert not default_storage.exists(key)


@pytest.mark.django_db(transaction=True)
def test_a_worker_still_processing_a_deleted_document_brings_nothing_back(
    alice_client, alice, broker, monkeypatch
):
    content = make_pdf(pages=2, words_per_page=300)
    document = make_document(alice)
    key = default_storage.save(f"documents/{alice.pk}/{document.id}/v1.pdf", ContentFile(content))
    Document.objects.filter(id=document.id).update(storage_key=key)
    Job.objects.filter(document=document).update(storage_key=key)
    job = claim_job(job_id=document.current_job_id, worker="slow-worker")
    real_embed = processing.embed

    def embed_while_the_owner_deletes(texts):
        if Document.objects.filter(id=document.id).exists():
            assert alice_client.delete(f"/api/documents/{document.id}/").status_code == 204
        return real_embed(texts)

    monkeypatch.setattr(processing, "embed", embed_while_the_owner_deletes)
    processing.run(job)  # the worker carries on with the job it held

    assert not Document.objects.exists()
    assert not Job.objects.exists()
    assert not Chunk.objects.exists()
    assert not default_storage.exists(key)


@pytest.mark.django_db
def test_retry_gives_a_failed_document_a_fresh_attempt(alice_client, alice, broker):
    document = make_document(alice)
    set_status(document, JobStatus.FAILED, error_code="retries_exhausted", attempts=1)

    response = alice_client.post(f"/api/documents/{document.id}/retry/")

    assert response.status_code == 202
    body = response.json()
    assert body["status"] == "queued"
    assert body["job_id"] != str(document.current_job_id)
    document.refresh_from_db()
    assert str(document.current_job_id) == body["job_id"]
    assert Job.objects.get(id=body["job_id"]).attempts == 0
    assert Job.objects.filter(document=document).count() == 2, "the failed attempt is kept"


@pytest.mark.django_db
@pytest.mark.parametrize("status", [JobStatus.QUEUED, JobStatus.PROCESSING, JobStatus.SUCCEEDED])
def test_retrying_a_document_that_has_not_failed_answers_409(alice_client, alice, broker, status):
    document = make_document(alice)
    set_status(document, status)

    response = alice_client.post(f"/api/documents/{document.id}/retry/")

    assert response.status_code == 409
    assert response.json()["code"] == "not_retryable"
    assert Job.objects.filter(document=document).count() == 1
