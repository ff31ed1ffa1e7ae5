"""The page's new versions and downloads: a failed row whose file is the cause offers a new
version, a document's page lists every version with its download and offers one too, and
the upload goes to the API's versions endpoint with the page's session and CSRF token."""

import re

import pytest
from django.test import Client

from documents.models import Document
from jobs.models import Job, JobStatus
from tests.conftest import pdf_upload
from tests.factories import make_document, make_pdf

pytestmark = pytest.mark.django_db


def signed_in(user, **kwargs) -> Client:
    client = Client(**kwargs)
    client.force_login(user)
    return client


def fail(document, code: str) -> None:
    Job.objects.filter(id=document.current_job_id).update(
        status=JobStatus.FAILED, error_code=code, error_detail="", attempts=1
    )


def row_html(html: str, document) -> str:
    return re.search(rf'<tr id="doc-{document.id}".*?</tr>', html, re.S).group(0)


def test_a_row_failed_by_its_file_offers_a_new_version_and_one_a_retry_may_fix_offers_retry(
    alice,
):
    damaged = make_document(alice, filename="damaged.pdf")
    fail(damaged, "corrupt")
    flaky = make_document(alice, filename="flaky.pdf")
    fail(flaky, "retries_exhausted")
    waiting = make_document(alice, filename="waiting.pdf")

    html = signed_in(alice).get("/").content.decode()

    damaged_row = row_html(html, damaged)
    assert "as a new version" in damaged_row  # the reason says what to do, and the row can
    assert f'data-new-version="/api/documents/{damaged.id}/versions/"' in damaged_row
    assert 'aria-label="Upload a new version of damaged.pdf"' in damaged_row
    assert "Retry" not in damaged_row
    assert "Retry" in row_html(html, flaky)
    assert "data-new-version" not in row_html(html, flaky)
    assert "data-new-version" not in row_html(html, waiting)


def test_the_document_page_lists_each_version_with_its_download_and_offers_a_new_one(alice, broker):
    client = signed_in(alice)
    first = client.post("/api/documents/", {"file": pdf_upload(make_pdf(seed=41), "plan.pdf")})
    document_id = first.json()["results"][0]["document_id"]
    client.post(
        f"/api/documents/{document_id}/versions/",
        {"file": pdf_upload(make_pdf(seed=42), "plan-final.pdf")},
    )

    html = client.get(f"/documents/{document_id}/").content.decode()

    versions = re.search(r'<section class="card" id="versions".*?</section>', html, re.S).group(0)
    assert [int(v) for v in re.findall(r'data-version="(\d+)"', versions)] == [2, 1]
    assert '<td class="name">plan-final.pdf</td>' in versions
    assert '<td class="name">plan.pdf</td>' in versions
    for number in (1, 2):
        assert f'href="/api/documents/{document_id}/file/?version={number}"' in versions
    assert f'data-new-version="/api/documents/{document_id}/versions/"' in versions
    # Live: the row listens on the status socket, and polls while it is down.
    assert 'ws-connect="' in html
    assert f'hx-get="/documents/{document_id}/row/"' in html


def test_the_pages_new_version_goes_through_the_api_with_the_session_and_its_csrf_token(
    alice, broker
):
    document = make_document(alice, filename="damaged.pdf")
    fail(document, "corrupt")
    client = signed_in(alice, enforce_csrf_checks=True)
    token = str(client.get("/").context["csrf_token"])
    url = f"/api/documents/{document.id}/versions/"

    without = client.post(url, {"file": pdf_upload(make_pdf(seed=43), "repaired.pdf")})
    with_token = client.post(
        url, {"file": pdf_upload(make_pdf(seed=43), "repaired.pdf")}, HTTP_X_CSRFTOKEN=token
    )
    row = client.get(f"/documents/{document.id}/row/").content.decode()

    assert without.status_code == 403
    assert with_token.status_code == 202
    assert with_token.json()["version"] == 2
    document = Document.objects.get(id=document.id)
    assert (document.version, document.filename) == (2, "repaired.pdf")
    assert 'data-status="queued"' in row
    assert "v2" in row
    assert "data-new-version" not in row


def test_a_refused_new_version_says_why_as_the_pages_uploads_do(alice, broker):
    document = make_document(alice)
    fail(document, "corrupt")

    response = signed_in(alice).post(
        f"/api/documents/{document.id}/versions/",
        {"file": pdf_upload(b"PK\x03\x04 not a pdf", "scan.docx")},
    )

    # The page shows body.detail or results[0].error.detail (static/js/page.js, refusal).
    assert response.status_code == 415
    assert response.json()["results"][0]["error"]["code"] == "unsupported_type"
