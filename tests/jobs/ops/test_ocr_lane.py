"""The OCR lane in what operators see: /ops/ and /metrics show its queue, its age, its
workers wanted and the pages it read by OCR, each from the rows the worker writes."""

import math
import re
from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.auth.models import Permission, User
from django.utils import timezone

from jobs.models import AttemptOutcome, Job, JobAttempt, JobStatus, Lane
from jobs.ops import scaling
from jobs.ops.dashboard import history
from jobs.ops.models import Minute
from search.models import Chunk
from tests.factories import make_document
from tests.jobs.ops.dashboard.test_dashboard import figure, signed_in, summary
from tests.jobs.ops.metrics_reader import scrape, value
from tests.search.chunks import add_chunks

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(db) -> User:
    """Staff allowed to see jobs in the admin, as the dashboard requires."""
    user = User.objects.create_user("olivia", password="olivia-password", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="view_job"))
    return user


def queued_ocr(owner, *, waited: float) -> Job:
    """A job handed on to the OCR lane `waited` seconds ago, due since then."""
    job = make_document(owner).current_job
    Job.objects.filter(id=job.id).update(
        lane=Lane.OCR, queued_at=timezone.now() - timedelta(seconds=waited)
    )
    return Job.objects.get(id=job.id)


def attempts(job: Job, *spans: tuple[str, float]) -> None:
    """Ended attempts of `job`, one per (outcome, seconds), in order, ending a moment ago."""
    end = timezone.now() - timedelta(seconds=5)
    for number, (outcome, seconds) in enumerate(spans, start=1):
        JobAttempt.objects.create(
            job=job,
            number=number,
            worker="w:1:t",
            outcome=outcome,
            started_at=end - timedelta(seconds=seconds),
            finished_at=end,
        )


def scan_read(owner, *, fast_seconds: float, ocr_seconds: float) -> Job:
    """A scan that spent `fast_seconds` in the fast lane finding its pages, then
    `ocr_seconds` reading them in the OCR lane, and succeeded."""
    job = make_document(owner).current_job
    Job.objects.filter(id=job.id).update(lane=Lane.OCR, status=JobStatus.SUCCEEDED)
    attempts(job, (AttemptOutcome.HANDED_ON, fast_seconds), (AttemptOutcome.SUCCEEDED, ocr_seconds))
    return job


def text_read(owner, *, seconds: float) -> Job:
    job = make_document(owner).current_job
    Job.objects.filter(id=job.id).update(status=JobStatus.SUCCEEDED)
    attempts(job, (AttemptOutcome.SUCCEEDED, seconds))
    return job


def test_the_ocr_lanes_queue_and_age_show_on_metrics_and_ops(staff, alice):
    queued_ocr(alice, waited=40)
    queued_ocr(alice, waited=10)
    make_document(alice)  # a fast-lane file, queued now

    samples = scrape()
    html = signed_in(staff).get("/ops/").content.decode()

    assert value(samples, "ingest_jobs", status="queued", lane="ocr") == 2
    assert value(samples, "ingest_jobs", status="queued", lane="fast") == 1
    assert 40 <= value(samples, "ingest_queue_oldest_age_seconds", lane="ocr") < 100
    assert value(samples, "ingest_queue_oldest_age_seconds", lane="fast") < 40
    assert value(samples, "ingest_workers_wanted", lane="ocr") >= 1
    assert '<th scope="col">ocr</th>' in html
    assert figure(html, "queued-ocr") == "2"
    assert figure(html, "queued-fast") == "1"
    assert summary(html, "queued") == "now: fast 1 · batch 0 · ocr 2"


def test_workers_wanted_for_ocr_comes_from_the_ocr_lanes_own_attempts(alice):
    """A scan's short attempt in the fast lane (finding its pages) is not the OCR lane's:
    counted there, it would halve the OCR lane's time per job and its workers wanted."""
    for _ in range(3):
        scan_read(alice, fast_seconds=2, ocr_seconds=120)
        text_read(alice, seconds=4)
    for _ in range(20):
        queued_ocr(alice, waited=5)

    lanes = scaling.lanes_now()
    samples = scrape()

    ocr = lanes[Lane.OCR]
    assert ocr.measured
    assert ocr.seconds_per_job == pytest.approx(120, abs=0.5)
    assert lanes[Lane.FAST].seconds_per_job == pytest.approx(4, abs=0.5)
    wanted = math.ceil(20 * 120 / settings.INGEST_TARGET_QUEUE_SECONDS)
    assert wanted > 1, "the queue is long enough to want more than the floor"
    assert ocr.workers_wanted == wanted
    assert value(samples, "ingest_workers_wanted", lane="ocr") == wanted
    assert value(samples, "ingest_job_seconds_per_attempt", lane="ocr") == pytest.approx(
        120, abs=0.5
    )
    assert value(samples, "ingest_workers_wanted", lane="fast") == settings.INGEST_MIN_WORKERS


def ocr_chunks(job: Job, pages: list[int]) -> None:
    """Chunks of the job's version, one per entry of `pages` (a page may have several),
    read by OCR."""
    created = add_chunks(job.document, job.version, [f"scanned text {n}" for n in pages])
    for chunk, page in zip(created, pages, strict=True):
        Chunk.objects.filter(id=chunk.id).update(page=page, source="ocr", confidence=0.9)


def test_pages_read_by_ocr_are_counted_per_minute_and_shown_per_second(staff, alice):
    minute = history.floor_minute(timezone.now()) - timedelta(minutes=20)
    scans = [scan_read(alice, fast_seconds=1, ocr_seconds=30) for _ in range(2)]
    ocr_chunks(scans[0], [1, 2, 2, 3])  # three pages, one in two chunks
    ocr_chunks(scans[1], [1])
    text = text_read(alice, seconds=2)
    add_chunks(text.document, text.version, ["born digital text"])
    ended = minute + timedelta(seconds=30)
    Job.objects.update(finished_at=ended, created_at=ended - timedelta(seconds=40))

    history.record()
    row = Minute.objects.get(minute=minute, lane=Lane.OCR)
    html = signed_in(staff).get("/ops/").content.decode()

    assert row.ocr_pages == 4
    assert row.documents_ready == 2
    assert Minute.objects.get(minute=minute, lane=Lane.FAST).ocr_pages == 0
    assert summary(html, "ocr-pages") == "4 read by OCR in the last hour, 0.0011 a second"
    chart = re.search(r'id="chart-ocr-pages".*?</figure>', html, re.S).group(0)
    assert "pages per second" in chart
    # The minute's bar: 4 pages over its 60 s.
    assert "0.07" in chart
