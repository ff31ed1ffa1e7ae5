"""Queued rows on an open upload page follow the queue live: a document uploaded elsewhere
shows up while it waits, where a reload would put it, and a waiting row's place in line
goes down as the jobs ahead of it finish; all without a reload.

The owner may run two jobs of the fast lane at once here (INGEST_MAX_RUNNING_PER_USER is
half the lane's configured threads), so with the embeddings held two jobs stay
`processing` and the rest stay `queued` for as long as a test needs."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import STATE_TIMEOUT_MS
from tests.browser.test_upload_page import (
    assert_not_reloaded,
    pdf,
    row,
    sign_in,
    upload,
    watch,
)
from tests.factories import make_pdf

pytestmark = pytest.mark.django_db(transaction=True)

# A queued row is shown within this long of its upload's 202 (it takes well under a second
# on an idle machine; the margin is for two loaded cores).
APPEARS_WITHIN_MS = 10_000

# Records, by file name, each different thing a row says while queued (its place: "2
# ahead", "next in line · starts in …") and then its status, as the page changes them.
PLACES = """() => {
  window.ingestPlaces = {};
  const record = () => document.querySelectorAll("#rows tr.row").forEach(row => {
    const status = row.getAttribute("data-status");
    const meta = row.querySelector("td.state .meta");
    const said = status === "queued" ? (meta ? meta.textContent.trim() : "") : status;
    const list = (window.ingestPlaces[row.querySelector("td.name a").textContent] ||= []);
    if (list[list.length - 1] !== said) list.push(said);
  });
  record();
  new MutationObserver(record).observe(document.body, {
    subtree: true, childList: true, characterData: true, attributes: true,
  });
}"""


def api_upload(page: Page, name: str, seed: int) -> None:
    """POST /api/documents/ with the page's session: not through the page's own form."""
    token = page.evaluate("JSON.parse(document.body.getAttribute('hx-headers'))['X-CSRFToken']")
    answer = page.request.post(
        "/api/documents/",
        headers={"X-CSRFToken": token},
        multipart={"file": pdf(name, make_pdf(pages=1, seed=seed))},
    )
    assert answer.status == 202, answer.text()


def shown_order(page: Page) -> list[str]:
    return page.locator("#rows tr.row").evaluate_all("rows => rows.map(row => row.id)")


def reload_order(page: Page) -> list[str]:
    """The rows' order as a reload of the page shows it (read beside the open page)."""
    return re.findall(r'<tr id="(doc-[0-9a-f-]+)"', page.request.get("/").text())


def place(said: str) -> int | None:
    """The place in line a queued row's text says: "next in line" 0, "3 ahead" 3."""
    if said.startswith("next in line"):
        return 0
    found = re.match(r"(\d+) ahead", said)
    return int(found.group(1)) if found else None


def hold_two_running(page: Page, embeddings) -> None:
    """Two of the owner's jobs processing, held: the owner's next jobs wait queued."""
    embeddings.hold()
    upload(page, pdf("running-1.pdf", make_pdf(pages=1, seed=31)))
    expect(row(page, "running-1.pdf")).to_have_attribute("data-status", "processing")
    upload(page, pdf("running-2.pdf", make_pdf(pages=1, seed=32)))
    expect(row(page, "running-2.pdf")).to_have_attribute("data-status", "processing")


def test_a_document_uploaded_through_the_api_appears_queued_in_its_place_at_once(
    browsing, servers, embeddings, artifacts, make_user
):
    make_user("alice")
    page = browsing("alice")
    sign_in(page, "alice")
    mark = watch(page)
    hold_two_running(page, embeddings)

    for name, seed in (("api-first.pdf", 33), ("api-second.pdf", 34)):
        api_upload(page, name, seed)
        expect(row(page, name)).to_have_attribute(
            "data-status", "queued", timeout=APPEARS_WITHIN_MS
        )

    names = page.locator("#rows tr.row td.name a").all_text_contents()
    assert names[:2] == ["api-second.pdf", "api-first.pdf"], names  # newest first
    assert shown_order(page) == reload_order(page)
    expect(row(page, "api-second.pdf").locator("td.state .meta")).to_contain_text("1 ahead")
    for width in (1440, 375):
        page.set_viewport_size({"width": width, "height": 900})
        artifacts.screenshot(page, f"queued-from-the-api-{width}")
    assert_not_reloaded(page, mark)
    embeddings.release()


DELAY = 3.0  # seconds per embedding call once the held two are let go
# Six slowed jobs ahead of the last, two at a time, on loaded cores: its wait to start
# gets their slowed calls on top of a state change's usual limit.
ALL_DONE_MS = STATE_TIMEOUT_MS + int(6 * DELAY * 1000) * 2


def test_a_queued_rows_place_goes_down_as_the_jobs_ahead_finish(
    browsing, servers, embeddings, artifacts, make_user
):
    make_user("alice")
    page = browsing("alice")
    sign_in(page, "alice")
    mark = watch(page)
    hold_two_running(page, embeddings)
    # Five wait: however many threads the first two free at once, the last stays queued
    # while the jobs ahead of it start, and its place must say so.
    waiting = [f"waiting-{n}.pdf" for n in range(1, 6)]
    for n, name in enumerate(waiting):
        upload(page, pdf(name, make_pdf(pages=1, seed=40 + n)))
        expect(row(page, name)).to_have_attribute("data-status", "queued")
    last = row(page, "waiting-5.pdf").locator("td.state .meta")
    expect(last).to_contain_text("4 ahead")
    page.evaluate(PLACES)
    for width in (1440, 375):
        page.set_viewport_size({"width": width, "height": 900})
        artifacts.screenshot(page, f"queued-{width}")

    embeddings.delay = DELAY  # each job takes a few seconds from now: places move in steps
    embeddings.release()

    expect(last).to_contain_text(
        re.compile(r"^[0-3] ahead|^next in line"), timeout=STATE_TIMEOUT_MS
    )
    artifacts.screenshot(page, "moved-up-375")
    # Its place is told until it starts: that is all the test needs of the jobs ahead.
    expect(row(page, "waiting-5.pdf")).to_have_attribute(
        "data-status", re.compile(r"^(processing|succeeded)$"), timeout=ALL_DONE_MS
    )
    embeddings.delay = 0.0  # the rest may finish at once: the servers fixture waits for them
    said = page.evaluate("window.ingestPlaces['waiting-5.pdf']")
    places = [place(text) for text in said[: said.index("processing")]]
    assert None not in places, said
    assert places[0] == 4, said
    assert places[-1] < 4, said  # it moved up while it waited
    assert places == sorted(places, reverse=True), said  # and never back down the line
    assert_not_reloaded(page, mark)
