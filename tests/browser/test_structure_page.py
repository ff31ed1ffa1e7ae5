"""A document's structure on its page: the outline of its headings, and its text as
headings, paragraphs and tables, with the page furniture search leaves out marked."""

import pytest
from playwright.sync_api import expect

from tests.bench.structure import corpus
from tests.browser.conftest import STATE_TIMEOUT_MS
from tests.browser.test_upload_page import pdf, row, sign_in

pytestmark = pytest.mark.django_db(transaction=True)


def opened(page, name: str, content: bytes) -> None:
    page.locator("#files").set_input_files(pdf(name, content))
    expect(row(page, name)).to_have_attribute("data-status", "succeeded", timeout=STATE_TIMEOUT_MS)
    page.get_by_role("link", name=name, exact=True).click()


def test_the_page_shows_the_outline_and_marks_furniture_in_the_text(browsing, make_user, artifacts):
    make_user("vera")
    page = browsing("vera")
    sign_in(page, "vera")
    opened(page, "report.pdf", corpus.report().pdf)

    outline = page.locator("#outline li")
    expect(outline).to_have_text(
        ["Annual Report 2025 p. 1", "Overview p. 1", "Markets p. 1", "Outlook p. 3"]
    )
    expect(outline.nth(2)).to_have_class("level-2")
    furniture = page.locator("#text .furniture")
    expect(furniture.first).to_contain_text("running header")
    expect(page.locator("#text .furniture", has_text="Page 2 of 3")).to_contain_text("page number")
    artifacts.screenshot(page, "outline-and-text")

    outline.nth(3).get_by_role("link").click()
    expect(page.locator("#text [role=heading]", has_text="Outlook")).to_be_in_viewport()


def test_a_table_is_shown_as_a_table_under_its_caption(browsing, make_user, artifacts):
    make_user("wade")
    page = browsing("wade")
    sign_in(page, "wade")
    opened(page, "tables.pdf", corpus.tables().pdf)

    [ruled, _] = page.locator("#text table.extracted").all()
    expect(ruled.locator("th")).to_have_text(["Region", "Spring", "Summer", "Autumn"])
    expect(ruled.locator("tr").nth(1).locator("td")).to_have_text(["North", "120", "135", "150"])
    expect(page.locator("#text .block-caption").first).to_have_text(
        "Table 1: Crates delivered by region and season, ruled."
    )
    expect(page.locator("#text")).to_contain_text("2 tables")
    artifacts.screenshot(page, "tables")
