"""The page sends files straight to the bucket when uploads are stored in one: the servers
of this module store them on a SeaweedFS server of their own, with the CORS rule that
docs/running/storage.md gives; a file goes there from chromium with its progress shown,
in one form or, past the multipart threshold, in parts, and is then completed."""

import os
from collections.abc import Iterator

import pytest
from django.conf import settings
from django.db import connection
from playwright.sync_api import expect

from config.tooling.s3 import S3Server
from documents.models import DirectUpload, Document
from tests.browser.conftest import STATE_TIMEOUT_MS, Browsing, in_thread
from tests.browser.test_upload_page import pdf, row, sign_in
from tests.factories import make_pdf
from tests.harness.servers import Stack
from tests.harness.services import database_url as url_of

pytestmark = pytest.mark.django_db(transaction=True)

MiB = 1024 * 1024


@pytest.fixture(scope="module")
def s3_stack(chromium_path, django_db_setup, embeddings, tmp_path_factory) -> Iterator[Stack]:
    """The servers with uploads in a bucket (parts of 5 MiB past 5 MiB), and the bucket's
    CORS rule letting the page's origin POST and PUT to it; on the test database, with a
    Redis database of their own."""
    logs = tmp_path_factory.mktemp("direct-servers")
    s3 = S3Server(tmp_path_factory.mktemp("direct-s3"), bucket="page-uploads").start()
    env = {
        **os.environ,
        **s3.variables,
        "DATABASE_URL": url_of(connection.settings_dict),
        # A Redis database of their own: the browser tests' other servers run meanwhile on
        # the same server and would take these jobs off the same queues, and read their
        # files from their own disk, not from this bucket.
        "REDIS_URL": settings.REDIS_URL.rsplit("/", 1)[0] + "/7",
        "WEB_CONCURRENCY": "1",
        "WEB_THREADS": "4",
        "INGEST_PAGE_POLL_SECONDS": "1",
        "INGEST_MULTIPART_THRESHOLD_BYTES": str(5 * MiB),
        "INGEST_EMBED_PROVIDER": "openai",
        "OPENAI_BASE_URL": embeddings.url + "/v1",
        "OPENAI_API_KEY": "test-key",
    }
    stack = Stack(env, logs)
    s3.client().put_bucket_cors(
        Bucket=s3.bucket,
        CORSConfiguration={
            "CORSRules": [
                {
                    "AllowedOrigins": [stack.base_url],
                    "AllowedMethods": ["POST", "PUT"],
                    "AllowedHeaders": ["*"],
                    "ExposeHeaders": ["ETag"],
                    "MaxAgeSeconds": 3600,
                }
            ]
        },
    )
    try:
        stack.collectstatic()
        stack.ensure_running()
        yield stack
    finally:
        stack.stop()
        s3.stop()


@pytest.fixture
def page_on_s3(browser, s3_stack, embeddings, make_user) -> Iterator:
    embeddings.reset()
    make_user("vera")
    browsing = Browsing(browser, s3_stack.base_url)
    page = browsing.open("vera")
    sign_in(page, "vera")
    yield page
    for _, context, _ in browsing.opened:
        context.close()


def test_a_file_goes_straight_to_the_bucket_then_is_processed(page_on_s3, artifacts):
    page = page_on_s3
    expect(page.locator("#upload-form")).to_have_attribute("data-direct", "/api/uploads/")

    page.locator("#files").set_input_files(pdf("direct.pdf", make_pdf(pages=2, seed=61)))

    expect(row(page, "direct.pdf")).to_have_attribute(
        "data-status", "succeeded", timeout=STATE_TIMEOUT_MS
    )
    upload = in_thread(lambda: DirectUpload.objects.get(filename="direct.pdf"))
    assert upload.status == "completed"
    assert upload.multipart_id == ""
    assert in_thread(lambda: Document.objects.filter(id=upload.document_id).exists())
    artifacts.screenshot(page, "sent-straight-to-the-bucket")


def test_a_large_file_goes_in_parts_with_its_progress(page_on_s3, artifacts):
    page = page_on_s3
    content = make_pdf(pages=1, seed=62)
    content += b"\n%" + b"x" * (11 * MiB - len(content) - 2)

    # The highest value the upload's progress bar shows, kept as the page changes it.
    page.evaluate(
        """() => {
          window.mostProgress = 0;
          new MutationObserver(() => {
            document.querySelectorAll("#uploads progress").forEach((bar) => {
              window.mostProgress = Math.max(window.mostProgress, bar.value);
            });
          }).observe(document.getElementById("uploads"), {subtree: true, childList: true,
            attributes: true, characterData: true});
        }"""
    )

    page.locator("#files").set_input_files(pdf("large.pdf", content))

    expect(page.locator("#uploads li .state").first).to_have_text("accepted")
    assert page.evaluate("window.mostProgress") > 0
    expect(row(page, "large.pdf")).to_have_attribute(
        "data-status", "succeeded", timeout=STATE_TIMEOUT_MS
    )
    upload = in_thread(lambda: DirectUpload.objects.get(filename="large.pdf"))
    assert upload.multipart_id
    assert upload.status == "completed"
    artifacts.screenshot(page, "sent-in-parts")
