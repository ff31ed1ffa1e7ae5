"""A document's structure through the real pipeline: uploaded through the API, read by an
in-process worker, stored as pages and blocks, and cut into chunks that follow it."""

import pytest

from search.models import Block, Chunk, DocumentPage
from tests.bench.structure import corpus
from tests.conftest import pdf_upload, wait_until_terminal

pytestmark = pytest.mark.django_db(transaction=True)


def upload(client, content: bytes, name: str) -> dict:
    return client.post("/api/documents/", {"file": pdf_upload(content, name)}).json()["results"][0]


def test_a_report_is_stored_as_pages_and_blocks_and_its_chunks_leave_its_furniture_out(
    alice_client, worker
):
    sent = upload(alice_client, corpus.report().pdf, "report.pdf")
    [job] = wait_until_terminal([sent["job_id"]])
    document = sent["document_id"]

    pages = list(
        DocumentPage.objects.filter(document_id=document).values_list("number", "width", "height")
    )
    blocks = list(Block.objects.filter(document_id=document, version=1).order_by("index"))
    chunks = list(Chunk.objects.filter(document_id=document).order_by("index"))

    assert job.status == "succeeded"
    assert [(n, round(w), round(h)) for n, w, h in pages] == [
        (1, 595, 842),
        (2, 595, 842),
        (3, 595, 842),
    ]
    assert [b.kind for b in blocks][:3] == ["page_header", "title", "heading"]
    assert (blocks[1].text, blocks[1].level, blocks[2].level) == ("Annual Report 2025", 0, 1)
    assert sorted(b.text for b in blocks if b.kind == "page_number") == [
        f"Page {n} of 3" for n in (1, 2, 3)
    ]
    assert len(blocks[1].box) == 4
    assert not any("Northwind Trading" in c.text or "Page 2 of 3" in c.text for c in chunks)
    assert {c.section for c in chunks} >= {"Overview > Markets", "Outlook"}
    [over] = [c for c in chunks if "auditors confirmed" in c.text]
    assert (over.page, over.page_end) == (2, 3)
    assert {box[0] for box in over.boxes} == {2, 3}
    assert job.progress_total == len(chunks)

    found = alice_client.get("/api/search/", {"q": "Northwind Trading", "mode": "text"}).json()
    assert found["results"] == []


def test_a_new_version_replaces_the_structure_and_a_retry_overwrites_it_in_place(
    alice_client, worker
):
    first = upload(alice_client, corpus.report().pdf, "doc.pdf")
    wait_until_terminal([first["job_id"]])
    document = first["document_id"]
    ids = set(Block.objects.filter(document_id=document).values_list("id", flat=True))

    second = alice_client.post(
        f"/api/documents/{document}/versions/",
        {"file": pdf_upload(corpus.tables().pdf, "doc.pdf")},
        format="multipart",
    ).json()
    wait_until_terminal([second["job_id"]])

    assert set(Block.objects.filter(document_id=document).values_list("version", flat=True)) == {2}
    assert set(
        DocumentPage.objects.filter(document_id=document).values_list("version", flat=True)
    ) == {2}
    [table, _] = Block.objects.filter(document_id=document, kind="table").order_by("index")
    assert table.cells[0] == {
        "row": 0,
        "column": 0,
        "text": "Region",
        "header": True,
        "box": table.cells[0]["box"],
    }
    assert not ids & set(Block.objects.filter(document_id=document).values_list("id", flat=True))


def test_with_the_structure_off_pages_are_flat_text_and_no_block_is_kept(
    alice_client, worker, settings
):
    settings.INGEST_STRUCTURE = "off"
    sent = upload(alice_client, corpus.report().pdf, "flat.pdf")
    wait_until_terminal([sent["job_id"]])

    chunks = list(Chunk.objects.filter(document_id=sent["document_id"]))

    assert not Block.objects.filter(document_id=sent["document_id"]).exists()
    assert any("Page 2 of 3" in c.text for c in chunks)  # furniture is in, as before
    assert {c.section for c in chunks} == {""}
