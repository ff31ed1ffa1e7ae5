"""Results say where their text came from: `source` (text layer or OCR) and OCR's
confidence, in the API and as a mark on the search page and the document's page."""

import re

import pytest
from django.test import Client

from jobs.models import JobStatus
from tests.conftest import pdf_upload, wait_until_terminal
from tests.factories import joined_pdf, scanned_pdf, text_pdf
from tests.search.chunks import ready_document

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
TEXT = "The born digital page lists the invoices of the northern depot."
SCANNED = "The scanned contract says the seller delivers the goods within thirty days."


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def hits_html(html: str) -> dict[str, str]:
    """Each result's <li>, by the text of its passage."""
    return {
        re.sub(r"<[^>]+>", "", re.search(r'<p class="hit-text">(.*?)</p>', li, re.S)[1]): li
        for li in re.findall(r'<li class="hit">.*?</li>', html, re.S)
    }


@pytest.fixture
def mixed(alice):
    """Chunk 0 from the text layer (page 1), chunk 1 read by OCR (page 2)."""
    return ready_document(alice, [TEXT, SCANNED], filename="mixed.pdf", ocr={1: 0.93421})


def test_the_api_gives_each_hit_its_source_and_confidence(alice_client, mixed):
    by_text = {
        hit["text"]: hit
        for hit in alice_client.get("/api/search/", {"q": "invoices or contract"}).json()["results"]
    }
    vector = alice_client.get(
        "/api/search/", {"q": "seller invoices", "mode": "vector", "k": 2}
    ).json()

    assert (by_text[TEXT]["source"], by_text[TEXT]["confidence"]) == ("text", None)
    assert (by_text[SCANNED]["source"], by_text[SCANNED]["confidence"]) == ("ocr", 0.934)
    assert {(h["source"], h["confidence"]) for h in vector["results"]} == {
        ("text", None),
        ("ocr", 0.934),
    }


def test_the_schema_documents_source_and_confidence(alice_client):
    schema = alice_client.get("/api/schema/?format=json").json()

    hit = schema["components"]["schemas"]["HitOut"]
    assert {"source", "confidence"} <= set(hit["required"])
    assert "scanned image" in hit["properties"]["source"]["description"]
    assert hit["properties"]["confidence"]["nullable"] is True
    assert "mean confidence" in hit["properties"]["confidence"]["description"]


def test_the_page_marks_the_ocr_hit_and_not_the_text_one(alice, mixed):
    html = signed_in(alice).get("/search/", {"q": "invoices or contract"}, **HTMX).content.decode()

    hits = hits_html(html)
    assert set(hits) == {TEXT, SCANNED}
    assert "ocr-mark" not in hits[TEXT]
    mark = re.search(r'<span class="ocr-mark"[^>]*>.*?</span></span>', hits[SCANNED], re.S)[0]
    assert "OCR · 93 %" in mark
    assert 'title="Read by OCR from a scanned image of the page, so the text may hold ' in mark
    assert "mean confidence: 93 %" in mark
    assert 'class="ocr-mark low"' not in mark


def test_a_low_confidence_is_marked_as_low_and_an_unknown_one_is_left_out(alice):
    ready_document(
        alice,
        ["A faint carbon copy of the delivery note.", "A fax of the delivery schedule."],
        ocr={0: 0.41, 1: None},
    )

    html = signed_in(alice).get("/search/", {"q": "delivery"}, **HTMX).content.decode()

    hits = hits_html(html)
    faint = hits["A faint carbon copy of the delivery note."]
    fax = hits["A fax of the delivery schedule."]
    assert 'class="ocr-mark low"' in faint
    assert "OCR · 41 %" in faint
    assert "(low: expect errors)" in faint
    assert re.search(r'class="ocr-mark"[^>]*>OCR<span', fax), "no confidence, no number"


def test_the_document_page_marks_an_ocr_passage_and_lists_the_pages_read_by_ocr(alice, mixed):
    scanned, text = mixed.chunks.order_by("-index")
    client = signed_in(alice)

    of_scan = client.get(f"/documents/{mixed.id}/", {"chunk": str(scanned.id), "q": "seller"})
    of_text = client.get(f"/documents/{mixed.id}/", {"chunk": str(text.id), "q": "invoices"})

    passage = re.search(
        r'<section class="card passage".*?</section>', of_scan.content.decode(), re.S
    )
    assert "OCR · 93 %" in passage[0]
    text_passage = re.search(
        r'<section class="card passage".*?</section>', of_text.content.decode(), re.S
    )
    assert "ocr-mark" not in text_passage[0]
    facts = re.search(r'<dl class="facts".*?</dl>', of_text.content.decode(), re.S)[0]
    assert "<dt>Read by OCR</dt>" in facts
    assert re.search(r'<dd id="ocr-pages">page 2\s*<span class="ocr-mark"', facts), facts
    assert "This page is a scanned image: its text was read by OCR" in facts


def test_a_document_without_ocr_lists_no_ocr_pages(alice):
    document = ready_document(alice, [TEXT])

    html = signed_in(alice).get(f"/documents/{document.id}/").content.decode()

    assert "Read by OCR" not in html
    assert "ocr-mark" not in html


@pytest.mark.django_db(transaction=True)
def test_a_real_scan_read_by_ocr_is_found_marked_with_its_engines_confidence(
    alice, alice_client, worker
):
    """The whole way: Tesseract reads page 2, search finds it and the page marks it."""
    content = joined_pdf(text_pdf(TEXT), scanned_pdf(SCANNED))
    upload = alice_client.post("/api/documents/", {"file": pdf_upload(content, "mixed.pdf")})
    [job] = wait_until_terminal([upload.json()["results"][0]["job_id"]], timeout=120)
    assert job.status == JobStatus.SUCCEEDED, job.error_detail

    scan = alice_client.get("/api/search/", {"q": "seller delivers goods", "mode": "text"})
    born_digital = alice_client.get("/api/search/", {"q": "northern depot", "mode": "text"})
    html = signed_in(alice).get("/search/", {"q": "seller delivers goods"}, **HTMX)

    [hit] = scan.json()["results"]
    assert (hit["page"], hit["source"]) == (2, "ocr")
    assert 0.5 < hit["confidence"] <= 1
    [text_hit] = born_digital.json()["results"]
    assert (text_hit["page"], text_hit["source"], text_hit["confidence"]) == (1, "text", None)
    percent = round(hit["confidence"] * 100)
    assert f"OCR · {percent} %" in html.content.decode()
