"""A folder of mixed files dropped on the page: the types read are taken and processed,
another is refused saying what it is, and a Word file's passage is marked in its text,
since it has no pages to draw."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from search.models import Chunk
from tests.browser.conftest import STATE_TIMEOUT_MS, in_thread
from tests.browser.test_upload_page import row, sign_in, upload
from tests.factories import make_pdf, word_document

pytestmark = pytest.mark.django_db(transaction=True)

MINUTES = b"""# Board minutes

The board approved the budget for the new library wing.

- Opening hours extend to nine in the evening
- The reading room gets forty new seats
"""


def chosen(name: str, mime: str, content: bytes) -> dict:
    return {"name": name, "mimeType": mime, "buffer": content}


def test_a_folder_of_mixed_files_is_taken_by_type_and_a_word_passage_is_marked(
    browsing, servers, artifacts, make_user
):
    make_user("olga")
    page = browsing("olga")
    sign_in(page, "olga")
    expect(page.get_by_role("heading", name="Upload documents")).to_be_visible()

    upload(
        page,
        chosen("report.pdf", "application/pdf", make_pdf(pages=1, seed=3)),
        chosen(
            "lease.docx",
            "application/octet-stream",  # what a browser may say: the bytes decide
            word_document(
                "Lease terms",
                "The tenant keeps the garden tidy and the hedges trimmed.",
                table=[("Item", "Monthly"), ("Rent", "950"), ("Parking", "40")],
            ),
        ),
        chosen("minutes.md", "text/markdown", MINUTES),
        chosen("animation.gif", "image/gif", b"GIF89a" + b"\0" * 64),
    )

    for name in ("report.pdf", "lease.docx", "minutes.md"):
        expect(row(page, name)).to_have_attribute(
            "data-status", "succeeded", timeout=STATE_TIMEOUT_MS
        )
    refused = page.locator("#uploads li", has_text="animation.gif")
    expect(refused).to_contain_text("it looks like a GIF image")
    for width in (1440, 375):
        page.set_viewport_size({"width": width, "height": 900})
        artifacts.screenshot(page, f"mixed-folder-{width}")

    href = page.get_by_role("link", name="lease.docx", exact=True).get_attribute("href")
    document_id = href.strip("/").split("/")[-1]
    rent = in_thread(
        lambda: next(
            chunk
            for chunk in Chunk.objects.filter(document_id=document_id).defer("embedding")
            if "950" in chunk.text
        )
    )
    page.goto(f"/documents/{document_id}/?chunk={rent.id}&q=rent")

    expect(page.locator("#viewer")).to_have_count(0)  # no page to draw
    expect(page.locator("#passage")).to_contain_text("Chunk")
    marked = page.locator(".structure .marked-passage", has_text="950")
    expect(marked).to_have_count(1)
    expect(page.locator("dd", has_text="has no pages")).to_be_visible()
    expect(page.locator("#text")).to_contain_text("which has no pages")
    for width in (1440, 375):
        page.set_viewport_size({"width": width, "height": 900})
        marked.scroll_into_view_if_needed()
        artifacts.screenshot(page, f"word-passage-{width}")
