"""An extraction timeout is retried once; a second one in a row fails the job as too_complex."""

import os
import signal
import threading

from django.core.files.uploadedfile import SimpleUploadedFile

from documents.services.uploads import create_upload
from jobs import services
from jobs.models import Job
from jobs.worker import processing
from tests.factories import CORPUS
from tests.harness.readers import our_processes, reading_reader

GEOTOPO = CORPUS / "py-pdf__sample-files/009-pdflatex-geotopo/GeoTopo-komprimiert.pdf"


def starve_the_next_reader(before: set[int]) -> threading.Thread:
    """Stop the reader that starts after `before` once it is reading: a busy machine."""
    thread = threading.Thread(target=lambda: os.kill(reading_reader(before), signal.SIGSTOP))
    thread.start()
    return thread


def attempt(job: Job) -> Job:
    Job.objects.filter(id=job.id).update(next_attempt_at=None)  # due now, not after backoff
    before = our_processes()
    starver = starve_the_next_reader(before)
    processing.run(services.claim_job(job_id=job.id, worker="test"))
    starver.join()
    return Job.objects.get(id=job.id)


def test_a_second_extraction_timeout_in_a_row_fails_the_job_as_too_complex(alice, settings):
    settings.INGEST_EXTRACT_TIMEOUT_SECONDS = 2
    settings.INGEST_EXTRACT_POOL_SIZE = 0
    upload = SimpleUploadedFile("geotopo.pdf", GEOTOPO.read_bytes(), "application/pdf")
    job = create_upload(owner=alice, upload=upload).job

    first = attempt(job)
    assert (first.status, first.error_code) == ("queued", "extract_timeout")

    second = attempt(first)
    assert (second.status, second.error_code) == ("failed", "too_complex")
    assert second.error_detail.startswith("Reading the PDF timed out twice in a row.")
