"""manage.py reprocess ocr (alias reocr): documents that failed no_text before OCR was on
are retried, in waves bounded by the OCR lane, and read by a real Tesseract in a real
worker."""

import io
import threading
import time

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from documents.models import Document
from documents.upkeep import reocr
from jobs.models import Job, JobStatus, Lane
from search.models import Chunk
from tests.conftest import eventually, pdf_upload, running_worker, wait_until_terminal
from tests.factories import make_document, scanned_pdf

pytestmark = pytest.mark.django_db(transaction=True)

OLD = "No text layer: it looks scanned; OCR is not enabled."  # before OCR existed
FOUND_NOTHING = "OCR found no text on the 2 pages it read, and the text layer has none."
SCANS = [
    "The warehouse ships the pallets every Tuesday.",
    "The tenant pays the rent on the first day of the month.",
    "The committee approved the budget for the new library.",
]


def reocr_command(*args: str) -> str:
    out = io.StringIO()
    call_command("reprocess", "ocr", "--poll", "0.05", *args, stdout=out, stderr=out)
    return out.getvalue()


def failed_row(owner, code: str = "no_text", detail: str = OLD) -> Document:
    """A document (rows only, no file) whose current job failed with `code`."""
    document = make_document(owner)
    Job.objects.filter(id=document.current_job_id).update(
        status=JobStatus.FAILED, error_code=code, error_detail=detail, attempts=1
    )
    return document


def scans_failed_with_ocr_off(client, settings) -> list[str]:
    """Upload SCANS with INGEST_OCR=off and wait until each failed no_text; their ids."""
    settings.INGEST_OCR = "off"
    results = []
    for number, text in enumerate(SCANS):
        upload = {"file": pdf_upload(scanned_pdf(text), f"scan-{number}.pdf")}
        results.append(client.post("/api/documents/", upload).json()["results"][0])
    jobs = wait_until_terminal([result["job_id"] for result in results])
    assert {(job.status, job.error_code) for job in jobs} == {(JobStatus.FAILED, "no_text")}
    return [result["document_id"] for result in results]


def test_scans_read_with_ocr_off_are_read_by_ocr_in_waves(alice, alice_client, broker, settings):
    read_by_ocr = failed_row(alice, detail=FOUND_NOTHING)
    encrypted = failed_row(alice, code="encrypted", detail="")
    with running_worker(broker, threads=2):
        ids = scans_failed_with_ocr_off(alice_client, settings)
        settings.INGEST_OCR = "auto"
        job_ids = set(Document.objects.filter(id__in=ids).values_list("current_job_id", flat=True))
        highest, done = 0, threading.Event()
        ocr_lane = reocr.Reocr(reocr.Scope())

        def sample() -> None:
            nonlocal highest
            try:
                while not done.is_set():
                    highest = max(highest, ocr_lane.busy(job_ids))
                    time.sleep(0.01)
            finally:
                connection.close()

        sampler = threading.Thread(target=sample)
        sampler.start()
        try:
            out = reocr_command("--wave", "1")
        finally:
            done.set()
            sampler.join()

    assert "INGEST_OCR: auto\n" in out
    assert "4 documents failed no_text: 3 read before OCR was on, 1 already read by OCR" in out
    assert "to queue: 3; skipped, already read by OCR: 1 (--all takes them)" in out
    assert "waves: at most 1 jobs in flight on the OCR lane" in out
    assert "queued 1 of 3, done 0, failed 0, in flight 1" in out  # the first wave
    assert "finished: queued 3 of 3, done 3, failed 0, in flight 0" in out
    assert highest == 1
    for document_id, text in zip(ids, SCANS, strict=True):
        document = Document.objects.get(id=document_id)
        job = document.current_job
        assert (job.status, job.lane, document.ready_version) == (JobStatus.SUCCEEDED, "ocr", 1)
        assert job.id in job_ids, "the same job, retried in place"
        chunks = Chunk.objects.filter(document=document)
        assert {chunk.source for chunk in chunks} == {"ocr"}
        assert text.split()[1].lower() in " ".join(c.text for c in chunks).lower()
    for untouched in (read_by_ocr, encrypted):
        assert Job.objects.get(id=untouched.current_job_id).status == JobStatus.FAILED
    assert "to queue: 0" in reocr_command()


def test_with_ocr_off_it_refuses_and_changes_nothing(alice, broker, settings):
    settings.INGEST_OCR = "off"
    document = failed_row(alice)

    with pytest.raises(CommandError, match="INGEST_OCR is off") as refused:
        reocr_command()

    assert "restart the workers, then run manage.py reprocess ocr" in str(refused.value)
    assert Job.objects.get(id=document.current_job_id).status == JobStatus.FAILED


def test_dry_run_counts_and_all_and_owner_choose(alice, bob, broker, settings):
    settings.INGEST_OCR = "auto"
    old = [failed_row(alice), failed_row(alice, detail=reocr.failures.NO_TEXT["before_ocr"])]
    off = failed_row(
        bob, detail="No text layer: it looks scanned, and OCR is off (INGEST_OCR=off)."
    )
    nothing = failed_row(alice, detail=FOUND_NOTHING)
    failed_row(alice, code="corrupt")
    make_document(alice)  # queued: not a failure

    out = reocr_command("--dry-run")
    everything = reocr_command("--dry-run", "--all")
    only_bob = reocr_command("--dry-run", "--owner", "bob")

    assert "4 documents failed no_text: 3 read before OCR was on, 1 already read by OCR" in out
    assert "would queue: 3; skipped, already read by OCR: 1" in out
    assert "would queue: 4\n" in everything
    assert "1 documents failed no_text: 1 read before OCR was on, 0 already read by OCR" in only_bob
    assert set(Job.objects.values_list("status", flat=True)) == {
        JobStatus.FAILED,
        JobStatus.QUEUED,
    }
    assert Job.objects.filter(status=JobStatus.QUEUED).count() == 1
    chosen = reocr.next_candidates(reocr.Scope(), limit=10, skip=set())
    assert set(chosen) == {old[0].id, old[1].id, off.id}
    assert chosen[:2] in ([old[0].id, off.id], [off.id, old[0].id]), "owners take turns"
    assert nothing.id in reocr.next_candidates(reocr.Scope(everything=True), limit=10, skip=set())
    with pytest.raises(CommandError, match="No user 'carol'"):
        reocr_command("--owner", "carol")


def test_workers_without_ocr_stop_the_run_with_the_reason(alice, alice_client, broker, settings):
    with running_worker(broker) as worker:
        ids = scans_failed_with_ocr_off(alice_client, settings)
        settings.INGEST_OCR = "auto"
        worker.pause()
        out, failure = io.StringIO(), []

        def run() -> None:
            try:
                call_command("reocr", "--poll", "0.05", "--wave", "1", stdout=out, stderr=out)
            except CommandError as error:
                failure.append(error)
            finally:
                connection.close()

        thread = threading.Thread(target=run)
        thread.start()
        try:
            eventually(lambda: Job.objects.filter(status=JobStatus.QUEUED).count() == 1)
            settings.INGEST_OCR = "off"  # the workers (this process's) now read without OCR
        finally:
            worker.resume()
            thread.join(timeout=60)

    assert not thread.is_alive()
    [error] = failure
    assert "1 retried documents failed no_text again without OCR looking at them" in str(error)
    assert "the workers run with INGEST_OCR=off" in str(error)
    assert "finished: queued 1 of 3, done 0, failed 1, in flight 0" in out.getvalue()
    assert Job.objects.filter(document_id__in=ids, lane=Lane.OCR).count() == 0


def test_reprocess_names_its_kinds_when_given_none_or_another():
    for args in [(), ("thumbnails",)]:
        with pytest.raises(CommandError, match=r"embeddings,ocr"):
            call_command("reprocess", *args)
