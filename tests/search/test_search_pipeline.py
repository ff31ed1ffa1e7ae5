"""Search over chunks the real pipeline made: uploads through the API, an in-process worker."""

import pytest

from tests.conftest import pdf_upload, wait_until_terminal
from tests.factories import text_pdf

pytestmark = pytest.mark.django_db(transaction=True)


def upload(client, content: bytes, name: str) -> dict:
    return client.post("/api/documents/", {"file": pdf_upload(content, name)}).json()["results"][0]


def test_processed_documents_are_found_by_their_owner_only_and_by_their_ready_version(
    alice_client, bob_client, worker
):
    mine = upload(
        alice_client,
        text_pdf("An introduction to gardening.", "Tomatoes need plenty of sunlight and water."),
        "garden.pdf",
    )
    theirs = upload(bob_client, text_pdf("Tomatoes grow well in greenhouses."), "bob.pdf")
    wait_until_terminal([mine["job_id"], theirs["job_id"]])

    for mode in ("hybrid", "text", "vector"):
        body = alice_client.get("/api/search/", {"q": "tomatoes sunlight", "mode": mode}).json()
        assert {hit["document_id"] for hit in body["results"]} == {mine["document_id"]}
        best = body["results"][0]
        assert (best["filename"], best["version"], best["page"]) == ("garden.pdf", 1, 2)

    again = alice_client.post(
        f"/api/documents/{mine['document_id']}/versions/",
        {"file": pdf_upload(text_pdf("Cucumbers climb trellises."), "garden.pdf")},
        format="multipart",
    ).json()
    wait_until_terminal([again["job_id"]])

    old = alice_client.get("/api/search/", {"q": "tomatoes", "mode": "text"}).json()
    new = alice_client.get("/api/search/", {"q": "cucumbers", "mode": "text"}).json()
    assert old["results"] == []
    assert [(hit["version"], hit["page"]) for hit in new["results"]] == [(2, 1)]
    assert "<mark>Cucumbers</mark>" in new["results"][0]["highlight"]
