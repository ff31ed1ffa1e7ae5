"""Per-user quotas: INGEST_MAX_DOCUMENTS_PER_USER (429) and INGEST_MAX_BYTES_PER_USER (413)."""

import pytest
from django.core.files.storage import default_storage

from documents.models import Document
from tests.conftest import pdf_upload
from tests.factories import make_pdf

pytestmark = pytest.mark.django_db


def upload(client, *contents: bytes):
    files = [pdf_upload(content, name=f"f{n}.pdf") for n, content in enumerate(contents)]
    return client.post("/api/documents/", {"file": files}, format="multipart")


def test_quotas_are_off_by_default(alice_client, broker):
    answers = [upload(alice_client, make_pdf(seed=n)) for n in range(3)]

    assert [a.status_code for a in answers] == [202, 202, 202]


def test_past_the_document_quota_an_upload_is_refused_with_429(
    alice, alice_client, broker, settings
):
    settings.INGEST_MAX_DOCUMENTS_PER_USER = 2

    answers = [upload(alice_client, make_pdf(seed=n)) for n in range(3)]

    assert [a.status_code for a in answers] == [202, 202, 429]
    assert answers[2].json()["code"] == "document_quota_exceeded"
    assert "limit is 2" in answers[2].json()["detail"]
    assert Document.objects.filter(owner=alice).count() == 2


def test_a_request_whose_files_would_pass_the_quota_stores_none_of_them(
    alice, alice_client, broker, settings, tmp_path
):
    settings.INGEST_MAX_DOCUMENTS_PER_USER = 2
    stored_before = (
        set(default_storage.listdir("documents")[0])
        if default_storage.exists("documents")
        else set()
    )

    answer = upload(alice_client, *(make_pdf(seed=n) for n in range(3)))

    assert answer.status_code == 429
    assert answer.json()["code"] == "document_quota_exceeded"
    assert not Document.objects.filter(owner=alice).exists()
    stored_after = (
        set(default_storage.listdir("documents")[0])
        if default_storage.exists("documents")
        else set()
    )
    assert stored_after == stored_before, "no file was stored"


def test_past_the_byte_quota_an_upload_is_refused_with_413(alice, alice_client, broker, settings):
    first, second = make_pdf(pages=3, seed=1), make_pdf(pages=3, seed=2)
    settings.INGEST_MAX_BYTES_PER_USER = len(first) + len(second) // 2

    answers = [upload(alice_client, first), upload(alice_client, second)]

    assert [a.status_code for a in answers] == [202, 413]
    assert answers[1].json()["code"] == "storage_quota_exceeded"
    assert Document.objects.filter(owner=alice).count() == 1


def test_quotas_are_per_user(alice_client, bob_client, broker, settings):
    settings.INGEST_MAX_DOCUMENTS_PER_USER = 1

    answers = [upload(alice_client, make_pdf(seed=1)), upload(bob_client, make_pdf(seed=2))]

    assert [a.status_code for a in answers] == [202, 202]


def new_version(client, document_id: str, content: bytes):
    return client.post(
        f"/api/documents/{document_id}/versions/",
        {"file": pdf_upload(content, name="v.pdf")},
        format="multipart",
    )


def test_every_stored_version_counts_towards_the_byte_quota(alice, alice_client, broker, settings):
    versions = [make_pdf(seed=n) for n in range(4)]
    settings.INGEST_MAX_BYTES_PER_USER = sum(len(v) for v in versions[:2]) + 10
    [first] = upload(alice_client, versions[0]).json()["results"]

    answers = [new_version(alice_client, first["document_id"], v) for v in versions[1:]]

    assert [a.status_code for a in answers] == [202, 413, 413]
    assert answers[1].json()["code"] == "storage_quota_exceeded"
    document = Document.objects.get(owner=alice)
    assert document.version == 2
    assert document.stored_bytes == len(versions[0]) + len(versions[1])
    keys = default_storage.listdir(f"documents/{alice.pk}/{document.id}")[1]
    assert len(keys) == 2, "a refused version stores nothing"


def test_at_the_document_limit_a_new_version_is_still_let_in(alice_client, broker, settings):
    settings.INGEST_MAX_DOCUMENTS_PER_USER = 1
    [first] = upload(alice_client, make_pdf(seed=1)).json()["results"]

    answer = new_version(alice_client, first["document_id"], make_pdf(seed=2))

    assert answer.status_code == 202
