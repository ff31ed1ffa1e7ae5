"""GET /api/documents/<id>/file/?version=N: the original file of any version, streamed, for
its owner only, on local storage and on S3 (a SeaweedFS server, tests/documents/conftest.py)."""

from urllib.parse import quote

import pytest
from django.core.files.storage import default_storage
from django.http import FileResponse

from documents.models import Document
from tests.conftest import pdf_upload
from tests.factories import make_pdf

pytestmark = pytest.mark.django_db(transaction=True)

FIRST = make_pdf(pages=1, seed=31)
SECOND = make_pdf(pages=2, seed=32)


def upload(client, content: bytes, name: str = "report.pdf") -> str:
    response = client.post("/api/documents/", {"file": pdf_upload(content, name)})
    assert response.status_code == 202, response.content
    return response.json()["results"][0]["document_id"]


def new_version(client, document_id: str, content: bytes, name: str) -> None:
    response = client.post(
        f"/api/documents/{document_id}/versions/", {"file": pdf_upload(content, name)}
    )
    assert response.status_code == 202, response.content


def download(client, document_id: str, query: str = ""):
    return client.get(f"/api/documents/{document_id}/file/{query}")


def body(response) -> bytes:
    assert isinstance(response, FileResponse)  # streamed, never read whole into memory
    return b"".join(response.streaming_content)


def test_the_owner_downloads_every_version_as_it_was_uploaded(alice_client, broker, storage_kind):
    document_id = upload(alice_client, FIRST, "q3 report.pdf")
    new_version(alice_client, document_id, SECOND, "q3 report (fixed).pdf")

    latest = download(alice_client, document_id)
    first = download(alice_client, document_id, "?version=1")
    second = download(alice_client, document_id, "?version=2")

    assert body(latest) == body(second) == SECOND
    assert body(first) == FIRST
    assert latest["Content-Type"] == "application/pdf"
    assert latest["Content-Length"] == str(len(SECOND))
    assert first["Content-Length"] == str(len(FIRST))
    assert first["Content-Disposition"] == 'attachment; filename="q3 report.pdf"'
    assert second["Content-Disposition"] == 'attachment; filename="q3 report (fixed).pdf"'


def test_a_name_outside_ascii_or_with_quotes_is_encoded_for_the_header(alice_client, broker):
    document_id = upload(alice_client, FIRST, 'Bericht "März" Ø.pdf')

    response = download(alice_client, document_id)

    expected = quote('Bericht "März" Ø.pdf')
    assert response["Content-Disposition"] == f"attachment; filename*=utf-8''{expected}"
    assert body(response) == FIRST


def test_another_users_document_is_not_found(alice_client, bob_client, broker):
    document_id = upload(alice_client, FIRST)

    response = download(bob_client, document_id, "?version=1")

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_a_version_the_document_does_not_have_is_not_found(alice_client, broker):
    document_id = upload(alice_client, FIRST)

    answers = [download(alice_client, document_id, f"?version={v}") for v in ("0", "2", "-1")]

    for response in answers:
        assert response.status_code == 404
        assert response["Content-Type"] == "application/json"
        assert response.json()["code"] == "version_not_found"
        assert "versions 1 to 1" in response.json()["detail"]


def test_a_version_that_is_not_a_number_is_invalid(alice_client, broker):
    document_id = upload(alice_client, FIRST)

    response = download(alice_client, document_id, "?version=latest")

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert "version" in response.json()["fields"]


def test_a_file_gone_from_storage_is_not_found_with_its_own_code(alice_client, broker):
    document_id = upload(alice_client, FIRST)
    default_storage.delete(Document.objects.get(id=document_id).storage_key)

    response = download(alice_client, document_id)

    assert response.status_code == 404
    assert response.json()["code"] == "file_missing"


def test_an_accept_header_for_pdf_gets_the_file_and_its_errors_as_json(alice_client, broker):
    document_id = upload(alice_client, FIRST)

    found = alice_client.get(f"/api/documents/{document_id}/file/", HTTP_ACCEPT="application/pdf")
    missing = alice_client.get(
        f"/api/documents/{document_id}/file/?version=9", HTTP_ACCEPT="application/pdf"
    )

    assert found.status_code == 200
    assert body(found) == FIRST
    assert missing.status_code == 404
    assert missing.json()["code"] == "version_not_found"


def test_the_path_without_its_final_slash_serves_the_same_file(alice_client, broker):
    document_id = upload(alice_client, FIRST)
    new_version(alice_client, document_id, SECOND, "second.pdf")

    first = alice_client.get(f"/api/documents/{document_id}/file?version=1")
    latest = alice_client.get(f"/api/documents/{document_id}/file")

    assert first.status_code == latest.status_code == 200
    assert body(first) == FIRST
    assert body(latest) == SECOND


def test_the_path_without_its_final_slash_keeps_the_owner_check(alice_client, bob_client, broker):
    document_id = upload(alice_client, FIRST)

    response = bob_client.get(f"/api/documents/{document_id}/file?version=1")

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_the_schema_lists_the_download(alice_client):
    schema = alice_client.get("/api/schema/?format=json").json()

    operation = schema["paths"]["/api/documents/{id}/file/"]["get"]
    assert "application/pdf" in operation["responses"]["200"]["content"]
    assert {"400", "404"} <= operation["responses"].keys()
    assert [p["name"] for p in operation["parameters"] if p["in"] == "query"] == ["version"]
