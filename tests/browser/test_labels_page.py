"""Tags and metadata on the page: given with an upload, shown on the row, filtered on by a
tag's link and the filter box (the search box too), and changed on the document's page."""

import pytest
from playwright.sync_api import expect

from documents.models import Document
from tests.browser.conftest import STATE_TIMEOUT_MS, in_thread
from tests.browser.test_upload_page import pdf, row, sign_in
from tests.factories import make_pdf

pytestmark = pytest.mark.django_db(transaction=True)


def test_labels_go_with_an_upload_show_on_its_row_and_filter_the_list(
    browsing, make_user, artifacts
):
    make_user("tara")
    page = browsing("tara")
    sign_in(page, "tara")
    page.locator("#upload-labels summary").click()
    page.locator("#upload-tags").fill("contracts, 2024")
    long_number = "9" * 5000  # more than JavaScript holds: kept as the text it is
    page.locator("#upload-metadata").fill(f"client: acme\nyear: 2024\nserial: {long_number}")
    page.locator("#files").set_input_files(pdf("signed.pdf", make_pdf(pages=1, seed=41)))
    expect(row(page, "signed.pdf")).to_have_attribute(
        "data-status", "succeeded", timeout=STATE_TIMEOUT_MS
    )
    page.locator("#upload-tags").fill("")
    page.locator("#upload-metadata").fill("")
    page.locator("#files").set_input_files(pdf("memo.pdf", make_pdf(pages=1, seed=42)))
    expect(row(page, "memo.pdf")).to_be_visible()
    signed = in_thread(lambda: Document.objects.get(filename="signed.pdf"))
    assert (signed.tags, signed.metadata) == (
        ["contracts", "2024"],
        {"client": "acme", "year": 2024, "serial": long_number},
    )
    expect(row(page, "signed.pdf").locator("a.tag")).to_have_text(["contracts", "2024"])
    expect(row(page, "memo.pdf").locator("a.tag")).to_have_count(0)
    artifacts.screenshot(page, "tagged-row")

    row(page, "signed.pdf").get_by_role("link", name="contracts").click()

    expect(page.locator("#tag-filter")).to_have_value("contracts")
    expect(row(page, "signed.pdf")).to_be_visible()
    expect(row(page, "memo.pdf")).to_have_count(0)
    artifacts.screenshot(page, "filtered-by-tag")
    page.locator("#tag-filter").fill("nothing-like-it")
    page.locator("#tag-filter").press("Enter")
    expect(page.locator("#rows tr.empty")).to_have_text("No documents tagged nothing-like-it.")


def test_a_documents_page_shows_and_changes_its_labels(browsing, make_user, artifacts):
    make_user("uma")
    page = browsing("uma")
    sign_in(page, "uma")
    page.locator("#files").set_input_files(pdf("report.pdf", make_pdf(pages=1, seed=43)))
    expect(row(page, "report.pdf")).to_be_visible()
    page.get_by_role("link", name="report.pdf", exact=True).click()
    expect(page.locator("#doc-tags")).to_have_text("none")

    page.locator("#labels summary").click()
    page.locator("#labels-tags").fill("papers, draft")
    page.locator("#labels-metadata").fill("reviewed: true\nscore: 0.75")
    page.get_by_role("button", name="Save tags and metadata").click()

    expect(page.locator("#doc-tags a.tag")).to_have_text(["papers", "draft"])
    # In the order of their keys: jsonb keeps none of its own.
    expect(page.locator("#doc-metadata .pair")).to_have_text(["reviewed: true", "score: 0.75"])
    document = in_thread(lambda: Document.objects.get(filename="report.pdf"))
    assert document.metadata == {"reviewed": True, "score": 0.75}
    artifacts.screenshot(page, "labelled-document")

    page.locator("#labels summary").click()
    page.locator("#labels-metadata").fill("no colon here")
    page.get_by_role("button", name="Save tags and metadata").click()

    expect(page.locator("#labels-problem")).to_contain_text("has no key")
    expect(page.locator("#doc-tags a.tag")).to_have_text(["papers", "draft"])
    artifacts.screenshot(page, "labels-refused")
