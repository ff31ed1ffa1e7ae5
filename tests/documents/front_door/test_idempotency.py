"""Repeated requests: Idempotency-Key replays the first answer; identical bytes dedupe."""

from datetime import timedelta

import pytest
from django.core.files.storage import FileSystemStorage, default_storage
from django.db import connection
from django.utils import timezone

from documents.models import Document, IdempotencyKey
from jobs.models import Job, JobStatus
from tests.conftest import at_once, client_for, pdf_upload
from tests.factories import make_pdf

PDF = make_pdf(seed=7)


def upload(client, content: bytes = PDF, key: str | None = None, query: str = ""):
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
    return client.post(
        f"/api/documents/{query}", {"file": pdf_upload(content)}, format="multipart", **headers
    )


@pytest.mark.django_db
def test_a_repeated_request_with_the_same_key_gets_the_first_answer(alice_client, broker):
    first = upload(alice_client, key="k-1")
    second = upload(alice_client, key="k-1")

    assert first.status_code == second.status_code == 202
    assert second.json() == first.json()
    assert second["Location"] == first["Location"]
    assert Document.objects.count() == 1
    assert Job.objects.count() == 1


@pytest.mark.django_db
def test_the_same_key_with_different_files_is_refused(alice_client, broker):
    upload(alice_client, key="k-2")

    response = upload(alice_client, content=make_pdf(seed=99), key="k-2")

    assert response.status_code == 422
    assert response.json()["code"] == "idempotency_key_reused"


@pytest.mark.django_db
def test_keys_belong_to_one_user(alice_client, bob_client, broker):
    upload(alice_client, key="shared")

    response = upload(bob_client, key="shared")

    assert response.status_code == 202
    assert Document.objects.count() == 2


@pytest.mark.django_db
def test_a_key_older_than_a_day_is_forgotten(alice_client, broker):
    upload(alice_client, key="old")
    IdempotencyKey.objects.update(created_at=timezone.now() - timedelta(hours=25))

    response = upload(alice_client, content=make_pdf(seed=3), key="old")

    assert response.status_code == 202
    assert Document.objects.count() == 2


@pytest.mark.django_db(transaction=True)
def test_two_racing_requests_with_one_key_create_one_document(alice, broker):
    answers = at_once(lambda: upload(client_for(alice), key="race"))

    assert [a.status_code for a in answers] == [202, 202]
    assert answers[0].json() == answers[1].json()
    assert Document.objects.count() == 1
    assert Job.objects.count() == 1
    # Each stored its bytes before the key's lock; the one given the first answer
    # deleted its own.
    assert stored_files(alice.pk) == [Document.objects.get().storage_key]


def stored_files(owner_id: int) -> list[str]:
    """Every file stored under the owner's documents."""
    found = []
    root = f"documents/{owner_id}"
    if not default_storage.exists(root):
        return found
    for document in default_storage.listdir(root)[0]:
        files = default_storage.listdir(f"{root}/{document}")[1]
        found += [f"{root}/{document}/{name}" for name in files]
    return found


@pytest.mark.django_db(transaction=True)
def test_a_keyed_upload_stores_its_bytes_outside_the_keys_transaction(alice, broker, monkeypatch):
    """The key's transaction holds a (pooled) database connection: it lasts for the
    inserts, not for the upload to storage, which takes as long as the file is large."""
    in_transaction = []
    save = FileSystemStorage.save

    def watched_save(storage, *args, **kwargs):
        in_transaction.append(connection.in_atomic_block)
        return save(storage, *args, **kwargs)

    monkeypatch.setattr(FileSystemStorage, "save", watched_save)

    response = upload(client_for(alice), key="outside")

    assert response.status_code == 202
    assert in_transaction == [False]
    assert IdempotencyKey.objects.get().status_code == 202


@pytest.mark.django_db(transaction=True)
def test_a_repeat_given_back_or_refused_leaves_no_bytes_behind(alice, broker):
    client = client_for(alice)
    first = upload(client, key="once")
    kept = stored_files(alice.pk)

    again = upload(client, key="once")
    other = upload(client, content=make_pdf(seed=98), key="once")
    failed = upload(client, content=make_pdf(seed=97), key="x" * 256)

    assert (again.status_code, other.status_code, failed.status_code) == (202, 422, 400)
    assert again.json() == first.json()
    assert stored_files(alice.pk) == kept
    assert Document.objects.count() == 1


@pytest.mark.django_db
def test_identical_bytes_return_the_existing_document_without_a_job(alice_client, broker):
    first = upload(alice_client).json()["results"][0]

    second = upload(alice_client).json()["results"][0]

    assert second["duplicate"] is True
    assert second["document_id"] == first["document_id"]
    assert second["job_id"] == first["job_id"]
    assert "duplicate" not in first
    assert Document.objects.count() == 1
    assert Job.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_racing_uploads_of_identical_bytes_make_one_document(alice, broker):
    content = make_pdf(seed=11)
    answers = at_once(lambda: upload(client_for(alice), content=content), count=4)

    results = [a.json()["results"][0] for a in answers]
    assert [a.status_code for a in answers] == [202] * 4
    assert len({r["document_id"] for r in results}) == 1
    assert sorted("duplicate" in r for r in results) == [False, True, True, True]
    assert Document.objects.count() == 1
    assert Job.objects.count() == 1


@pytest.mark.django_db
def test_reprocess_makes_a_new_job_for_a_finished_duplicate(alice_client, broker):
    first = upload(alice_client).json()["results"][0]
    Job.objects.filter(id=first["job_id"]).update(status=JobStatus.SUCCEEDED)

    again = upload(alice_client, query="?reprocess=true").json()["results"][0]

    assert again["duplicate"] is True
    assert again["document_id"] == first["document_id"]
    assert again["job_id"] != first["job_id"]
    assert again["status"] == "queued"
    assert str(Document.objects.get().current_job_id) == again["job_id"]


@pytest.mark.django_db
def test_another_users_identical_bytes_are_a_new_document(alice_client, bob_client, broker):
    upload(alice_client)

    response = upload(bob_client).json()["results"][0]

    assert "duplicate" not in response
    assert Document.objects.count() == 2
