"""Fixtures for the browser tests: Debian's chromium driven by Playwright, against real
server processes (tests/harness/servers.py) on the run's test database.

Chromium is the system's (`make browser` installs Debian's package; CHROMIUM_PATH names
another); Playwright never downloads a browser. A missing chromium fails these tests,
unless INGEST_SKIP_BROWSER_TESTS=1 says to skip them. Screenshots go to
test-artifacts/browser/<test>/ at the repository root (ignored by git), and every open
page is photographed there when a test fails.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection

from search.embedding.ratelimit import shared_limiter
from tests.harness.servers import ROOT, BreakableOpenAI, Stack
from tests.harness.services import database_url as url_of

ARTIFACTS = ROOT / "test-artifacts" / "browser"
SKIP_VARIABLE = "INGEST_SKIP_BROWSER_TESTS"
STATE_TIMEOUT_MS = 60_000  # a state change on a loaded two-core machine
PASSWORD = "correct horse battery staple"
T = TypeVar("T")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> pytest.TestReport:
    """Keep each phase's report on the item, so fixtures can tell a failed test."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


def skipping() -> bool:
    return os.environ.get(SKIP_VARIABLE, "").strip().lower() in {"1", "true", "yes"}


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """The chromium executable: $CHROMIUM_PATH, else `chromium` on PATH."""
    if skipping():
        pytest.skip(f"{SKIP_VARIABLE} is set")
    configured = os.environ.get("CHROMIUM_PATH", "")
    path = configured or shutil.which("chromium")
    if not path or not os.access(path, os.X_OK):
        found = (
            f"CHROMIUM_PATH={configured!r} is not an executable"
            if configured
            else "no `chromium` on PATH"
        )
        pytest.fail(
            f"The browser tests need chromium: {found}. Run `make browser` (it installs "
            f"Debian's chromium), set CHROMIUM_PATH, or set {SKIP_VARIABLE}=1 to skip them.",
            pytrace=False,
        )
    return path


@pytest.fixture
def browser(chromium_path) -> Iterator:
    """Chromium, headless, for one test. Not kept for the session: between its calls the
    sync API leaves an asyncio loop marked running, and Django refuses database work in
    this thread while it is (SynchronousOnlyOperation), the test database's flush after
    each test included. So it stops before that flush, and tests make rows in a thread
    (make_user)."""
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=30_000)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path, headless=True)
        yield browser
        browser.close()


# The servers live as long as the tests of this directory, and no longer: their worker
# would take other tests' jobs from the shared queues.
@pytest.fixture(scope="package")
def embeddings(chromium_path) -> Iterator[BreakableOpenAI]:
    """A fake OpenAI embeddings API the worker uses; tests hold it, break it, fix it."""
    with BreakableOpenAI(api_key="test-key") as server:
        yield server


@pytest.fixture(scope="package")
def stack(chromium_path, django_db_setup, embeddings, tmp_path_factory) -> Iterator[Stack]:
    """The servers, started once for the browser tests and stopped after them; their
    logs stay in pytest's temporary directory (and are printed when a test fails)."""
    logs = tmp_path_factory.mktemp("browser-servers")
    env = {
        **os.environ,
        "DATABASE_URL": url_of(connection.settings_dict),
        "REDIS_URL": settings.REDIS_URL,
        "INGEST_MEDIA_ROOT": str(logs / "media"),
        "WEB_CONCURRENCY": "1",
        "WEB_THREADS": "4",
        "WEB_ACCESS_LOG": "1",
        "LOG_LEVEL": "INFO",
        # The page polls every second while its socket is down.
        "INGEST_PAGE_POLL_SECONDS": "1",
        # A transient failure ends the job within seconds.
        "INGEST_MAX_ATTEMPTS": "2",
        "INGEST_RETRY_BASE_SECONDS": "0.5",
        "INGEST_RETRY_MAX_SECONDS": "1",
        "INGEST_EMBED_PROVIDER": "openai",
        "OPENAI_BASE_URL": embeddings.url + "/v1",
        "OPENAI_API_KEY": "test-key",
        "INGEST_EMBED_TIMEOUT_SECONDS": "30",
    }
    stack = Stack(env, logs)
    try:
        stack.collectstatic()
        stack.ensure_running()
        yield stack
    finally:
        stack.stop()


@pytest.fixture
def servers(stack, embeddings, broker) -> Iterator[Stack]:
    """The running servers, each started again if an earlier test killed it; the fake
    embeddings API healthy and fast, no rate-limit cool-down, an empty queue.

    After the test, the embeddings are let go and the jobs it left in flight are given
    time to end: the test database is emptied next, and a worker writing to it then can
    make that flush fail (and the next test find the last one's rows)."""
    stack.ensure_running()
    embeddings.reset()
    shared_limiter().clear()
    yield stack
    embeddings.reset()
    wait_for_jobs_to_end(SETTLE_SECONDS)


# How long a test's leftover jobs get to end before the database is emptied under them
# (a held job ends within a second or two of its release; the margin is for loaded cores).
SETTLE_SECONDS = 60


def wait_for_jobs_to_end(seconds: float) -> None:
    """Wait until no job is queued or processing, or `seconds` have passed; a job that
    cannot end (its worker was killed for the test) is left to the flush. So is a job
    never sent and held by no worker: a row a test wrote as it is (no sweeper runs here
    to send it), which nothing would ever end."""
    from jobs.models import IN_FLIGHT_STATUSES, Job

    running = Job.objects.filter(status__in=IN_FLIGHT_STATUSES).exclude(
        enqueued_at__isnull=True, worker=""
    )
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not in_thread(running.exists):
            return
        time.sleep(0.2)


@dataclass
class Artifacts:
    """Where one test's screenshots go: test-artifacts/browser/<test name>/."""

    directory: Path
    count: int = 0

    def screenshot(self, page, state: str) -> Path:
        self.count += 1
        path = self.directory / f"{self.count:02d}-{state}.png"
        page.screenshot(path=str(path), full_page=True)
        return path


@pytest.fixture
def artifacts(request) -> Artifacts:
    directory = ARTIFACTS / re.sub(r"[^\w.-]+", "_", request.node.name)
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    return Artifacts(directory)


@dataclass
class Browsing:
    """Pages opened by one test, each in its own browser context (its own cookies)."""

    browser: object
    base_url: str
    opened: list[tuple[str, object, object]] = field(default_factory=list)
    console: list[str] = field(default_factory=list)

    def open(self, name: str):
        context = self.browser.new_context(
            base_url=self.base_url, viewport={"width": 1100, "height": 800}
        )
        context.set_default_timeout(30_000)
        page = context.new_page()
        page.on("console", lambda message: self.console.append(f"{name}: {message.text}"))
        page.on("pageerror", lambda error: self.console.append(f"{name}: page error: {error}"))
        self.opened.append((name, context, page))
        return page


@pytest.fixture
def browsing(request, browser, servers, artifacts) -> Iterator[Callable[[str], object]]:
    """open_page(name) → a new page in a new context; closed after the test. When the
    test fails, each page is photographed (failed-<name>.png) and the servers' logs and
    the pages' console are printed with the failure."""
    browsing = Browsing(browser, servers.base_url)
    yield browsing.open
    report = getattr(request.node, "report_call", None)
    failed = report is None or report.failed
    for name, context, page in browsing.opened:
        if failed:
            path = artifacts.directory / f"failed-{name}.png"
            try:
                page.screenshot(path=str(path), full_page=True)
                (artifacts.directory / f"failed-{name}.html").write_text(page.content())
                print(f"screenshot of {name}'s page: {path.relative_to(ROOT)}")
            except Exception as exc:  # a page that crashed has nothing to show
                print(f"no screenshot of {name}'s page: {exc}")
        context.close()
    if failed:
        print("\n".join(["browser console:", *browsing.console]))
        print(servers.logs())


def in_thread(task: Callable[[], T]) -> T:
    """Run database work in a thread of its own (see `browser`), its connection closed."""

    def run() -> T:
        try:
            return task()
        finally:
            connection.close()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(run).result()


@pytest.fixture
def make_user(transactional_db) -> Callable[[str], User]:
    """make_user(name) → a user who signs in with PASSWORD."""

    def make_user(name: str) -> User:
        return in_thread(lambda: User.objects.create_user(name, password=PASSWORD))

    return make_user
