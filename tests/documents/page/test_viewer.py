"""The viewer on a document's page, through Django's test client: which page it opens
at, the outline's rects in the page's points, and what it says when the passage is
elsewhere or from another version (tests/browser/test_page_viewer.py sees it drawn)."""

import re

import pytest
from django.test import Client

from search.models import Chunk
from tests.bench.structure import corpus
from tests.conftest import new_version, processed
from tests.factories import make_document

pytestmark = pytest.mark.django_db(transaction=True)


def viewer(user, document, **query) -> str:
    client = Client()
    client.force_login(user)
    answer = client.get(f"/documents/{document}/", query)
    assert answer.status_code == 200
    found = re.search(r'<section class="card viewer".*?</section>', answer.content.decode(), re.S)
    return found.group(0) if found else ""


def rects(html: str) -> list[tuple[float, ...]]:
    found = re.findall(r'<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"', html)
    return [tuple(float(n) for n in rect) for rect in found]


def test_a_chunk_opens_its_page_with_its_boxes_outlined(alice, alice_client, worker):
    report = processed(alice_client, corpus.report().pdf)
    chunk = next(
        c for c in Chunk.objects.filter(document_id=report).order_by("index") if c.page == 2
    )

    html = viewer(alice, report, chunk=str(chunk.id), q="harbour")

    assert "Page 2 <span" in html
    assert f"/api/documents/{report}/pages/2.png?width=1000&amp;version=1" in html
    assert 'viewBox="0 0 595.3 841.9"' in html
    on_page = [box for box in chunk.boxes if box[0] == 2]
    assert len(rects(html)) == len(on_page) > 0
    for (x, y, width, height), (_, x0, y0, x1, y1) in zip(rects(html), on_page, strict=True):
        assert (x, y) == pytest.approx((x0 - 1.5, y0 - 1.5), abs=0.06)
        assert (width, height) == pytest.approx((x1 - x0 + 3, y1 - y0 + 3), abs=0.11)
    assert f"?page=3&amp;chunk={chunk.id}&amp;q=harbour#viewer" in html  # the next page


def test_a_page_alone_past_the_end_shows_the_last_and_outlines_nothing(alice, alice_client, worker):
    report = processed(alice_client, corpus.report().pdf)

    html = viewer(alice, report, page="9")

    assert "Page 3 <span" in html
    assert 'rel="prev"' in html
    assert 'rel="next"' not in html
    assert "<svg" not in html
    assert viewer(alice, report) == ""  # no page asked: no viewer


def test_a_passage_of_a_replaced_version_is_not_outlined_on_the_new_one(
    alice, alice_client, worker
):
    report = processed(alice_client, corpus.report().pdf)
    old = Chunk.objects.filter(document_id=report).order_by("index").first()
    new_version(alice_client, report, corpus.tables().pdf)
    Chunk.objects.bulk_create([old])  # as if retention had not yet pruned it

    html = viewer(alice, report, chunk=str(old.id), page="1")

    assert "from version 1; this is version 2" in html
    assert "<svg" not in html


def test_nothing_is_shown_before_a_version_is_ready_or_for_another_documents_chunk(
    alice, alice_client, worker
):
    queued = make_document(alice)
    report = processed(alice_client, corpus.report().pdf)
    other = processed(alice_client, corpus.tables().pdf, "tables.pdf")
    theirs = Chunk.objects.filter(document_id=other).first()

    assert viewer(alice, queued.id, page="1") == ""
    html = viewer(alice, report, page="1", chunk=str(theirs.id))
    assert "Page 1 <span" in html
    assert "<svg" not in html
    assert "passage" not in html


def test_the_page_links_to_the_whole_text_in_each_format(alice, worker):
    client = Client()
    client.force_login(alice)
    report = processed(client, corpus.report().pdf)
    page = client.get(f"/documents/{report}/").content.decode()

    links = re.findall(r'href="(/api/documents/[^"]+/content\?format=(\w+)&amp;version=1)"', page)
    texts = {
        name: b"".join(client.get(link.replace("&amp;", "&")).streaming_content).decode()
        for link, name in links
    }

    assert sorted(texts) == ["json", "markdown", "text"]
    assert texts["markdown"].startswith("<!-- page 1 -->\n\n# Annual Report 2025")
    assert corpus.paragraph(4, 44) in texts["text"]
