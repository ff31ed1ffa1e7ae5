"""The ops dashboard in chromium, against the real servers and worker: a staff member
watches it follow uploads (a job held by the worker, a failure, documents ready) without
reloading; a signed-in user who is not staff gets 403."""

import re

import pytest
from django.contrib.auth.models import Permission, User
from playwright.sync_api import Page, expect

from tests.browser.conftest import PASSWORD, STATE_TIMEOUT_MS, in_thread
from tests.factories import make_pdf

pytestmark = pytest.mark.django_db(transaction=True)


def make_staff(name: str) -> User:
    """Staff allowed to see jobs in the admin, as the dashboard requires."""

    def create() -> User:
        user = User.objects.create_user(name, password=PASSWORD, is_staff=True)
        user.user_permissions.add(Permission.objects.get(codename="view_job"))
        return user

    return in_thread(create)


def sign_in(page: Page, username: str, then: str) -> None:
    page.goto(then)
    expect(page).to_have_url(re.compile(r"/accounts/login/\?next="))
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()


def pdf(name: str, content: bytes) -> dict:
    return {"name": name, "mimeType": "application/pdf", "buffer": content}


def truncated_pdf() -> bytes:
    """`%PDF-` up front, so the upload is accepted; the worker finds it damaged."""
    whole = make_pdf(pages=1, seed=99)
    return whole[: len(whole) // 2]


def summary(page: Page, chart: str):
    return page.locator(f"#chart-{chart} [data-summary]")


def figure(page: Page, name: str):
    return page.locator(f'[data-figure="{name}"]')


def test_staff_watch_the_dashboard_follow_the_jobs_without_a_reload(
    browsing, servers, embeddings, artifacts, make_user
):
    make_staff("olivia")
    make_user("alice")
    ops = browsing("olivia")
    sign_in(ops, "olivia", "/ops/")
    expect(ops.get_by_role("heading", name="Pipeline dashboard")).to_be_visible()
    expect(ops.locator("svg.ops-chart")).to_have_count(11)
    expect(summary(ops, "documents")).to_have_text("0 in the last hour")
    # The worker's process beats every few seconds: it shows up as alive.
    expect(figure(ops, "processes")).to_have_text("1", timeout=STATE_TIMEOUT_MS)
    ops.evaluate("window.opsTestMark = 'not reloaded'")
    documents_chart = ops.locator("#chart-documents svg").inner_html()
    artifacts.screenshot(ops, "before-uploads")

    embeddings.hold()  # good files stay `processing`, held by the worker, until released
    alice = browsing("alice")
    sign_in(alice, "alice", "/")
    # The truncated file first: held, the two good ones fill alice's share of the worker's
    # threads, and a file queued behind them would wait for the release.
    alice.locator("#files").set_input_files(
        [
            pdf("truncated.pdf", truncated_pdf()),
            pdf("q3-report.pdf", make_pdf(pages=2, seed=1)),
            pdf("q4-report.pdf", make_pdf(pages=3, seed=2)),
        ]
    )

    workers = ops.locator(".ops-workers")
    expect(workers).to_contain_text("q3-report.pdf", timeout=STATE_TIMEOUT_MS)
    expect(workers).to_contain_text("q4-report.pdf")
    expect(summary(ops, "failures")).to_have_text("1 in the last hour", timeout=STATE_TIMEOUT_MS)
    expect(ops.locator("#chart-failures svg")).to_contain_text("corrupt")
    expect(figure(ops, "dead-letters")).to_have_text("1")
    artifacts.screenshot(ops, "jobs-held-and-a-failure")
    embeddings.release()

    expect(summary(ops, "documents")).to_have_text("2 in the last hour", timeout=STATE_TIMEOUT_MS)
    expect(summary(ops, "pages")).to_have_text("5 in the last hour")
    expect(workers).not_to_contain_text("q3-report.pdf")
    expect(ops.locator("#chart-documents svg")).not_to_contain_text("none in the last hour")
    assert ops.locator("#chart-documents svg").inner_html() != documents_chart
    assert ops.evaluate("window.opsTestMark") == "not reloaded"
    artifacts.screenshot(ops, "documents-ready")

    # The tile counts the last hour of every process's searches: earlier tests' too.
    hybrid_before = int(figure(ops, "searches-hybrid").inner_text())
    text_before = figure(ops, "searches-text").inner_text()
    alice.get_by_label("Search your documents").fill("report")  # one search, from the page
    expect(alice.locator("#search-results [data-state]")).to_be_visible()
    expect(figure(ops, "searches-hybrid")).not_to_have_text(str(hybrid_before))
    assert int(figure(ops, "searches-hybrid").inner_text()) > hybrid_before
    expect(figure(ops, "search-p95-hybrid")).to_contain_text("ms")
    expect(figure(ops, "searches-text")).to_have_text(text_before)  # the page asks hybrid

    ops.get_by_role("link", name="The last 24 hours").click()
    expect(ops).to_have_url(re.compile(r"/ops/\?window=24h$"))
    expect(summary(ops, "documents")).to_have_text("2 in the last 24 hours")
    assert ops.evaluate("window.opsTestMark") == "not reloaded"
    artifacts.screenshot(ops, "last-24-hours")


def test_a_user_who_is_not_staff_gets_403(browsing, servers, make_user):
    make_user("alice")
    page = browsing("alice")
    sign_in(page, "alice", "/ops/")
    expect(page).to_have_url(re.compile(r"/ops/$"))

    response = page.goto("/ops/")

    assert response.status == 403
    assert page.get_by_role("heading", name="Pipeline dashboard").count() == 0


def layout(page: Page) -> dict:
    """How the dashboard sits in the window: how far the page reaches past it; what reaches
    past it outside a box of its own that scrolls; the lanes' figures past it; the boxes
    that scroll, and those without a cue (a shadow, drawn by a gradient); the charts'
    narrowest width and their labels' smallest size as drawn."""
    return page.evaluate(
        """() => {
            const right = window.innerWidth;
            const boxes = [...document.querySelectorAll(".ops-scroll")];
            const charts = [...document.querySelectorAll("svg.ops-chart")];
            const scale = svg => svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
            const label = svg => parseFloat(getComputedStyle(svg.querySelector("text")).fontSize);
            return {
                page: document.documentElement.scrollWidth - right,
                cut: [...document.querySelectorAll(".ops table, .ops [data-figure]")]
                    .filter(e => !e.closest(".ops-scroll"))
                    .filter(e => e.getBoundingClientRect().right > right + 0.5)
                    .map(e => e.dataset.figure || e.className),
                lanes: [...document.querySelectorAll(".ops-lanes td[data-figure]")]
                    .filter(e => e.getBoundingClientRect().right >
                        e.closest(".ops-scroll").getBoundingClientRect().right + 0.5)
                    .map(e => e.dataset.figure),
                scrolling: boxes.filter(b => b.scrollWidth > b.clientWidth).length,
                uncued: boxes.filter(b => b.scrollWidth > b.clientWidth)
                    .filter(b => !getComputedStyle(b).backgroundImage.includes("gradient")).length,
                chart: Math.min(...charts.map(svg => svg.getBoundingClientRect().width)),
                text: Math.min(...charts.map(svg => scale(svg) * label(svg))),
                main: document.querySelector("main").getBoundingClientRect().width,
            };
        }"""
    )


def test_the_dashboard_reads_on_a_phone_and_uses_a_wide_screen(browsing, servers, artifacts):
    make_staff("olivia")
    page = browsing("olivia")
    page.set_viewport_size({"width": 375, "height": 800})
    sign_in(page, "olivia", "/")
    # A search from the page: the search tile's widest figures ("≤ 250 ms") have a value.
    page.get_by_label("Search your documents").fill("harbour")
    expect(page.locator('#search-results [data-state="no-results"]')).to_be_visible()
    page.goto("/ops/")
    expect(figure(page, "search-p95-hybrid")).to_contain_text("ms")
    expect(figure(page, "processes")).to_have_text("1", timeout=STATE_TIMEOUT_MS)
    expect(page.locator(".ops-workers tbody tr")).to_have_count(1)
    artifacts.screenshot(page, "375")
    phone = layout(page)

    page.set_viewport_size({"width": 1440, "height": 900})
    page.reload()
    expect(figure(page, "processes")).to_have_text("1")
    artifacts.screenshot(page, "1440")
    wide = layout(page)

    assert phone["page"] <= 0, "no sideways scroll of the page on a phone"
    assert phone["cut"] == [], "tables and figures fit, or scroll in a box of their own"
    assert phone["lanes"] == [], "every lane's figures in sight without scrolling"
    assert phone["scrolling"] >= 1, "the searches' and the workers' tables scroll in their box"
    assert phone["uncued"] == 0, "a box that scrolls shows it"
    assert phone["chart"] >= 300, "charts take the phone's width"
    assert phone["text"] >= 10, "charts' labels are readable as drawn"
    assert wide["page"] <= 0
    assert wide["cut"] == []
    assert wide["main"] >= 1300, "the dashboard takes the wide screen"
    assert wide["scrolling"] == 0, "on a wide screen every table fits"
    assert 11 <= wide["text"] <= 16, "charts neither tiny nor blown up"
