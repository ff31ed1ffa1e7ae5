"""GET /api/documents/{id}/pages/{n}.png: a page drawn as a PNG of the width asked, for its
owner only, by the content endpoint's rules about versions; kept once drawn, with an ETag;
on local storage and on S3."""

import io
import re

import pytest
from django.core.files.storage import default_storage
from django.test import Client
from PIL import Image

from documents.models import Document
from search.models import Block, DocumentPage
from tests.bench.structure import corpus
from tests.conftest import pdf_upload, wait_until_terminal
from tests.documents.api.test_content import processed
from tests.factories import make_document

pytestmark = pytest.mark.django_db(transaction=True)

PNG = b"\x89PNG\r\n\x1a\n"
A4 = 841.89 / 595.28  # height over width


def page(client, document, number, etag: str = "", **params):
    headers = {"HTTP_IF_NONE_MATCH": etag} if etag else {}
    return client.get(f"/api/documents/{document}/pages/{number}.png", params, **headers)


def image(answer) -> Image.Image:
    assert answer.status_code == 200, answer.content[:300]
    assert answer["Content-Type"] == "image/png"
    assert answer.content.startswith(PNG)
    return Image.open(io.BytesIO(answer.content))


def refusal(answer) -> tuple[int, str]:
    return answer.status_code, answer.json()["code"]


def scraped(outcome: str) -> float:
    """ingest_page_images_total{outcome} in one scrape of /metrics (0 when absent)."""
    body = Client().get("/metrics", REMOTE_ADDR="127.0.0.1").content.decode()
    found = re.search(rf'ingest_page_images_total\{{code="",outcome="{outcome}"\}} (\S+)', body)
    return float(found.group(1)) if found else 0.0


def test_a_page_is_a_png_as_wide_as_asked(alice_client, worker, storage_kind):
    report = processed(alice_client, corpus.report().pdf)

    narrow = image(page(alice_client, report, 2, width=640))
    default = image(page(alice_client, report, 3))
    widest = image(page(alice_client, report, 1, width=2000, version=1))

    assert narrow.width == 640
    assert abs(narrow.height - 640 * A4) < 1
    assert default.width == 1000
    assert widest.width == 2000
    darkest, lightest = narrow.convert("L").getextrema()
    assert (darkest < 80, lightest) == (True, 255)  # ink on white paper


def test_the_cache_headers_and_the_etag_answer_304(alice_client, worker):
    report = processed(alice_client, corpus.report().pdf)
    first = page(alice_client, report, 1, width=500)
    etag = first["ETag"]

    same = page(alice_client, report, 1, width=500, etag=etag)
    wider = page(alice_client, report, 1, width=600, etag=etag)
    pinned = page(alice_client, report, 1, width=500, version=1)

    job = Document.objects.get(id=report).current_job_id
    assert str(job) in etag
    assert first["Cache-Control"] == "private, max-age=300"
    assert pinned["Cache-Control"] == "private, max-age=86400"
    assert (same.status_code, same["ETag"], same.content) == (304, etag, b"")
    assert wider.status_code == 200
    assert wider["ETag"] != etag


def test_a_page_drawn_once_is_kept(alice_client, worker):
    report = processed(alice_client, corpus.report().pdf)
    first = page(alice_client, report, 2, width=700)
    drawn, cached = scraped("drawn"), scraped("cached")
    default_storage.delete(Document.objects.get(id=report).storage_key)

    again = page(alice_client, report, 2, width=700)
    other = page(alice_client, report, 2, width=701)

    assert again.status_code == 200
    assert again.content == first.content
    assert (scraped("drawn"), scraped("cached")) == (drawn, cached + 1)
    assert refusal(other) == (404, "file_missing")  # the file is gone: only kept ones remain


def test_deleting_the_document_forgets_its_pages(alice_client, worker, settings):
    report = processed(alice_client, corpus.report().pdf)
    page(alice_client, report, 1, width=300)
    kept = settings.PAGE_IMAGE_CACHE_DIR / report
    assert [p.suffix for p in kept.iterdir()] == [".png"]

    assert alice_client.delete(f"/api/documents/{report}/").status_code == 204

    assert not kept.exists()


def test_pages_that_are_not_there_are_refused_with_a_code(alice_client, bob_client, worker):
    report = processed(alice_client, corpus.report().pdf)

    assert refusal(page(alice_client, report, 0)) == (404, "page_not_found")
    past = page(alice_client, report, 4)
    assert refusal(past) == (404, "page_not_found")
    assert "This version has 3 pages" in past.json()["detail"]
    assert refusal(page(bob_client, report, 1)) == (404, "not_found")
    assert refusal(page(alice_client, report, -1)) == (404, "not_found")  # no such path


@pytest.mark.parametrize("width", ["99", "2001", "wide"])
def test_a_width_out_of_bounds_is_invalid(alice_client, worker, width):
    report = processed(alice_client, corpus.report().pdf)

    answer = page(alice_client, report, 1, width=width)

    assert refusal(answer) == (400, "invalid")
    assert "from 100 to 2000" in str(answer.json()["fields"]["width"])


def test_versions_are_served_as_the_content_endpoint_serves_them(alice_client, alice, worker):
    report = processed(alice_client, corpus.report().pdf)
    newer = alice_client.post(
        f"/api/documents/{report}/versions/",
        {"file": pdf_upload(corpus.sideways().pdf, "report.pdf")},
        format="multipart",
    ).json()
    wait_until_terminal([newer["job_id"]])
    queued = make_document(alice)  # its first job never ran

    assert refusal(page(alice_client, report, 1, version=1)) == (410, "version_pruned")
    assert refusal(page(alice_client, report, 1, version=3)) == (404, "version_not_found")
    assert refusal(page(alice_client, queued.id, 1)) == (409, "not_ready")
    sideways = image(page(alice_client, report, 1, width=800))  # version 2, shown turned
    assert sideways.width == 800
    assert abs(sideways.height - 800 / A4) < 1
    assert refusal(page(alice_client, report, 2)) == (404, "page_not_found")


def test_a_version_read_without_its_structure_is_drawn_too(alice_client, worker):
    flat = processed(alice_client, corpus.columns().pdf, "flat.pdf")
    Block.objects.filter(document_id=flat).delete()  # as if read before the structure was
    DocumentPage.objects.filter(document_id=flat).delete()

    assert image(page(alice_client, flat, 1, width=400)).width == 400
    assert refusal(page(alice_client, flat, 2)) == (404, "page_not_found")


def test_a_search_hits_links_show_its_page_and_outline_its_passage(alice_client, alice, worker):
    report = processed(alice_client, corpus.report().pdf)
    hits = alice_client.get("/api/search/", {"q": "harbour office", "mode": "text"}).json()
    hit = next(h for h in hits["results"] if h["document_id"] == report)
    browser = Client()
    browser.force_login(alice)

    picture = image(alice_client.get(hit["links"]["page_image"], {"width": 300}))
    viewer = browser.get(hit["links"]["view"]).content.decode()

    assert picture.width == 300
    assert f"Page {hit['page']} <span" in viewer
    assert viewer.count("<rect ") == len([b for b in hit["boxes"] if b[0] == hit["page"]]) > 0
