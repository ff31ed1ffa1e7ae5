"""/api/redoc/ and /api/docs/ render from this server alone: no fonts, logos or scripts
from another host (config/http/redoc.py, templates/drf_spectacular/redoc.html)."""

import os
import re
import shutil
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.contrib.staticfiles import finders

from config.http import redoc

SKIP_VARIABLE = "INGEST_SKIP_BROWSER_TESTS"  # as tests/browser: no chromium, no test


def test_the_redoc_bundle_served_has_no_outside_address_left():
    original = Path(finders.find(redoc.SIDECAR_BUNDLE)).read_bytes()

    assert redoc.BADGE_IMAGE in original, "the sidecar still loads its badge from the CDN"
    assert b"cdn.redoc.ly" not in redoc.local_bundle()


def test_the_redoc_page_links_only_this_servers_assets(client):
    page = client.get("/api/redoc/").content.decode()

    assets = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert assets == ["/api/redoc/redoc.standalone.js"]
    assert "fonts.googleapis.com" not in page
    bundle = client.get(assets[0])
    assert bundle.status_code == 200
    assert bundle["Content-Type"].startswith("text/javascript")


@pytest.fixture
def chromium_path() -> str:
    if os.environ.get(SKIP_VARIABLE, "").strip().lower() in {"1", "true", "yes"}:
        pytest.skip(f"{SKIP_VARIABLE} is set")
    path = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium")
    if not path:
        pytest.fail(f"No chromium: run `make browser`, set CHROMIUM_PATH or {SKIP_VARIABLE}=1.")
    return path


def load(chromium_path: str, url: str, ready: str) -> tuple[list[str], str]:
    """Every URL the page at `url` requested until the `ready` selector showed, and the
    page's text."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path, headless=True)
        try:
            page = browser.new_page()
            requested: list[str] = []
            page.on("request", lambda request: requested.append(request.url))
            page.goto(url, wait_until="networkidle")
            page.locator(ready).first.wait_for(timeout=30_000)
            page.wait_for_load_state("networkidle")
            return requested, page.inner_text("body")
        finally:
            browser.close()


@pytest.mark.parametrize(
    ("path", "ready"),
    [
        ("/api/redoc/", "h2:has-text('Upload one or more PDFs')"),
        ("/api/docs/", ".opblock-summary-description:has-text('Upload one or more PDFs')"),
    ],
)
def test_the_docs_render_without_asking_any_other_host(live_server, chromium_path, path, ready):
    requested, text = load(chromium_path, live_server.url + path, ready)

    ours = urlsplit(live_server.url).netloc
    elsewhere = [url for url in requested if urlsplit(url).scheme in ("http", "https")]
    elsewhere = [url for url in elsewhere if urlsplit(url).netloc != ours]
    assert elsewhere == []
    assert "Document ingestion API" in text
    assert any(url.endswith("/api/schema/") for url in requested)
