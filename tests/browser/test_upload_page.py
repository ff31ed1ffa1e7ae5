"""The upload page end to end: a person in chromium, the service in real processes
(gunicorn, daphne, a Dramatiq worker) on the test database, embeddings from a fake OpenAI
server the tests slow down, break and fix. Rows must change without a reload: each test
marks `window` first and finds the mark still there at the end."""

import re
import secrets

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import PASSWORD, STATE_TIMEOUT_MS
from tests.factories import make_pdf

pytestmark = pytest.mark.django_db(transaction=True)

# Records every status each row shows and every state each upload goes through, as the
# page changes them; and a mark on `window` that a reload would wipe out.
WATCH = """mark => {
  window.ingestTestMark = mark;
  window.ingestSeen = {};
  window.ingestUploads = {};
  const add = (seen, key, value) => {
    const list = (seen[key] ||= []);
    if (list[list.length - 1] !== value) list.push(value);
  };
  const record = () => {
    document.querySelectorAll("#rows tr.row").forEach(row =>
      add(window.ingestSeen, row.id, row.getAttribute("data-status")));
    document.querySelectorAll("#uploads li").forEach(item =>
      add(window.ingestUploads, item.querySelector(".name").textContent,
          item.getAttribute("data-state")));
  };
  record();
  new MutationObserver(record).observe(document.body, {
    subtree: true, childList: true,
    attributes: true, attributeFilter: ["data-status", "data-state"],
  });
}"""


def pdf(name: str, content: bytes) -> dict:
    return {"name": name, "mimeType": "application/pdf", "buffer": content}


def truncated_pdf() -> bytes:
    """A PDF cut in half: `%PDF-` up front, so the upload is accepted; the worker fails it."""
    whole = make_pdf(pages=1, seed=99)
    return whole[: len(whole) // 2]


def sign_in(page: Page, username: str) -> None:
    page.goto("/")
    expect(page).to_have_url(re.compile(r"/accounts/login/"))
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Upload documents")).to_be_visible()
    expect(page.locator(".who")).to_have_text(username)
    expect(page.locator("#live")).to_have_attribute("data-state", "live")


def watch(page: Page) -> str:
    mark = secrets.token_hex(8)
    page.evaluate(WATCH, mark)
    return mark


def assert_not_reloaded(page: Page, mark: str) -> None:
    assert page.evaluate("window.ingestTestMark") == mark, "the page was reloaded"


def row(page: Page, filename: str):
    link = page.get_by_role("link", name=filename, exact=True)
    return page.locator("#rows tr.row").filter(has=link)


def seen(page: Page, filename: str) -> list[str]:
    """Every status the row of `filename` showed since watch(), in order."""
    row_id = row(page, filename).get_attribute("id")
    return page.evaluate("id => window.ingestSeen[id] || []", row_id)


def until(page: Page, condition, timeout_ms: int = STATE_TIMEOUT_MS) -> None:
    """Wait until `condition()` is true, letting the page's events arrive meanwhile."""
    for _ in range(timeout_ms // 50):
        if condition():
            return
        page.wait_for_timeout(50)
    pytest.fail(f"still not true after {timeout_ms / 1000:g} s")


def upload(page: Page, *files: dict) -> None:
    """Choose the files in the page's file input, all in one selection."""
    page.locator("#files").set_input_files(list(files))


def test_uploads_go_from_queued_to_succeeded_or_failed_without_a_reload(
    browsing, servers, embeddings, artifacts, make_user
):
    make_user("alice")
    page = browsing("alice")
    sign_in(page, "alice")
    expect(page.locator("#rows")).to_contain_text("No documents yet")
    artifacts.screenshot(page, "signed-in-empty")
    mark = watch(page)
    embeddings.hold()  # the good files stay `processing` until released

    upload(
        page,
        pdf("q3-report.pdf", make_pdf(pages=1, seed=1)),
        pdf("q4-report.pdf", make_pdf(pages=1, seed=2)),
        pdf("truncated.pdf", truncated_pdf()),
    )

    expect(page.locator("#uploads li")).to_have_count(3)
    artifacts.screenshot(page, "uploads-in-progress")
    expect(page.locator("#rows tr.row")).to_have_count(3)
    good = ("q3-report.pdf", "q4-report.pdf")
    for name in good:
        expect(row(page, name)).to_have_attribute("data-status", "processing")
    artifacts.screenshot(page, "queued-processing")
    embeddings.release()

    for name in good:
        expect(row(page, name)).to_have_attribute(
            "data-status", "succeeded", timeout=STATE_TIMEOUT_MS
        )
    broken = row(page, "truncated.pdf")
    expect(broken).to_have_attribute("data-status", "failed", timeout=STATE_TIMEOUT_MS)
    # Said for a person, with the way out: the file itself is the cause, so no Retry (it
    # would fail the same way) but a new version.
    expect(broken.locator(".reason")).to_contain_text("The PDF is damaged")
    expect(broken.locator(".reason")).to_contain_text("as a new version")
    expect(broken.get_by_role("button", name="Retry truncated.pdf")).to_have_count(0)
    expect(row(page, "q3-report.pdf").locator("td.state .meta")).to_contain_text("ready in")
    artifacts.screenshot(page, "succeeded-failed")

    assert_not_reloaded(page, mark)
    uploads = page.evaluate("window.ingestUploads")
    assert {name: states[-1] for name, states in uploads.items()} == {
        "q3-report.pdf": "accepted",
        "q4-report.pdf": "accepted",
        "truncated.pdf": "accepted",  # the API takes it; the worker finds it damaged
    }
    for name in good:
        states = seen(page, name)
        assert states[0] in {"queued", "processing"}, states
        assert states[-2:] == ["processing", "succeeded"], states
    assert seen(page, "truncated.pdf")[-1] == "failed"


def test_a_failed_document_is_retried_once_its_cause_is_fixed(
    browsing, servers, embeddings, artifacts, make_user
):
    make_user("alice")
    page = browsing("alice")
    sign_in(page, "alice")
    mark = watch(page)
    embeddings.broken = "500"  # the embedding service is down

    upload(page, pdf("minutes.pdf", make_pdf(pages=1, seed=5)))

    minutes = row(page, "minutes.pdf")
    expect(minutes).to_have_attribute("data-status", "failed", timeout=STATE_TIMEOUT_MS)
    reason = minutes.locator(".reason")
    expect(reason).to_contain_text("Gave up after 2 attempts")
    # The code's plain sentence (jobs.failures); the provider's answer is for staff.
    expect(reason).to_contain_text("A temporary problem (the embedding service")
    artifacts.screenshot(page, "failed-embedding-unavailable")

    embeddings.broken = None  # fixed
    minutes.get_by_role("button", name="Retry minutes.pdf").click()

    expect(minutes).to_have_attribute("data-status", "succeeded", timeout=STATE_TIMEOUT_MS)
    expect(minutes.locator(".reason")).to_have_count(0)
    expect(minutes.locator("td.attempts")).to_have_text("1")  # the new job's
    artifacts.screenshot(page, "after-retry")
    assert_not_reloaded(page, mark)
    states = seen(page, "minutes.pdf")
    assert states[-1] == "succeeded", states
    after_retry = states[states.index("failed") + 1 :]
    assert after_retry[0] in {"queued", "processing"}, states


def test_another_user_sees_none_of_the_documents(
    browsing, servers, embeddings, artifacts, make_user
):
    make_user("alice")
    make_user("bob")
    bob = browsing("bob")
    bob_heard: list[str] = []
    bob.on("websocket", lambda socket: socket.on("framereceived", lambda f: bob_heard.append(f)))
    sign_in(bob, "bob")  # open while alice works: her pushes must not reach him
    alice = browsing("alice")
    alice_heard: list[str] = []
    alice.on(
        "websocket", lambda socket: socket.on("framereceived", lambda f: alice_heard.append(f))
    )
    sign_in(alice, "alice")

    upload(
        alice,
        pdf("salaries.pdf", make_pdf(pages=1, seed=7)),
        pdf("truncated.pdf", truncated_pdf()),
    )
    expect(row(alice, "salaries.pdf")).to_have_attribute(
        "data-status", "succeeded", timeout=STATE_TIMEOUT_MS
    )
    expect(row(alice, "truncated.pdf")).to_have_attribute(
        "data-status", "failed", timeout=STATE_TIMEOUT_MS
    )
    document_id = row(alice, "salaries.pdf").get_attribute("id").removeprefix("doc-")

    assert any(document_id in frame for frame in alice_heard)  # pushed to her page
    assert bob_heard == []  # and never to his
    expect(bob.locator("#rows tr.row")).to_have_count(0)
    expect(bob.locator("#rows")).to_contain_text("No documents yet")
    bob.reload()
    expect(bob.locator("#rows tr.row")).to_have_count(0)
    expect(bob.locator("#rows")).to_contain_text("No documents yet")
    artifacts.screenshot(bob, "second-user-empty")
    for url in (f"/documents/{document_id}/", f"/documents/{document_id}/row/"):
        assert bob.goto(url).status == 404, url
    assert bob.request.get(f"/api/documents/{document_id}/").status == 404
    assert alice.goto(f"/documents/{document_id}/").status == 200


def test_rows_still_finish_through_polling_when_the_socket_server_dies(
    browsing, servers, embeddings, artifacts, make_user
):
    make_user("alice")
    page = browsing("alice")
    sign_in(page, "alice")
    mark = watch(page)
    embeddings.hold()  # the jobs are still running when the socket server dies
    polls = []
    page.on("request", lambda request: "/documents/rows/" in request.url and polls.append(request))

    upload(
        page,
        pdf("annual.pdf", make_pdf(pages=1, seed=11)),
        pdf("budget.pdf", make_pdf(pages=1, seed=12)),
    )
    for name in ("annual.pdf", "budget.pdf"):
        expect(row(page, name)).to_have_attribute("data-status", "processing")
    # While the socket is down the rows poll every INGEST_PAGE_POLL_SECONDS (1 s here):
    # page.js lets those polls go only while they are needed (data-poll="when-needed").
    expect(page.locator("#listing")).to_have_attribute("hx-trigger", re.compile(r"every 1s$"))
    expect(page.locator("#listing")).to_have_attribute("data-poll", "when-needed")

    servers.ws.kill()  # SIGKILL daphne: the socket drops mid-run
    polls.clear()
    live = page.locator("#live")
    expect(live).to_have_attribute("data-state", "polling")
    artifacts.screenshot(page, "polling")
    embeddings.release()

    for name in ("annual.pdf", "budget.pdf"):
        expect(row(page, name)).to_have_attribute(
            "data-status", "succeeded", timeout=STATE_TIMEOUT_MS
        )
    assert not servers.ws.alive
    assert polls, "the rows changed without the page polling"
    artifacts.screenshot(page, "succeeded-by-polling")

    servers.ws.start()  # the socket comes back: the page reconnects by itself
    # Its reconnect back-off grows while the server is down (up to a minute).
    expect(live).to_have_attribute("data-state", "live", timeout=90_000)
    artifacts.screenshot(page, "reconnected")
    assert_not_reloaded(page, mark)


def console_of(page) -> list[str]:
    """What `page` writes to its console from now on."""
    said: list[str] = []
    page.on("console", lambda message: said.append(f"{message.type}: {message.text}"))
    return said


def no_missing_targets(console: list[str]) -> bool:
    """No push went to htmx without a row to land on (htmx logs each as an error)."""
    return not [line for line in console if "htmx:oobErrorNoTarget" in line]


def test_a_row_whose_changes_arrive_before_it_is_shown_still_ends_right(
    browsing, servers, artifacts, make_user
):
    """The page shows an accepted upload's row by fetching it. A push about that row that
    arrives while the fetch is on its way finds no row to update: the row must not stay
    in the state the fetch read."""
    make_user("alice")
    page = browsing("alice")
    frames: list[str] = []
    page.on("websocket", lambda socket: socket.on("framereceived", lambda f: frames.append(f)))
    console = console_of(page)
    held = []

    def hold_first_row(route):
        if held:
            route.continue_()
        else:  # read the row now, deliver it later
            held.append((route, route.fetch()))

    page.route(re.compile(r"/documents/[0-9a-f-]+/row/$"), hold_first_row)
    sign_in(page, "alice")
    # Only the row's own fetches may show it: no listing refresh, no poll.
    page.route(re.compile(r"/documents/rows/"), lambda route: route.abort())

    upload(page, pdf("truncated.pdf", truncated_pdf()))

    until(page, lambda: held)
    route, early = held[0]
    document_id = route.request.url.rstrip("/").split("/")[-2]
    pushed = f'<tr id="doc-{document_id}"'
    until(page, lambda: any(pushed in f and 'data-status="failed"' in f for f in frames))
    assert 'data-status="failed"' not in early.text(), "the fetch read the final state"
    route.fulfill(response=early)  # the row as it was read, before it failed

    expect(row(page, "truncated.pdf")).to_have_attribute(
        "data-status", "failed", timeout=STATE_TIMEOUT_MS
    )
    # The pushes that found no row were taken up by the page, not left to htmx to log.
    assert no_missing_targets(console)
    artifacts.screenshot(page, "failed-after-late-row")


def test_an_idle_page_keeps_its_socket(browsing, servers, make_user):
    make_user("alice")
    page = browsing("alice")
    sign_in(page, "alice")
    page.evaluate(
        """() => {
          window.ingestCloses = 0;
          document.body.addEventListener("htmx:wsClose", () => { window.ingestCloses += 1; });
        }"""
    )

    page.wait_for_timeout(10_000)  # idle: it has been dropped every 6 s or so

    assert page.evaluate("window.ingestCloses") == 0
    expect(page.locator("#live")).to_have_attribute("data-state", "live")


def test_a_document_uploaded_elsewhere_appears_when_its_first_change_is_pushed(
    browsing, servers, artifacts, make_user
):
    make_user("alice")
    page = browsing("alice")
    sign_in(page, "alice")
    mark = watch(page)
    console = console_of(page)
    token = page.evaluate("JSON.parse(document.body.getAttribute('hx-headers'))['X-CSRFToken']")

    # Another tab, or a script with the same session: the page did not send this one.
    answer = page.request.post(
        "/api/documents/",
        headers={"X-CSRFToken": token},
        multipart={"file": pdf("from-elsewhere.pdf", make_pdf(pages=1, seed=21))},
    )

    assert answer.status == 202
    expect(row(page, "from-elsewhere.pdf")).to_have_attribute(
        "data-status", "succeeded", timeout=STATE_TIMEOUT_MS
    )
    assert_not_reloaded(page, mark)
    assert no_missing_targets(console)
    artifacts.screenshot(page, "row-from-elsewhere")
