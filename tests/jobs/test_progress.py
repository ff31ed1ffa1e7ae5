"""A job's progress, through the API and the page, while a real in-process worker reads a
long PDF and embeds it: pages read first (told by the sandboxed child as it goes), then
chunks embedded, then done. The worker is held at each stage while the test looks."""

import itertools
import threading
import time
from collections.abc import Callable

import pytest
from django.test import Client

from jobs import services
from jobs.models import Job
from jobs.worker import processing
from jobs.worker.processing import PAGES_WRITE_SECONDS
from tests.conftest import pdf_upload, wait_until_terminal
from tests.factories import make_document, make_pdf, scanned_pdf

pytestmark = pytest.mark.django_db(transaction=True)

PAGES = 150  # a few seconds of pdfminer: several page counts get written on the way
HOLD_SECONDS = 60


class Hold:
    """Stops the worker's thread in `wrapped` the first time `when` holds, until released."""

    def __init__(self, wrapped: Callable, when: Callable[..., bool]) -> None:
        self.wrapped, self.when = wrapped, when
        self.reached, self.released = threading.Event(), threading.Event()
        self.calls: list[tuple[float, dict]] = []

    def __call__(self, *args: object, **kwargs: object) -> object:
        # Timed at the call, as the throttle times it: a write slowed by a busy machine
        # must not shorten the gap to the next one.
        self.calls.append((time.monotonic(), kwargs))
        result = self.wrapped(*args, **kwargs)
        if not self.reached.is_set() and self.when(*args, **kwargs):
            self.reached.set()
            assert self.released.wait(HOLD_SECONDS), "the test never released the worker"
        return result

    def wait(self) -> None:
        assert self.reached.wait(HOLD_SECONDS), "the worker never got here"


def progress(client, job_id: str) -> dict:
    return client.get(f"/api/jobs/{job_id}/").json()["progress"]


def test_the_api_and_the_page_show_pages_read_then_chunks_embedded_then_done(
    alice, alice_client, broker, worker, monkeypatch
):
    reading = Hold(
        services.record_pages, lambda *, job, done, total, stage="extracting": 0 < done < total
    )
    monkeypatch.setattr(services, "record_pages", reading)
    embedding = Hold(processing.embed, lambda texts: True)
    monkeypatch.setattr(processing, "embed", embedding)
    page = Client()
    page.force_login(alice)
    response = alice_client.post(
        "/api/documents/", {"file": pdf_upload(make_pdf(pages=PAGES, words_per_page=200))}
    )
    result = response.json()["results"][0]
    job_id, document_id = result["job_id"], result["document_id"]

    try:
        reading.wait()
        while_reading = progress(alice_client, job_id)
        row_while_reading = page.get(f"/documents/{document_id}/row/").content.decode()
        document_while_reading = alice_client.get(f"/api/documents/{document_id}/").json()
        reading.released.set()

        embedding.wait()
        while_embedding = progress(alice_client, job_id)
        row_while_embedding = page.get(f"/documents/{document_id}/row/").content.decode()
    finally:
        reading.released.set()
        embedding.released.set()
    [job] = wait_until_terminal([job_id])
    after = progress(alice_client, job_id)

    read = while_reading["pages_done"]
    assert while_reading == {
        "stage": "extracting",
        "pages_done": read,
        "pages_total": PAGES,
        "done": 0,
        "total": 0,
    }
    assert 0 < read < PAGES
    assert document_while_reading["job"]["progress"] == while_reading
    assert f"Reading pages {read} / {PAGES}" in row_while_reading
    chunks = while_embedding["total"]
    assert while_embedding == {
        "stage": "embedding",
        "pages_done": PAGES,
        "pages_total": PAGES,
        "done": 0,
        "total": chunks,
    }
    assert chunks > PAGES  # 200 words a page make more than one chunk each
    assert f"Embedding chunks 0 / {chunks}" in row_while_embedding
    assert job.status == "succeeded"
    assert after == {
        "stage": "done",
        "pages_done": PAGES,
        "pages_total": PAGES,
        "done": chunks,
        "total": chunks,
    }
    # The count first, then the pages read at most every PAGES_WRITE_SECONDS.
    written = [(at, kwargs["done"]) for at, kwargs in reading.calls]
    assert written[0][1] == 0
    assert [done for _, done in written] == sorted(done for _, done in written)
    gaps = [later - earlier for (earlier, _), (later, _) in itertools.pairwise(written)]
    assert all(gap >= PAGES_WRITE_SECONDS * 0.8 for gap in gaps), gaps


def test_a_queued_job_has_read_no_page_whatever_an_earlier_attempt_read(alice, alice_client):
    job = make_document(alice).current_job
    # As a retry leaves it: queued again, the last attempt's counts still stored.
    Job.objects.filter(id=job.id).update(
        stage="embedding", pages_done=7, pages_total=9, progress_done=3, progress_total=5
    )

    queued = progress(alice_client, str(job.id))

    assert queued == {"stage": "queued", "pages_done": 0, "pages_total": 0, "done": 3, "total": 5}


def test_a_scan_read_by_ocr_shows_its_scanned_pages_read(
    alice, alice_client, broker, worker, monkeypatch
):
    scanning = Hold(
        services.record_pages,
        lambda *, job, done, total, stage="extracting": stage == "ocr" and 0 < done < total,
    )
    monkeypatch.setattr(services, "record_pages", scanning)
    page = Client()
    page.force_login(alice)
    scan = scanned_pdf(*[f"Page {n} of the signed delivery contract." for n in range(1, 4)])
    result = alice_client.post("/api/documents/", {"file": pdf_upload(scan, "scan.pdf")}).json()
    job_id, document_id = result["results"][0]["job_id"], result["results"][0]["document_id"]

    try:
        scanning.wait()
        while_scanning = progress(alice_client, job_id)
        row = page.get(f"/documents/{document_id}/row/").content.decode()
    finally:
        scanning.released.set()
    [job] = wait_until_terminal([job_id], timeout=120)

    read = while_scanning["pages_done"]
    assert while_scanning == {
        "stage": "ocr",
        "pages_done": read,
        "pages_total": 3,
        "done": 0,
        "total": 0,
    }
    assert 0 < read < 3
    assert f"Reading scanned pages {read} / 3" in row
    assert 'data-stage="ocr"' in row
    assert job.status == "succeeded", job.error_detail
