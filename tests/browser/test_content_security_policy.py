"""The pages in chromium under their Content-Security-Policy (config/http/csp.py): the upload
page, a document's page, the tokens page, the admin, the ops dashboard, Swagger UI and
ReDoc each load and still work (the live status socket, search, the Copy button, the
admin's styles, the dashboard's charts and polling, the docs' operations and search),
with no `securitypolicyviolation` event and nothing in the console. A direct upload to
the bucket, which connect-src allows, is in the last test."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pytest
from django.contrib.auth.models import Permission, User
from playwright.sync_api import Page, expect

from documents.models import DirectUpload
from tests.browser.conftest import PASSWORD, STATE_TIMEOUT_MS, Browsing, in_thread
from tests.browser.test_direct_upload_page import s3_stack  # noqa: F401 (a fixture)
from tests.browser.test_upload_page import pdf, row, upload
from tests.factories import make_pdf

pytestmark = pytest.mark.django_db(transaction=True)

WIDTH, HEIGHT = 1440, 900

# Every violation of the page's policy, reported to the test as it happens (the binding
# outlives the page's navigations, as the events themselves do not).
REPORT_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (event) => {
  window.reportViolation([
    event.effectiveDirective, event.blockedURI || "(inline)", event.sourceFile || "",
    event.lineNumber, event.sample || "",
  ].join(" "));
});
"""


@dataclass
class Watched:
    """A page, and what its policy refused and its console said, by its name."""

    page: Page
    violations: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)

    def assert_clean(self) -> None:
        assert self.violations == [], "the policy refused: " + "\n".join(self.violations)
        assert self.console == [], "the console said: " + "\n".join(self.console)


def watched(page: Page) -> Watched:
    """`page` at 1440 px, its policy's violations and its console messages recorded."""
    seen = Watched(page)
    page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    page.expose_function("reportViolation", lambda text: seen.violations.append(text))
    page.add_init_script(REPORT_VIOLATIONS)
    page.on("console", lambda message: seen.console.append(f"{message.type}: {message.text}"))
    page.on("pageerror", lambda error: seen.console.append(f"page error: {error}"))
    return seen


@pytest.fixture
def open_page(browsing) -> Callable[[str], Watched]:
    return lambda name: watched(browsing(name))


def make_staff(name: str) -> User:
    """Staff who may see jobs (the dashboard, the job list) and documents in the admin."""

    def create() -> User:
        user = User.objects.create_user(name, password=PASSWORD, is_staff=True)
        for codename in ("view_job", "view_document"):
            user.user_permissions.add(Permission.objects.get(codename=codename))
        return user

    return in_thread(create)


def sign_in(page: Page, username: str, then: str = "/") -> None:
    page.goto(then)
    expect(page).to_have_url(re.compile(r"/accounts/login/"))
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator(".who")).to_have_text(username)


def settled(page: Page) -> None:
    """Give late scripts, styles, workers and polls their time to be refused."""
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(500)


def poll_requests(page: Page) -> list[str]:
    polls: list[str] = []
    page.on(
        "request", lambda r: re.search(r"/documents/rows/|/row/$", r.url) and polls.append(r.url)
    )
    return polls


def test_the_upload_page_and_a_documents_page_work_under_the_policy(
    open_page, servers, embeddings, artifacts, make_user
):
    make_user("alice")
    alice = open_page("alice")
    page = alice.page
    sign_in(page, "alice")
    # The socket is open: connect-src allows ws://127.0.0.1:WS_PORT/ws/status/.
    expect(page.locator("#live")).to_have_attribute("data-state", "live")
    artifacts.screenshot(page, "upload-page")

    embeddings.hold()  # the file stays `processing` while the page is watched
    polls = poll_requests(page)
    upload(page, pdf("q3-report.pdf", make_pdf(pages=2, seed=71)))
    expect(row(page, "q3-report.pdf")).to_have_attribute("data-status", "processing")
    # While the socket is up the rows do not poll (page.js's htmx:confirm gate, which
    # replaced a trigger filter htmx would have run through Function()).
    polls.clear()
    page.wait_for_timeout(2500)  # INGEST_PAGE_POLL_SECONDS is 1 in these servers
    assert polls == []
    embeddings.release()
    expect(row(page, "q3-report.pdf")).to_have_attribute(
        "data-status", "succeeded", timeout=STATE_TIMEOUT_MS
    )

    page.get_by_label("Search your documents").fill("pipeline worker")
    expect(page.locator("#search-results [data-state]").first).to_be_visible()
    expect(page.locator("#search-results .hit").first).to_be_visible(timeout=STATE_TIMEOUT_MS)
    settled(page)
    artifacts.screenshot(page, "uploaded-and-searched")

    page.get_by_role("link", name="q3-report.pdf", exact=True).click()
    expect(page.locator("h1.filename")).to_have_text("q3-report.pdf")
    expect(page.locator("#live")).to_have_attribute("data-state", "live")
    expect(page.locator("#rows tr.row")).to_have_attribute("data-status", "succeeded")
    settled(page)
    artifacts.screenshot(page, "document-page")
    alice.assert_clean()


def test_the_tokens_pages_script_copies_the_new_key_under_the_policy(
    open_page, servers, artifacts, make_user
):
    make_user("alice")
    alice = open_page("alice")
    page = alice.page
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    sign_in(page, "alice", then="/accounts/tokens/")
    expect(page.get_by_role("heading", name="API tokens")).to_be_visible()

    page.get_by_label("Name").fill("laptop")
    page.get_by_role("button", name="Make a token").click()
    key = page.locator("#new-key").inner_text()
    copy = page.locator("button[data-copy=new-key]")
    expect(copy).to_have_text("Copy")
    copy.click()

    expect(copy).to_have_text("Copied")  # the page's inline script ran, by its nonce
    assert page.evaluate("navigator.clipboard.readText()") == key
    settled(page)
    artifacts.screenshot(page, "key-copied")
    alice.assert_clean()


def test_the_admin_and_the_ops_dashboard_work_under_the_policy(
    open_page, servers, artifacts, make_user
):
    make_staff("olivia")
    make_user("alice")
    alice = open_page("alice")
    sign_in(alice.page, "alice")
    upload(alice.page, pdf("q4-report.pdf", make_pdf(pages=1, seed=72)))
    expect(row(alice.page, "q4-report.pdf")).to_have_attribute(
        "data-status", "succeeded", timeout=STATE_TIMEOUT_MS
    )

    olivia = open_page("olivia")
    page = olivia.page
    sign_in(page, "olivia")
    page.goto("/admin/")
    expect(page.locator("#ops-dashboard-module")).to_be_visible()
    # static/css/admin.css, not a <style> element, lays out the site's links.
    assert (
        page.locator("ul.site-ways li").first.evaluate("li => getComputedStyle(li).listStyleType")
        == "disc"
    )
    artifacts.screenshot(page, "admin-index")

    page.goto("/admin/jobs/job/")
    badge = page.locator("#result_list .status-badge", has_text="succeeded").first
    expect(badge).to_be_visible()
    # The badge's colour is its class's, since the policy allows no style attribute.
    assert badge.evaluate("b => getComputedStyle(b).backgroundColor") == "rgb(25, 135, 84)"
    artifacts.screenshot(page, "admin-job-list")

    page.goto("/ops/")
    expect(page.get_by_role("heading", name="Pipeline dashboard")).to_be_visible()
    expect(page.locator("svg.ops-chart")).to_have_count(11)
    expect(page.locator("#chart-documents [data-summary]")).not_to_have_text("0 in the last hour")
    updated = page.locator("#ops-panel").get_attribute("data-updated")
    # htmx polls the panel and swaps it whole.
    expect(page.locator("#ops-panel")).not_to_have_attribute(
        "data-updated", updated, timeout=STATE_TIMEOUT_MS
    )
    expect(page.locator("svg.ops-chart")).to_have_count(11)
    settled(page)
    artifacts.screenshot(page, "ops-dashboard")
    olivia.assert_clean()
    alice.assert_clean()


def test_swagger_ui_and_redoc_render_under_the_policy(open_page, servers, artifacts):
    docs = open_page("reader")
    page = docs.page

    page.goto("/api/docs/")
    operations = page.locator(".opblock")
    expect(operations.first).to_be_visible()
    assert operations.count() > 10
    upload_operation = page.locator(".opblock-post", has_text="/api/documents/").first
    upload_operation.locator(".opblock-summary").click()
    expect(upload_operation.locator(".opblock-body")).to_be_visible()
    settled(page)
    artifacts.screenshot(page, "swagger-ui")

    page.goto("/api/redoc/")
    expect(page.get_by_role("heading", name=re.compile("Document ingestion API"))).to_be_visible()
    # ReDoc's styles are <style> elements it adds with the nonce it was handed.
    menu = page.locator(".menu-content")
    expect(menu).to_be_visible()
    assert menu.evaluate("m => getComputedStyle(m).position") != "static"
    # Its search runs in a worker started from a blob: URL.
    page.get_by_placeholder("Search").fill("upload")
    expect(page.locator("[data-role='search:results'] li").first).to_be_visible()
    settled(page)
    artifacts.screenshot(page, "redoc")
    docs.assert_clean()


@pytest.fixture
def vera_on_s3(browser, s3_stack, embeddings, make_user) -> Iterator[Watched]:  # noqa: F811
    """A signed-in page on the servers whose uploads go to a bucket."""
    embeddings.reset()
    make_user("vera")
    browsing = Browsing(browser, s3_stack.base_url)
    vera = watched(browsing.open("vera"))
    yield vera
    for _, context, _ in browsing.opened:
        context.close()


def test_a_direct_upload_reaches_the_bucket_under_the_policy(vera_on_s3, artifacts):
    page = vera_on_s3.page
    sign_in(page, "vera")
    expect(page.locator("#upload-form")).to_have_attribute("data-direct", "/api/uploads/")
    expect(page.locator("#live")).to_have_attribute("data-state", "live")

    upload(page, pdf("direct.pdf", make_pdf(pages=1, seed=73)))

    expect(row(page, "direct.pdf")).to_have_attribute(
        "data-status", "succeeded", timeout=STATE_TIMEOUT_MS
    )
    upload_row = in_thread(lambda: DirectUpload.objects.get(filename="direct.pdf"))
    assert upload_row.status == "completed"  # sent to the bucket, not through the web process
    settled(page)
    artifacts.screenshot(page, "direct-upload")
    vera_on_s3.assert_clean()
