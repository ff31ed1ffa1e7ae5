"""An extraction timeout is retried once; a second one in a row fails the job as too_complex."""

import os
import signal
import threading
import time

import psutil
from django.core.files.uploadedfile import SimpleUploadedFile

from documents.services.uploads import create_upload
from jobs import services
from jobs.models import Job
from jobs.worker import processing
from search.pipeline.sandbox.process import CHILD_MODULE
from tests.factories import CORPUS

GEOTOPO = CORPUS / "py-pdf__sample-files/009-pdflatex-geotopo/GeoTopo-komprimiert.pdf"


def starve_the_next_reader(before: set[int]) -> threading.Thread:
    """Stop the reader that starts after `before` as soon as it is reading: a busy machine."""

    def stop() -> None:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            for child in psutil.Process().children(recursive=True):
                try:
                    if child.pid not in before and CHILD_MODULE in child.cmdline():
                        time.sleep(0.5)
                        os.kill(child.pid, signal.SIGSTOP)
                        return
                except psutil.Error:
                    continue
            time.sleep(0.02)

    thread = threading.Thread(target=stop)
    thread.start()
    return thread


def attempt(job: Job) -> Job:
    Job.objects.filter(id=job.id).update(next_attempt_at=None)  # due now, not after backoff
    before = {child.pid for child in psutil.Process().children(recursive=True)}
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
