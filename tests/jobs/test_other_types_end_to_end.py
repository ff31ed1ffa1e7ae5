"""Files that are not PDFs, through the API and a real Dramatiq worker: each ends as
chunks in pgvector, read by its own type's reader, with its structure kept."""

from email.message import EmailMessage

import pytest
from django.test import Client

from documents.models import Document
from jobs.models import JobStatus
from search.models import Block, Chunk
from tests.conftest import pdf_upload, running_worker, wait_until_terminal
from tests.factories import make_pdf, scanned_image, word_document

pytestmark = pytest.mark.django_db(transaction=True)

RENT = "The tenant pays the rent on the first day of each month to the landlord."


def upload(client, content: bytes, name: str) -> dict:
    response = client.post("/api/documents/", {"file": pdf_upload(content, name)})
    assert response.status_code == 202, response.content
    return response.json()["results"][0]


def test_a_photographed_page_goes_to_the_ocr_lane_and_becomes_chunks_with_boxes(
    alice_client, broker
):
    result = upload(alice_client, scanned_image(RENT, form="JPEG", turned=True), "IMG_0042.JPG")

    with running_worker(broker):
        [job] = wait_until_terminal([result["job_id"]], timeout=120)

    assert job.status == JobStatus.SUCCEEDED, job.error_detail
    assert job.lane == "ocr"
    assert job.attempts == 1  # straight to the OCR lane: no hand-off on the way
    document = Document.objects.get(id=result["document_id"])
    assert (document.file_type, document.page_count) == ("jpeg", 1)
    [chunk] = Chunk.objects.filter(document=document)
    assert "tenant pays the rent" in chunk.text
    assert chunk.source == "ocr"
    assert chunk.boxes
    assert all(box[0] == 1 for box in chunk.boxes)
    assert Block.objects.filter(document=document, source="ocr").exists()


def word_report() -> bytes:
    return word_document(
        "Quarterly report",
        "Revenue grew in every region this quarter, led by the north.",
        table=[("Item", "Cost"), ("Rent", "1200")],
    )


def test_a_word_file_keeps_its_headings_and_table_and_has_no_pages(alice, alice_client, broker):
    result = upload(alice_client, word_report(), "report.docx")

    with running_worker(broker):
        [job] = wait_until_terminal([result["job_id"]], timeout=120)

    assert job.status == JobStatus.SUCCEEDED, job.error_detail
    document = Document.objects.get(id=result["document_id"])
    assert (document.file_type, document.page_count) == ("docx", None)
    kinds = list(Block.objects.filter(document=document).values_list("kind", flat=True))
    assert kinds[:3] == ["heading", "paragraph", "heading"]
    assert "table" in kinds
    chunks = list(Chunk.objects.filter(document=document))
    assert chunks
    assert all(chunk.boxes == [] and chunk.page == 1 for chunk in chunks)
    assert any(chunk.section.startswith("Quarterly report") for chunk in chunks)
    shown = alice_client.get(f"/api/documents/{document.id}/").json()
    assert (shown["file_type"], shown["paged"], shown["page_count"]) == ("docx", False, None)
    model = alice_client.get(f"/api/documents/{document.id}/content", {"format": "json"})
    body = b"".join(model.streaming_content)
    assert b'"file_type": "docx", "paged": false' in body
    markdown = alice_client.get(f"/api/documents/{document.id}/content", {"format": "markdown"})
    text = b"".join(markdown.streaming_content).decode()
    assert text.startswith("## Quarterly report")  # no page to mark
    assert "| Rent | 1200 |" in text
    picture = alice_client.get(f"/api/documents/{document.id}/pages/1.png")
    assert picture.status_code == 404
    assert picture.json()["code"] == "no_page_images"

    # A search result's link opens the page at its passage, marked in the text.
    costs = next(chunk for chunk in chunks if "1200" in chunk.text)
    browser = Client()
    browser.force_login(alice)
    page = browser.get(f"/documents/{document.id}/", {"chunk": str(costs.id)})
    html = page.content.decode()
    assert page.status_code == 200
    assert 'id="viewer"' not in html  # no page to draw
    marked = html[html.index('class="marked-passage"') :]
    assert "1200" in marked[: marked.index("</div>", marked.index("1200"))]
    assert "which has no pages" in html


def message_with_attachments() -> bytes:
    message = EmailMessage()
    message["From"] = "Alice Example <alice@example.com>"
    message["To"] = "bob@example.com"
    message["Subject"] = "Signed lease"
    message["Date"] = "Tue, 01 Dec 2026 09:30:00 +0000"
    message.set_content("Bob, the signed lease is attached, with my notes.\n")
    message.add_attachment(
        b"# Notes\n\nThe deposit is returned within thirty days.\n",
        maintype="text",
        subtype="markdown",
        filename="notes.md",
    )
    message.add_attachment(
        scanned_image(RENT), maintype="image", subtype="png", filename="lease-page.png"
    )
    message.add_attachment(
        b"GIF89a" + b"\0" * 50, maintype="image", subtype="gif", filename="x.gif"
    )
    return bytes(message)


def test_an_email_becomes_a_document_with_its_headers_and_its_attachments_its_children(
    alice_client, broker
):
    sent = message_with_attachments()
    result = upload(alice_client, sent, "lease.eml")

    with running_worker(broker):
        [job] = wait_until_terminal([result["job_id"]], timeout=120)
        assert job.status == JobStatus.SUCCEEDED, job.error_detail
        children = list(Document.objects.filter(parent_id=result["document_id"]))
        child_jobs = wait_until_terminal([c.current_job_id for c in children], timeout=120)
        again = upload(alice_client, sent, "lease-again.eml")  # the same bytes: no second copy

    message = Document.objects.get(id=result["document_id"])
    assert message.file_type == "eml"
    assert message.metadata["from"] == "Alice Example <alice@example.com>"
    assert message.metadata["subject"] == "Signed lease"
    assert message.metadata["date"].startswith("2026-12-01T09:30:00")
    assert sorted((c.filename, c.file_type) for c in children) == [
        ("lease-page.png", "png"),
        ("notes.md", "markdown"),
    ]  # the GIF, a type not read, is left out
    assert all(j.status == JobStatus.SUCCEEDED for j in child_jobs), [
        j.error_detail for j in child_jobs
    ]
    assert again["duplicate"] is True
    assert Document.objects.count() == 3
    hits = alice_client.get("/api/search/", {"q": "deposit returned within thirty days"}).json()
    assert hits["results"][0]["document_id"] == str(
        next(c.id for c in children if c.file_type == "markdown")
    )


def test_the_served_pdfs_pages_are_drawn_while_its_next_version_of_another_type_waits(
    alice_client, broker
):
    first = upload(alice_client, make_pdf(pages=2), "plan.pdf")
    with running_worker(broker):
        wait_until_terminal([first["job_id"]])
    document_id = first["document_id"]

    second = alice_client.post(
        f"/api/documents/{document_id}/versions/",
        {"file": pdf_upload(word_report(), "plan.docx")},
    )

    assert second.status_code == 202
    assert Document.objects.get(id=document_id).file_type == "docx"  # the newest, queued
    picture = alice_client.get(f"/api/documents/{document_id}/pages/2.png")
    assert picture.status_code == 200, picture.content[:300]
    assert picture["Content-Type"] == "image/png"
