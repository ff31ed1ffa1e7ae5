"""New versions, downloads and progress on the page, in chromium against the real servers:
a failed row takes a new version, a document's page uploads one and downloads each, a
scan's attempts read "sent to OCR" rather than the workers' `handed_on`, and a long PDF's
row reads "Reading pages n / 117", then "Embedding chunks n / N", without a reload. Each
state is photographed at a phone's width and a laptop's."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import STATE_TIMEOUT_MS
from tests.browser.test_upload_page import (
    assert_not_reloaded,
    pdf,
    row,
    sign_in,
    truncated_pdf,
    upload,
    watch,
)
from tests.factories import CORPUS, make_pdf, scanned_pdf, text_pdf

pytestmark = pytest.mark.django_db(transaction=True)

# 117 pages that take pdfminer several seconds: long enough to watch them being read.
GEOTOPO = CORPUS / "py-pdf__sample-files/009-pdflatex-geotopo/GeoTopo-komprimiert.pdf"
WIDTHS = {"phone": 375, "laptop": 1440}


def photograph(page: Page, artifacts, state: str) -> None:
    """The page at each width, back at the test's own afterwards."""
    before = page.viewport_size
    for name, width in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": 900})
        artifacts.screenshot(page, f"{state}-{name}")
    page.set_viewport_size(before)


def choose_new_version(page: Page, button_name: str, file: dict) -> None:
    with page.expect_file_chooser() as chooser:
        page.get_by_role("button", name=button_name).click()
    chooser.value.set_files(file)


def test_a_row_failed_by_its_file_takes_a_new_version_without_a_reload(
    browsing, servers, embeddings, artifacts, make_user
):
    make_user("alice")
    page = browsing("alice")
    sign_in(page, "alice")
    mark = watch(page)
    upload(page, pdf("minutes.pdf", truncated_pdf()))
    broken = row(page, "minutes.pdf")
    expect(broken).to_have_attribute("data-status", "failed", timeout=STATE_TIMEOUT_MS)
    row_id = broken.get_attribute("id")
    expect(broken.locator(".reason")).to_contain_text("as a new version")
    photograph(page, artifacts, "failed-offers-new-version")
    embeddings.hold()  # the new version stays in its embedding stage until released

    choose_new_version(
        page, "Upload a new version of minutes.pdf", pdf("minutes-fixed.pdf", make_pdf(pages=3))
    )

    item = page.locator("#uploads li").filter(has_text="minutes-fixed.pdf")
    expect(item).to_contain_text("new version of minutes.pdf")
    expect(item.locator(".state")).to_have_text("accepted as version 2")
    fixed = page.locator(f"#{row_id}")  # the same document's row, now its second version
    expect(fixed).to_have_attribute("data-status", "processing", timeout=STATE_TIMEOUT_MS)
    expect(fixed.get_by_role("link", name="minutes-fixed.pdf")).to_be_visible()
    expect(fixed.locator(".progress-label")).to_have_text(
        re.compile(r"Embedding chunks 0 / \d+"), timeout=STATE_TIMEOUT_MS
    )
    expect(fixed.locator("td.name .meta")).to_contain_text("v2")
    photograph(page, artifacts, "new-version-embedding")
    embeddings.release()

    expect(fixed).to_have_attribute("data-status", "succeeded", timeout=STATE_TIMEOUT_MS)
    expect(fixed.get_by_role("button", name=re.compile("new version"))).to_have_count(0)
    expect(page.locator("#rows tr.row")).to_have_count(1)
    assert_not_reloaded(page, mark)


def test_a_documents_page_uploads_versions_and_downloads_each(
    browsing, servers, artifacts, make_user
):
    make_user("alice")
    page = browsing("alice")
    sign_in(page, "alice")
    first, second = make_pdf(pages=1, seed=51), make_pdf(pages=2, seed=52)
    upload(page, pdf("budget 2026.pdf", first))
    expect(row(page, "budget 2026.pdf")).to_have_attribute(
        "data-status", "succeeded", timeout=STATE_TIMEOUT_MS
    )
    page.get_by_role("link", name="budget 2026.pdf", exact=True).click()
    expect(page.get_by_role("heading", name="Versions")).to_be_visible()
    expect(page.locator("#live")).to_have_attribute("data-state", "live")
    mark = watch(page)

    choose_new_version(
        page,
        "Upload a new version of budget 2026.pdf",
        pdf("not-a-pdf.docx", b"PK\x03\x04 a damaged Word file"),
    )
    refused = page.locator("#uploads li").filter(has_text="not-a-pdf.docx")
    expect(refused).to_have_attribute("data-state", "refused")
    expect(refused.locator(".state")).to_contain_text("This type of file is not read")
    choose_new_version(
        page, "Upload a new version of budget 2026.pdf", pdf("budget 2026 final.pdf", second)
    )

    expect(page.locator("#uploads li .state")).to_contain_text(["accepted as version 2"])
    versions = page.locator("#versions tbody tr")
    expect(versions).to_have_count(2)
    expect(versions.first).to_contain_text("budget 2026 final.pdf")
    the_row = page.locator("table.single tr.row")
    expect(the_row).to_have_attribute("data-status", "succeeded", timeout=STATE_TIMEOUT_MS)
    expect(the_row.locator("td.name .meta")).to_contain_text("v2")
    expect(versions.first.locator(".badge")).to_have_text("succeeded")
    # The title, the facts and the history follow the new version too.
    expect(page.locator("#doc-title")).to_have_text("budget 2026 final.pdf")
    expect(page.locator("#facts")).to_contain_text("Version2")
    expect(page.locator("#history table.history tbody tr")).to_have_count(2)
    photograph(page, artifacts, "document-page-versions")
    assert_not_reloaded(page, mark)

    downloads = {}
    for number, name in ((1, "budget 2026.pdf"), (2, "budget 2026 final.pdf")):
        with page.expect_download() as download:
            page.get_by_role("link", name=f"Download version {number} of {name}").click()
        downloads[number] = download.value
    assert downloads[1].suggested_filename == "budget 2026.pdf"
    assert downloads[2].suggested_filename == "budget 2026 final.pdf"
    assert Path(downloads[1].path()).read_bytes() == first
    assert Path(downloads[2].path()).read_bytes() == second


ORCHARD = text_pdf("The orchard yielded apples and pears; cider pressing starts in October.")
HARBOUR = text_pdf(
    "The harbour wall needs repairs before the winter storms; the lighthouse keeper will "
    "report on the tides."
)


def test_a_documents_page_shows_and_searches_a_new_version_once_it_is_ready(
    browsing, servers, artifacts, make_user
):
    make_user("alice")
    page = browsing("alice")
    sign_in(page, "alice")
    upload(page, pdf("notes.pdf", ORCHARD))
    expect(row(page, "notes.pdf")).to_have_attribute(
        "data-status", "succeeded", timeout=STATE_TIMEOUT_MS
    )
    page.get_by_role("link", name="notes.pdf", exact=True).click()
    expect(page.locator("#live")).to_have_attribute("data-state", "live")
    box = page.get_by_label("Search this document")
    results = page.locator("#search-results")
    box.press_sequentially("cider", delay=40)
    expect(results.locator("li.hit")).to_have_count(1)
    expect(page.locator("#text")).to_contain_text("cider pressing")
    mark = watch(page)

    choose_new_version(page, "Upload a new version of notes.pdf", pdf("harbour notes.pdf", HARBOUR))

    expect(page.locator("table.single tr.row")).to_have_attribute(
        "data-status", "succeeded", timeout=STATE_TIMEOUT_MS
    )
    # The text shown and the box follow the version search serves now, and the search
    # on show was run again: "cider" is only in version 1.
    expect(page.locator("#text")).to_contain_text("lighthouse keeper")
    expect(page.locator("#text")).not_to_contain_text("cider")
    expect(page.locator("#search-title")).to_have_text("Search in harbour notes.pdf")
    expect(box).to_have_attribute("placeholder", re.compile("harbour notes.pdf"))
    expect(results.locator('[data-state="no-results"]')).to_contain_text("this document")
    expect(box).to_have_value("cider")
    box.fill("")
    box.press_sequentially("lighthouse", delay=40)
    expect(results.locator("li.hit")).to_have_count(1)
    expect(results.locator("li.hit .hit-file")).to_have_text("harbour notes.pdf")
    photograph(page, artifacts, "new-version-searched")

    # The same file again is no new version: the page says so, as the API does.
    choose_new_version(
        page, "Upload a new version of harbour notes.pdf", pdf("harbour notes.pdf", HARBOUR)
    )
    again = page.locator("#uploads li").filter(has_text="harbour notes.pdf").first
    expect(again.locator(".state")).to_have_text("the same file as version 2: nothing new")
    expect(page.locator("#versions tbody tr")).to_have_count(2)
    expect(page.locator("#facts")).to_contain_text("Version2")
    photograph(page, artifacts, "same-file-again")
    assert_not_reloaded(page, mark)


def test_a_scans_attempts_say_it_was_sent_to_ocr_in_plain_words(
    browsing, servers, artifacts, make_user
):
    make_user("alice")
    page = browsing("alice")
    sign_in(page, "alice")
    upload(page, pdf("signed-note.pdf", scanned_pdf("Twelve pallets of roof tiles.")))
    expect(row(page, "signed-note.pdf")).to_have_attribute(
        "data-status", "succeeded", timeout=STATE_TIMEOUT_MS
    )
    page.get_by_role("link", name="signed-note.pdf", exact=True).click()

    # Newest first: the OCR lane's attempt, then the one that found the scanned page.
    badges = page.locator("#history ol.attempts li .badge")
    expect(badges).to_have_text(["succeeded", "sent to OCR"])
    expect(page.locator("#history")).not_to_contain_text("handed_on")
    photograph(page, artifacts, "attempts")
    for width in WIDTHS.values():
        page.set_viewport_size({"width": width, "height": 900})
        badge = badges.last.bounding_box()
        assert badge is not None
        assert badge["x"] + badge["width"] <= width, "the phrase is in sight, at every width"
        assert page.evaluate("document.documentElement.scrollWidth") <= width


def test_a_long_pdf_shows_its_pages_read_then_its_chunks_embedded(
    browsing, servers, embeddings, artifacts, make_user
):
    make_user("alice")
    page = browsing("alice")
    sign_in(page, "alice")
    mark = watch(page)
    embeddings.hold()

    upload(page, pdf("GeoTopo.pdf", GEOTOPO.read_bytes()))

    geotopo = row(page, "GeoTopo.pdf")
    label = geotopo.locator(".progress-label")
    expect(label).to_have_text(
        re.compile(r"Reading pages [1-9]\d* / 117"), timeout=STATE_TIMEOUT_MS
    )
    assert int(geotopo.locator("progress").get_attribute("value")) > 0
    photograph(page, artifacts, "reading-pages")
    expect(label).to_have_text(re.compile(r"Embedding chunks 0 / \d+"), timeout=STATE_TIMEOUT_MS)
    photograph(page, artifacts, "embedding-chunks")
    embeddings.release()

    expect(geotopo).to_have_attribute("data-status", "succeeded", timeout=STATE_TIMEOUT_MS)
    expect(geotopo.locator("td.name .meta")).to_contain_text("117 pages")
    assert_not_reloaded(page, mark)
