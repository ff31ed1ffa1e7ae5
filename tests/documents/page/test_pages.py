"""The upload page and its fragments, through Django's test client (the browser tests in
tests/browser drive the same views in chromium)."""

import re

import pytest
from django.test import Client
from django.utils import timezone

from jobs.models import Job, JobAttempt, JobStatus
from search.models import Chunk
from tests.factories import make_document

pytestmark = pytest.mark.django_db


def signed_in(user, **kwargs) -> Client:
    client = Client(**kwargs)
    client.force_login(user)
    return client


def fail(
    document, detail: str = "EmbeddingError: HTTP 502", code: str = "retries_exhausted"
) -> Job:
    """The document's job failed; by default for a cause that a retry may fix."""
    Job.objects.filter(id=document.current_job_id).update(
        status=JobStatus.FAILED, error_code=code, error_detail=detail, attempts=1
    )
    return Job.objects.get(id=document.current_job_id)


def row_ids(html: str) -> list[str]:
    return re.findall(r'<tr id="doc-([0-9a-f-]+)"', html)


def test_anonymous_visitors_are_sent_to_sign_in(client):
    for url in ("/", "/documents/rows/"):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/")


def test_signing_in_leads_to_the_page_and_signing_out_leaves_it(alice):
    alice.set_password("s3cret-pass")
    alice.save()
    client = Client()

    page = client.get("/accounts/login/")
    wrong = client.post("/accounts/login/", {"username": "alice", "password": "nope"})
    right = client.post("/accounts/login/", {"username": "alice", "password": "s3cret-pass"})
    home = client.get("/")
    out = client.post("/accounts/logout/")

    assert page.status_code == 200
    assert b'for="id_username"' in page.content
    assert b"do not match" in wrong.content
    assert right.status_code == 302
    assert right["Location"] == "/"
    assert home.status_code == 200
    assert b"Upload documents" in home.content
    assert out.status_code == 302
    assert client.get("/").status_code == 302


def test_the_page_lists_only_the_users_own_documents(alice, bob):
    mine = make_document(alice, filename="mine.pdf")
    make_document(bob, filename="theirs.pdf")

    html = signed_in(alice).get("/").content.decode()

    assert row_ids(html) == [str(mine.id)]
    assert "theirs.pdf" not in html


def test_a_row_shows_what_a_person_needs_for_each_state(alice):
    queued = make_document(alice, filename="waiting.pdf")
    failed = make_document(alice, filename="broken.pdf")
    fail(failed, "ConnectionError: http://provider.internal:8080/v1 refused")
    done = make_document(alice, filename="done.pdf", page_count=4)
    Job.objects.filter(id=done.current_job_id).update(
        status=JobStatus.SUCCEEDED, attempts=1, finished_at=timezone.now()
    )
    running = make_document(alice, filename="running.pdf")
    Job.objects.filter(id=running.current_job_id).update(
        status=JobStatus.PROCESSING,
        stage="embedding",
        pages_done=50,
        pages_total=50,
        progress_done=3,
        progress_total=4,
        attempts=1,
    )
    reading = make_document(alice, filename="reading.pdf")
    Job.objects.filter(id=reading.current_job_id).update(
        status=JobStatus.PROCESSING, stage="extracting", pages_done=12, pages_total=117, attempts=1
    )
    opening = make_document(alice, filename="opening.pdf")
    Job.objects.filter(id=opening.current_job_id).update(
        status=JobStatus.PROCESSING, stage="extracting", attempts=1
    )

    html = signed_in(alice).get("/").content.decode()

    def row(document) -> str:
        return re.search(rf'<tr id="doc-{document.id}".*?</tr>', html, re.S).group(0)

    assert "next in line" in row(queued)
    # The code's plain sentence (jobs.failures), not the stored detail.
    assert "Gave up after 1 attempt. A temporary problem" in row(failed)
    assert "provider.internal" not in row(failed)
    assert "Retry" in row(failed)
    assert "Retry" not in row(queued)
    assert "4 pages" in row(done)
    assert "ready in" in row(done)
    # Each stage with its unit: pages while the file is read, then chunks.
    assert "Embedding chunks 3 / 4" in row(running)
    assert 'value="75"' in row(running)
    assert 'data-stage="embedding"' in row(running)
    assert "Reading pages 12 / 117" in row(reading)
    assert 'value="10"' in row(reading)
    assert 'data-stage="extracting"' in row(reading)
    assert "Opening the file" in row(opening)
    assert 'value="0"' in row(opening)


def test_a_row_reading_scanned_pages_by_ocr_says_so_with_its_unit(alice):
    scanning = make_document(alice, filename="scan.pdf")
    Job.objects.filter(id=scanning.current_job_id).update(
        status=JobStatus.PROCESSING, lane="ocr", stage="ocr", pages_done=3, pages_total=40
    )
    handed_on = make_document(alice, filename="waiting-scan.pdf")
    Job.objects.filter(id=handed_on.current_job_id).update(lane="ocr")
    client = signed_in(alice)

    html = client.get("/").content.decode()
    detail = client.get(f"/documents/{scanning.id}/").content.decode()

    def row(document, page: str = html) -> str:
        return re.search(rf'<tr id="doc-{document.id}".*?</tr>', page, re.S).group(0)

    for shown in (row(scanning), row(scanning, detail)):
        assert "Reading scanned pages 3 / 40" in shown
        assert 'value="8"' in shown
        assert 'data-stage="ocr"' in shown
    assert "scanned pages wait for OCR · next in line" in row(handed_on)


def test_the_filter_and_pages_cover_thousands_of_documents(alice, settings):
    documents = [make_document(alice) for _ in range(30)]
    fail(documents[0])
    client = signed_in(alice)

    htmx = {"HX-Request": "true"}
    failed = client.get("/documents/rows/?status=failed", headers=htmx).content.decode()
    first = client.get("/documents/rows/", headers=htmx).content.decode()
    second = client.get("/documents/rows/?page=2", headers=htmx).content.decode()

    assert row_ids(failed) == [str(documents[0].id)]
    assert len(row_ids(first)) == 25
    assert "Page 1 of 2" in first
    assert len(row_ids(second)) == 5
    assert not set(row_ids(first)) & set(row_ids(second))


def test_the_filtered_listing_is_a_fragment_for_htmx_and_the_whole_page_on_a_reload(alice):
    # The filter pushes /documents/rows/?status=… into the history: reloading it, or htmx
    # restoring history it no longer holds, must show the page, not a bare table.
    fail(make_document(alice))
    client = signed_in(alice)
    url = "/documents/rows/?status=failed"

    fragment = client.get(url, headers={"HX-Request": "true"}).content.decode()
    reloaded = client.get(url).content.decode()
    restored = client.get(
        url, headers={"HX-Request": "true", "HX-History-Restore-Request": "true"}
    ).content.decode()

    assert fragment.lstrip().startswith('<div id="listing"')
    assert "<html" not in fragment
    for page in (reloaded, restored):
        assert "<html" in page
        assert 'id="upload-form"' in page
        assert len(row_ids(page)) == 1
        assert 'value="failed" selected' in page


def test_sizes_read_as_the_upload_refusals_write_them(alice, settings):
    settings.INGEST_MAX_UPLOAD_BYTES = 10 * 1024 * 1024
    document = make_document(alice, size=20_000)
    client = signed_in(alice)

    page = client.get("/").content.decode()
    detail = client.get(f"/documents/{document.id}/").content.decode()

    assert "up to 10 MiB each" in page
    assert "19.5 KiB" in page
    assert "<dd>19.5 KiB</dd>" in detail


def test_the_tag_filter_keeps_documents_with_every_tag_and_the_pager_carries_it(alice):
    tagged = [make_document(alice, tags=["papers", "2024"]) for _ in range(27)]
    make_document(alice, tags=["papers"])
    client = signed_in(alice)
    htmx = {"HX-Request": "true"}

    first = client.get("/documents/rows/?tags=papers, 2024", headers=htmx).content.decode()
    bad = client.get("/documents/rows/?tags=" + "x" * 65, headers=htmx)

    assert len(row_ids(first)) == 25
    assert set(row_ids(first)) <= {str(d.id) for d in tagged}
    assert "tag=papers&amp;tag=2024&page=2" in first  # each tag exactly
    assert bad.status_code == 200, "a bad filter shows every document and says why"
    assert len(row_ids(bad.content.decode())) == 25


def test_the_labels_form_replaces_tags_and_metadata_or_changes_nothing(alice):
    document = make_document(alice, tags=["old"], metadata={"k": "v"})
    client = signed_in(alice)

    saved = client.post(
        f"/documents/{document.id}/labels/", {"tags": "new, two", "metadata": "year: 2024"}
    )
    refused = client.post(
        f"/documents/{document.id}/labels/", {"tags": "fine", "metadata": "no key here"}
    )

    assert saved.status_code == 302
    assert saved["Location"] == f"/documents/{document.id}/#labels"
    assert refused.status_code == 400
    assert "has no key" in refused.content.decode()
    document.refresh_from_db()
    assert (document.tags, document.metadata) == (["new", "two"], {"year": 2024})


def test_the_labels_form_refuses_a_number_too_long_to_read_by_its_key(alice):
    document = make_document(alice, metadata={"k": "v"})
    client = signed_in(alice)

    refused = client.post(
        f"/documents/{document.id}/labels/", {"tags": "", "metadata": "year: 1" + "0" * 5000}
    )

    assert refused.status_code == 400
    page = refused.content.decode()
    assert "The value of &#x27;year&#x27; is a number of 5,001 digits" in page
    assert "set_int_max_str_digits" not in page
    document.refresh_from_db()
    assert document.metadata == {"k": "v"}


def test_another_users_document_is_not_found_everywhere(alice, bob):
    theirs = make_document(bob)
    fail(theirs)
    client = signed_in(alice)

    answers = [
        client.get(f"/documents/{theirs.id}/").status_code,
        client.get(f"/documents/{theirs.id}/row/").status_code,
        client.post(f"/documents/{theirs.id}/retry/").status_code,
        client.post(f"/documents/{theirs.id}/delete/").status_code,
        client.post(f"/documents/{theirs.id}/labels/", {"tags": "mine"}).status_code,
    ]

    assert answers == [404, 404, 404, 404, 404]
    assert Job.objects.get(id=theirs.current_job_id).status == JobStatus.FAILED


def test_retry_gives_a_failed_document_a_fresh_job(alice, broker):
    document = make_document(alice)
    failed = fail(document)

    response = signed_in(alice).post(f"/documents/{document.id}/retry/")

    document.refresh_from_db()
    assert response.status_code == 200
    assert document.current_job_id != failed.id
    assert document.current_job.status == JobStatus.QUEUED
    assert 'data-status="queued"' in response.content.decode()


def test_retrying_a_document_that_has_not_failed_says_why(alice):
    document = make_document(alice)

    response = signed_in(alice).post(f"/documents/{document.id}/retry/")

    assert response.status_code == 200
    assert "Only a failed document can be retried" in response["HX-Trigger"]
    assert Job.objects.count() == 1


def test_delete_removes_the_document(alice):
    document = make_document(alice)

    response = signed_in(alice).post(f"/documents/{document.id}/delete/")

    assert response.status_code == 200
    assert response.content == b""
    assert not type(document).objects.filter(id=document.id).exists()


def test_actions_need_the_csrf_token(alice):
    document = make_document(alice)
    fail(document)
    client = signed_in(alice, enforce_csrf_checks=True)

    without = client.post(f"/documents/{document.id}/delete/")
    token = str(client.get("/").context["csrf_token"])
    with_token = client.post(f"/documents/{document.id}/retry/", HTTP_X_CSRFTOKEN=token)

    assert without.status_code == 403
    assert with_token.status_code == 200


def test_actions_refuse_get(alice):
    document = make_document(alice)
    assert signed_in(alice).get(f"/documents/{document.id}/delete/").status_code == 405


def test_the_detail_shows_versions_attempts_chunks_and_text(alice):
    document = make_document(alice, ready_version=1)
    job = document.current_job
    JobAttempt.objects.create(
        job=job,
        number=1,
        worker="w1",
        started_at=timezone.now(),
        finished_at=timezone.now(),
        outcome="retry",
        error_code="rate_limited",
        error_message="RateLimitError: 429 from https://api.example.com/v1/embeddings",
    )
    Chunk.objects.bulk_create(
        Chunk(
            id=f"00000000-0000-0000-0000-{index:012d}",
            document=document,
            version=1,
            index=index,
            text=f"Paragraph number {index} of the report.",
            page=1,
            embedding=[0.0] * 384,
        )
        for index in range(3)
    )

    html = signed_in(alice).get(f"/documents/{document.id}/").content.decode()

    assert "rate_limited: The embedding service asked us to slow down." in html
    assert "api.example.com" not in html
    assert "Paragraph number 0 of the report." in html
    assert "<dt>Chunks</dt><dd>3" in html


def test_the_page_points_its_socket_at_the_ws_process_or_the_configured_url(alice, settings):
    client = signed_in(alice)
    settings.WS_PORT = 9123
    default = client.get("/", HTTP_HOST="localhost:8000").content.decode()
    settings.INGEST_WS_URL = "/ws/status/"
    configured = client.get("/").content.decode()

    assert 'ws-connect="ws://localhost:9123/ws/status/"' in default
    assert 'ws-connect="/ws/status/"' in configured


def test_assets_are_served_locally(alice):
    html = signed_in(alice).get("/").content.decode()

    scripts = re.findall(r'<script src="([^"]+)"', html)
    assert scripts
    assert all(src.startswith("/static/") for src in scripts)
    assert any("htmx" in src for src in scripts)
    assert any("ext-ws" in src for src in scripts)
