"""The admin's job and dead-letter lists in chromium: every column, "finished" the last,
fits beside the admin's side navigation at 1440 px, a scroll bar's width less too, even
with an error detail holding an address with no space in it; at 375 px the table scrolls
in its own box and the page itself does not widen."""

import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from playwright.sync_api import Page, expect

from jobs.models import Job, JobStatus, Lane
from tests.browser.conftest import PASSWORD, in_thread
from tests.factories import make_document

pytestmark = pytest.mark.django_db(transaction=True)

LONG_DETAIL = (
    "Embedding batch 3 of 12 was refused by the provider after 5 attempts: HTTP 400 "
    "input too long for model text-embedding-3-small (8192 tokens at most)"
)
# A detail as a provider writes it, with an address that has no space to break at.
UNBROKEN_DETAIL = (
    "POST https://embeddings.eu-west-1.internal.example.com/v1/embeddings?model="
    "text-embedding-3-large&dimensions=1536 answered 503 Service Unavailable"
)


def make_jobs() -> None:
    """A list as an operator meets it: long names, every state, long error details."""
    owner = User.objects.create_user(
        "quarterly-reports-uploader", "quarterly-reports-uploader@example.com"
    )
    now = timezone.now()
    rows = [
        (JobStatus.FAILED, "retries_exhausted", LONG_DETAIL),
        (JobStatus.FAILED, "embedding_dimension_mismatch", UNBROKEN_DETAIL),
        (JobStatus.FAILED, "embedding_rejected", LONG_DETAIL),
        (JobStatus.FAILED, "encrypted", "The PDF is encrypted."),
        (JobStatus.SUCCEEDED, "", ""),
        (JobStatus.CANCELLED, "", ""),
        (JobStatus.PROCESSING, "", ""),
        (JobStatus.QUEUED, "", ""),
    ]
    for number, (status, code, detail) in enumerate(rows):
        name = f"2026-annual-financial-statement-consolidated-appendix-{number:02d}.pdf"
        job = make_document(owner, filename=name).current_job
        ended = status in (JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELLED)
        Job.objects.filter(id=job.id).update(
            status=status,
            error_code=code,
            error_detail=detail,
            attempts=3 if code else 1,
            lane=Lane.BATCH if number % 2 else Lane.FAST,
            finished_at=now - timedelta(minutes=number) if ended else None,
        )
    # Finished last year on a day of two digits: the column's widest text ("28 Dec 2025").
    job = make_document(owner, filename="board-minutes-scan.pdf").current_job
    Job.objects.filter(id=job.id).update(
        status=JobStatus.FAILED,
        error_code="provider_unavailable",
        error_detail=UNBROKEN_DETAIL,
        attempts=3,
        finished_at=now.replace(year=now.year - 1, month=12, day=28),
    )
    User.objects.create_superuser("olivia", "olivia@example.com", PASSWORD)


def sign_in(page: Page) -> None:
    page.goto("/admin/login/?next=/admin/")
    page.fill("input[name=username]", "olivia")
    page.fill("input[name=password]", PASSWORD)
    page.locator("input[type=submit]").click()
    expect(page).to_have_url(re.compile(r"/admin/$"))


def overflow(page: Page) -> dict[str, float]:
    """How far the page reaches past the window, the table past its box (which scrolls
    what does not fit), and the last column past the box's visible right edge."""
    return page.evaluate(
        """() => {
            const box = document.querySelector("#changelist-form .results");
            const last = document.querySelector("#result_list th.column-finished_short");
            return {
                page: document.documentElement.scrollWidth - window.innerWidth,
                table: box.scrollWidth - box.clientWidth,
                column: last.getBoundingClientRect().right - box.getBoundingClientRect().right,
            };
        }"""
    )


@pytest.mark.parametrize("path", ["/admin/jobs/job/", "/admin/jobs/deadletter/"])
def test_the_job_lists_fit_at_1440_px_and_scroll_in_their_box_at_375(browsing, artifacts, path):
    in_thread(make_jobs)
    page = browsing("olivia")
    sign_in(page)

    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(path)
    expect(page.locator("#result_list tbody tr").first).to_be_visible()
    artifacts.screenshot(page, "1440")
    wide = overflow(page)
    finished = page.locator("#result_list td.field-finished_short").last.inner_text()
    # A 1440 px window on a desktop keeps 15 px of it for a scroll bar (headless has none).
    page.set_viewport_size({"width": 1425, "height": 900})
    with_scroll_bar = overflow(page)

    page.set_viewport_size({"width": 375, "height": 800})
    page.goto(path)
    artifacts.screenshot(page, "375")
    narrow = overflow(page)

    assert wide == {"page": 0, "table": 0, "column": 0}, "every column shows at 1440 px"
    assert with_scroll_bar == wide, "and beside a scroll bar"
    assert re.fullmatch(r"\d{1,2} [A-Z][a-z]{2} \d\d:\d\d", finished)
    assert narrow["page"] <= 0, "at 375 px the table scrolls in its own box"
    assert narrow["table"] > 0
