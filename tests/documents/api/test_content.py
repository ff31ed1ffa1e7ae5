"""GET /api/documents/{id}/content: a version's content as Markdown, the document model as
JSON, or text, streamed; with its ETag, and coded refusals when there is nothing to give."""

import json

import pytest

from documents import content as contents
from documents.models import Document
from search.models import Block
from tests.bench.structure import corpus
from tests.conftest import new_version, processed
from tests.factories import make_document

pytestmark = pytest.mark.django_db(transaction=True)


def body(response) -> str:
    assert response.streaming
    return b"".join(response.streaming_content).decode()


def test_markdown_has_headings_and_tables_and_leaves_furniture_out(alice_client, worker):
    report = processed(alice_client, corpus.report().pdf)
    tables = processed(alice_client, corpus.tables().pdf, "tables.pdf")

    answer = alice_client.get(f"/api/documents/{report}/content")
    text = body(answer)
    table = body(alice_client.get(f"/api/documents/{tables}/content/", {"format": "markdown"}))

    assert answer.status_code == 200
    assert answer["Content-Type"] == "text/markdown; charset=utf-8"
    assert text.startswith("<!-- page 1 -->\n\n# Annual Report 2025\n\n## Overview\n\n")
    assert "### Markets" in text
    assert corpus.paragraph(4, 44) in text  # one paragraph, across the page break
    assert "<!-- page 3 -->" in text
    assert "Northwind Trading" not in text
    assert "Page 2 of 3" not in text
    assert "*Table 1: Crates delivered by region and season, ruled.*" in table
    assert (
        "| Region | Spring | Summer | Autumn |\n|---|---|---|---|\n| North | 120 | 135 | 150 |"
        in table
    )


def test_json_is_the_document_model_with_furniture_marked(alice_client, worker):
    report = processed(alice_client, corpus.report().pdf)

    answer = alice_client.get(f"/api/documents/{report}/content", {"format": "json"})
    model = json.loads(body(answer))

    assert answer["Content-Type"] == "application/json"
    assert (model["document_id"], model["version"], model["filename"]) == (report, 1, "report.pdf")
    assert [(p["number"], round(p["width"]), round(p["height"])) for p in model["pages"]] == [
        (1, 595, 842),
        (2, 595, 842),
        (3, 595, 842),
    ]
    blocks = model["blocks"]
    assert [b["index"] for b in blocks] == list(range(len(blocks)))
    assert blocks[0]["kind"] == "page_header"
    assert (blocks[1]["kind"], blocks[1]["level"], blocks[1]["text"]) == (
        "title",
        0,
        "Annual Report 2025",
    )
    assert len(blocks[1]["box"]) == 4
    assert blocks[1]["source"] == "text"
    assert {b["kind"] for b in blocks} >= {"page_number", "heading", "list_item", "paragraph"}
    assert len(blocks) == Block.objects.filter(document_id=report).count()


def test_text_is_the_text_alone_with_tables_as_tab_separated_rows(alice_client, worker):
    tables = processed(alice_client, corpus.tables().pdf, "tables.pdf")

    text = body(alice_client.get(f"/api/documents/{tables}/content", {"format": "text"}))

    assert text.startswith("Deliveries by Region\n\n")
    assert "Region\tSpring\tSummer\tAutumn\nNorth\t120\t135\t150" in text


def test_the_etag_answers_304_until_the_version_is_read_again(alice_client, worker):
    report = processed(alice_client, corpus.report().pdf)
    first = alice_client.get(f"/api/documents/{report}/content")
    etag = first["ETag"]

    same = alice_client.get(f"/api/documents/{report}/content", HTTP_IF_NONE_MATCH=etag)
    other_format = alice_client.get(
        f"/api/documents/{report}/content", {"format": "json"}, HTTP_IF_NONE_MATCH=etag
    )

    assert same.status_code == 304
    assert same["ETag"] == etag
    assert other_format.status_code == 200
    assert other_format["ETag"] != etag


def test_what_cannot_be_given_is_refused_with_a_code(alice_client, bob_client, alice, worker):
    report = processed(alice_client, corpus.report().pdf)
    new_version(alice_client, report, corpus.tables().pdf)
    queued = make_document(alice)  # its first job never ran
    flat = processed(alice_client, corpus.columns().pdf, "flat.pdf")
    Block.objects.filter(document_id=flat).delete()  # as if read before the structure was

    def refusal(document, **params) -> tuple[int, str]:
        answer = alice_client.get(f"/api/documents/{document}/content", params)
        return answer.status_code, answer.json()["code"]

    assert refusal(report, version=1) == (410, "version_pruned")
    assert refusal(report, version=3) == (404, "version_not_found")
    assert refusal(report, format="pdf") == (400, "invalid")
    assert refusal(queued.id) == (409, "not_ready")
    assert refusal(flat) == (409, "no_structure")
    theirs = bob_client.get(f"/api/documents/{report}/content")
    assert (theirs.status_code, theirs.json()["code"]) == (404, "not_found")
    assert Document.objects.get(id=report).ready_version == 2
    assert body(alice_client.get(f"/api/documents/{report}/content", {"version": 2})).startswith(
        "<!-- page 1 -->\n\n# Deliveries by Region"
    )


def test_content_read_a_few_rows_at_a_time_is_the_same_whole(alice_client, worker, monkeypatch):
    report = processed(alice_client, corpus.report().pdf)
    whole = {
        f: body(alice_client.get(f"/api/documents/{report}/content", {"format": f}))
        for f in contents.FORMATS
    }

    monkeypatch.setattr(contents, "ROWS_AT_ONCE", 2)  # pages and blocks in many batches
    pieces = {
        f: body(alice_client.get(f"/api/documents/{report}/content", {"format": f}))
        for f in contents.FORMATS
    }

    assert pieces == whole
    assert len(json.loads(pieces["json"])["pages"]) == 3
