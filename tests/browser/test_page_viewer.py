"""The viewer on a document's page: a page as the service draws it, a search result's
passage outlined where it is on it, at a phone's width and a desktop's; stepping through
the pages; the page alone; all under the page's Content-Security-Policy."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from search.models import Chunk, DocumentPage
from tests.bench.structure import corpus
from tests.browser.conftest import STATE_TIMEOUT_MS, in_thread
from tests.browser.test_content_security_policy import watched
from tests.browser.test_upload_page import pdf, row, sign_in, upload

pytestmark = pytest.mark.django_db(transaction=True)

WIDTHS = {"phone": (375, 740), "desktop": (1440, 900)}
PAD = 1.5  # points: documents/page/viewer.py outlines each box this much outside it
STROKE = 1.0  # pixels: half the outline's stroke (static/css/app.css), outside the rect
LOADED = """() => {
  const image = document.querySelector("#viewer img");  // none while the next page loads
  return image !== null && image.complete && image.naturalWidth > 0;
}"""


def ready(page: Page, name: str, content: bytes) -> str:
    """Upload `content` from the page; the document's id once its job succeeded."""
    upload(page, pdf(name, content))
    expect(row(page, name)).to_have_attribute("data-status", "succeeded", timeout=STATE_TIMEOUT_MS)
    href = page.get_by_role("link", name=name, exact=True).get_attribute("href")
    assert href is not None
    return href.strip("/").split("/")[-1]


def passage_across_pages(document_id: str) -> tuple[Chunk, tuple[float, float]]:
    """A chunk with boxes on two pages, and the size in points of the second page."""

    def find() -> tuple[Chunk, tuple[float, float]]:
        chunks = Chunk.objects.filter(document_id=document_id).defer("embedding")
        chunk = next(c for c in chunks.order_by("index") if len({b[0] for b in c.boxes}) == 2)
        second = max(box[0] for box in chunk.boxes)
        size = DocumentPage.objects.values_list("width", "height").get(
            document_id=document_id, number=second
        )
        return chunk, size

    return in_thread(find)


def assert_outlines_over_the_boxes(page: Page, boxes: list[list[float]], size) -> None:
    """Each outline lies over its box: the box, in points, scaled to the image as shown."""
    image = page.locator("#viewer img").bounding_box()
    assert image is not None
    scale_x, scale_y = image["width"] / size[0], image["height"] / size[1]
    rects = page.locator("#viewer svg.outlines rect")
    expect(rects).to_have_count(len(boxes))
    for rect, (_, x0, y0, x1, y1) in zip(rects.all(), boxes, strict=True):
        drawn = rect.bounding_box()
        assert drawn is not None
        expected = {
            "x": image["x"] + (x0 - PAD) * scale_x - STROKE,
            "y": image["y"] + (y0 - PAD) * scale_y - STROKE,
            "width": (x1 - x0 + 2 * PAD) * scale_x + 2 * STROKE,
            "height": (y1 - y0 + 2 * PAD) * scale_y + 2 * STROKE,
        }
        for key, value in expected.items():
            assert drawn[key] == pytest.approx(value, abs=1), (key, drawn, expected)


@pytest.mark.parametrize("screen", list(WIDTHS))
def test_a_passage_is_outlined_where_it_is_on_the_page(browsing, make_user, artifacts, screen: str):
    make_user("petra")
    seen = watched(browsing("petra"))
    page = seen.page
    sign_in(page, "petra")
    document_id = ready(page, "report.pdf", corpus.report().pdf)
    chunk, size = passage_across_pages(document_id)
    first, second = sorted({box[0] for box in chunk.boxes})
    width, height = WIDTHS[screen]
    page.set_viewport_size({"width": width, "height": height})

    page.goto(f"/documents/{document_id}/?page={second}&chunk={chunk.id}#viewer")

    page.wait_for_function(LOADED)
    viewer = page.locator("#viewer")
    expect(viewer.locator("h2")).to_have_text(f"Page {second} of 3")
    image = viewer.locator("img").bounding_box()
    assert image is not None
    assert image["width"] <= width  # never wider than the phone
    assert image["height"] == pytest.approx(image["width"] * size[1] / size[0], abs=1.5)
    assert_outlines_over_the_boxes(page, [b for b in chunk.boxes if b[0] == second], size)
    expect(viewer.locator("svg.outlines rect").first).to_be_in_viewport()
    expect(viewer.locator("#viewer-note")).to_contain_text(f"it is also on page {first}")
    page.screenshot(path=str(artifacts.directory / f"viewer-{screen}.png"))
    artifacts.screenshot(page, f"whole-page-{screen}")

    viewer.get_by_role("link", name="Next page").click()
    expect(viewer.locator("h2")).to_have_text(f"Page {second + 1} of 3")  # the new page's
    page.wait_for_function(LOADED)
    expect(viewer.locator("svg.outlines")).to_have_count(0)
    expect(viewer.locator("#viewer-note")).to_contain_text(f"is on pages {first}, {second}")
    expect(viewer.locator(".step-off")).to_have_text("Next →")  # the last page

    viewer.get_by_role("link", name="Previous page").click()
    expect(viewer.locator("h2")).to_have_text(f"Page {second} of 3")
    page.wait_for_function(LOADED)
    assert_outlines_over_the_boxes(page, [b for b in chunk.boxes if b[0] == second], size)

    page.goto(f"/documents/{document_id}/?page=1#viewer")  # a page alone, nothing outlined
    page.wait_for_function(LOADED)
    expect(viewer.locator("h2")).to_have_text("Page 1 of 3")
    expect(viewer.locator("svg.outlines")).to_have_count(0)
    expect(viewer.locator("#viewer-note")).to_have_count(0)
    seen.assert_clean()
