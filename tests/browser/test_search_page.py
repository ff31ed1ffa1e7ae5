"""The search box on the upload page, in chromium against the real servers: results as
the person types, each naming its file and page with the words marked, reachable and
openable from the keyboard, and still answering (from words alone) when the embedding
service is down."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import STATE_TIMEOUT_MS
from tests.browser.test_upload_page import pdf, row, sign_in, upload
from tests.factories import joined_pdf, scanned_pdf, text_pdf

pytestmark = pytest.mark.django_db(transaction=True)


HARBOUR = text_pdf(
    "Minutes of the parish council. The meeting opened with apologies and the accounts.",
    "The harbour wall needs repairs before the winter storms; the engineer's estimate "
    "was accepted and the lighthouse keeper will report on the tides.",
)
ORCHARD = text_pdf("The orchard yielded apples and pears; cider pressing starts in October.")


def uploaded_and_ready(page: Page, *files: dict) -> None:
    upload(page, *files)
    for file in files:
        expect(row(page, file["name"])).to_have_attribute(
            "data-status", "succeeded", timeout=STATE_TIMEOUT_MS
        )


def test_results_appear_as_you_type_and_open_at_the_passage(
    browsing, servers, artifacts, make_user
):
    make_user("alice")
    page = browsing("alice")
    sign_in(page, "alice")
    results = page.locator("#search-results")
    expect(results.locator('[data-state="empty"]')).to_be_visible()
    uploaded_and_ready(page, pdf("council.pdf", HARBOUR), pdf("orchard.pdf", ORCHARD))

    box = page.get_by_label("Search your documents")
    box.press_sequentially("harbour wall repairs", delay=40)  # typed, not pasted

    hits = results.locator("li.hit")
    expect(hits.first).to_be_visible()
    first = hits.first
    expect(first.locator(".hit-file")).to_have_text("council.pdf")
    expect(first.locator(".hit-page")).to_have_text("page 2")
    expect(first.locator("mark").first).to_have_text("harbour", ignore_case=True)
    assert page.url.endswith("/")  # typing searched in place, no navigation
    artifacts.screenshot(page, "results")

    box.fill("zzzqqq nothingmatches")
    expect(results.locator('[data-state="no-results"]')).to_be_visible()
    artifacts.screenshot(page, "no-results")

    box.fill("")
    box.press_sequentially("lighthouse", delay=40)
    expect(results.locator("li.hit").first.locator(".hit-file")).to_have_text("council.pdf")
    box.press("ArrowDown")  # from the box to the first result...
    expect(results.locator("a.hit-link").first).to_be_focused()
    page.keyboard.press("Enter")  # ...and open it

    expect(page).to_have_url(re.compile(r"/documents/[0-9a-f-]+/\?page=2&chunk=.+#viewer$"))
    expect(page.locator("#viewer h2")).to_have_text("Page 2 of 2")
    expect(page.locator("#viewer svg.outlines rect").first).to_be_in_viewport()
    passage = page.locator("#passage")
    expect(passage).to_contain_text("Page 2")
    expect(passage.locator("mark").first).to_have_text("lighthouse")
    artifacts.screenshot(page, "passage")

    # The document's own box searches it alone: the orchard is in the other file.
    own = page.get_by_label("Search this document")
    own.press_sequentially("orchard", delay=40)
    expect(results.locator('[data-state="no-results"]')).to_contain_text("this document")
    own.fill("")
    own.press_sequentially("winter storms", delay=40)
    expect(results.locator("li.hit")).to_have_count(1)
    expect(results.locator(".hit-file")).to_have_text("council.pdf")
    artifacts.screenshot(page, "document-search")


def test_escape_clears_the_search(browsing, servers, make_user):
    make_user("alice")
    page = browsing("alice")
    sign_in(page, "alice")
    uploaded_and_ready(page, pdf("orchard.pdf", ORCHARD))
    box = page.get_by_label("Search your documents")
    box.press_sequentially("cider", delay=40)
    expect(page.locator("#search-results li.hit")).to_have_count(1)

    box.press("Escape")

    expect(box).to_have_value("")
    expect(page.locator('#search-results [data-state="empty"]')).to_be_visible()


def test_with_the_embedding_service_down_the_page_answers_from_words(
    browsing, servers, embeddings, artifacts, make_user
):
    make_user("alice")
    page = browsing("alice")
    sign_in(page, "alice")
    uploaded_and_ready(page, pdf("orchard.pdf", ORCHARD))
    embeddings.broken = "500"

    page.get_by_label("Search your documents").press_sequentially("pears", delay=40)

    results = page.locator("#search-results")
    expect(results.locator("li.hit .hit-file")).to_have_text("orchard.pdf")
    expect(results.locator(".degraded")).to_contain_text("word matches only")
    artifacts.screenshot(page, "degraded")


def test_a_passage_read_by_ocr_is_marked_and_one_from_the_text_layer_is_not(
    browsing, servers, artifacts, make_user
):
    make_user("alice")
    page = browsing("alice")
    sign_in(page, "alice")
    scan = joined_pdf(
        text_pdf("Cover sheet of the delivery file, typed into the text layer."),
        scanned_pdf("The carrier signed the delivery note for twelve pallets of roof tiles."),
    )
    uploaded_and_ready(page, pdf("scanned-note.pdf", scan), pdf("orchard.pdf", ORCHARD))

    page.get_by_label("Search your documents").press_sequentially("delivery", delay=40)

    hits = page.locator("#search-results li.hit").filter(
        has=page.locator(".hit-file", has_text="scanned-note.pdf")
    )
    expect(hits).to_have_count(2)  # page 1 from the text layer, page 2 read by OCR
    read_by_ocr = hits.filter(has=page.locator(".hit-page", has_text="page 2"))
    typed = hits.filter(has=page.locator(".hit-page", has_text="page 1"))
    mark = read_by_ocr.locator(".ocr-mark")
    expect(mark).to_be_visible()
    expect(mark).to_have_text(re.compile(r"^OCR · \d{2,3} %"))
    expect(mark).to_have_attribute("title", re.compile(r"scanned image.*misread words"))
    expect(typed.locator(".ocr-mark")).to_have_count(0)
    artifacts.screenshot(page, "ocr-mark")

    read_by_ocr.locator("a.hit-link").click()
    expect(page.locator("#passage .ocr-mark")).to_be_visible()
    expect(page.locator("#ocr-pages")).to_contain_text("page 2")
    artifacts.screenshot(page, "ocr-passage")


# When each search request starts, and when the results area is first marked busy.
TIME_THE_BUSY_SIGN = """() => {
  window.searchStarts = [];
  window.busySince = null;
  document.addEventListener("htmx:beforeRequest", event => {
    if (event.detail.elt.id === "search-form") window.searchStarts.push(performance.now());
  });
  new MutationObserver(() => {
    const busy = document.getElementById("search-results").getAttribute("aria-busy") === "true";
    if (busy && window.busySince === null) window.busySince = performance.now();
  }).observe(document.getElementById("search-results"), {attributes: true});
}"""


def test_a_slow_search_shows_it_is_working_until_its_answer_is_in(
    browsing, servers, embeddings, artifacts, make_user
):
    make_user("alice")
    page = browsing("alice")
    sign_in(page, "alice")
    uploaded_and_ready(page, pdf("council.pdf", HARBOUR))
    page.evaluate(TIME_THE_BUSY_SIGN)
    results = page.locator("#search-results")
    sign = page.locator("#search-busy")
    expect(sign).to_have_text("")
    embeddings.hold()  # the query's embedding waits: the search takes seconds

    page.get_by_label("Search your documents").fill("harbour wall")

    expect(results).to_have_attribute("aria-busy", "true")
    expect(sign).to_be_visible()
    expect(sign).to_have_text("Searching…")
    expect(page.locator("#search-form")).to_have_class(re.compile(r"\bbusy\b"))
    for width in (375, 1440):
        page.set_viewport_size({"width": width, "height": 900})
        artifacts.screenshot(page, f"searching-{width}")
    # Not at once: a quick search never shows the sign (timers never fire early).
    started, busy = page.evaluate("[window.searchStarts[0], window.busySince]")
    assert busy - started >= 250
    embeddings.release()

    expect(results.locator("li.hit .hit-file").first).to_have_text("council.pdf")
    expect(results).not_to_have_attribute("aria-busy", "true")
    expect(sign).to_have_text("")
    expect(sign).to_be_hidden()
    expect(page.locator("#search-form")).not_to_have_class(re.compile(r"\bbusy\b"))
    artifacts.screenshot(page, "answered")


def placeholder(page: Page) -> dict:
    """The search box's placeholder, and how far it would reach past what the box shows of
    a text (its padding and the clear button the browser keeps room for excluded): the
    placeholder typed into a copy of the box, the copy's scroll width past its width."""
    return page.evaluate(
        """() => {
            const box = document.getElementById("search-q");
            const copy = box.cloneNode(false);
            copy.removeAttribute("id");
            copy.value = box.placeholder;
            copy.style.width = box.offsetWidth + "px";
            box.after(copy);
            const past = copy.scrollWidth - copy.clientWidth;
            copy.remove();
            return {text: box.placeholder, past: past};
        }"""
    )


def test_the_search_boxs_placeholder_fits_at_375_and_1440_px(
    browsing, servers, artifacts, make_user
):
    make_user("alice")
    page = browsing("alice")
    sign_in(page, "alice")
    name = "minutes-of-the-parish-council-meeting-march-2026.pdf"
    upload(page, pdf(name, ORCHARD))
    document_page = page.get_by_role("link", name=name, exact=True).get_attribute("href")

    seen = {}
    for width in (375, 1440):
        page.set_viewport_size({"width": width, "height": 900})
        for where in ("/", document_page):
            page.goto(where)
            expect(page.locator("#search-q")).to_be_visible()
            seen[where, width] = placeholder(page)
            artifacts.screenshot(page, f"{'home' if where == '/' else 'document'}-{width}")

    for (where, width), shown in seen.items():
        assert shown["past"] <= 0, f"{shown} cut at {width} px on {where}"
    assert seen["/", 1440]["text"] == "Words or a phrase from your documents"
    assert seen[document_page, 1440]["text"] == f"Words or a phrase from {name}"
    assert seen[document_page, 375]["text"] == "Words or a phrase"
    # Narrowed without a reload, the box says less.
    page.set_viewport_size({"width": 375, "height": 900})
    expect(page.locator("#search-q")).to_have_attribute("placeholder", "Words or a phrase")
