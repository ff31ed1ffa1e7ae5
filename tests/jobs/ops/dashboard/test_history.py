"""The ops history (jobs.ops.dashboard.history) on the real Postgres and Redis: each minute's
row says what the job rows say, recording again changes nothing, a minute is recounted until
it settles and then left alone, old rows are pruned, and nothing raises into the sweeper."""

import statistics
from collections import Counter, defaultdict
from datetime import timedelta

import pytest
import redis
from django.db import connection
from django.utils import timezone

from jobs.models import AttemptOutcome, Job, JobAttempt, JobStatus
from jobs.ops.dashboard import history
from jobs.ops.models import Minute
from search.embedding import stats
from tests.conftest import pdf_upload, running_worker, wait_until_terminal
from tests.factories import make_document, make_pdf

pytestmark = pytest.mark.django_db

# A fixed minute well inside the backfill window, on the real clock's side of the past.
T0 = timezone.now().replace(second=0, microsecond=0) - timedelta(minutes=30)


def ended_job(owner, at, *, status=JobStatus.SUCCEEDED, ready=10.0, pages=1, lane="fast", code=""):
    """A job that ended at `at`, `ready` seconds after it was created."""
    document = make_document(owner, page_count=pages)
    Job.objects.filter(id=document.current_job_id).update(
        status=status,
        lane=lane,
        error_code=code,
        finished_at=at,
        created_at=at - timedelta(seconds=ready),
    )
    return Job.objects.get(id=document.current_job_id)


def attempt(job, at, outcome=AttemptOutcome.RETRY) -> None:
    number = JobAttempt.objects.filter(job=job).count() + 1
    JobAttempt.objects.create(
        job=job,
        number=number,
        worker="h:1:t",
        started_at=at - timedelta(seconds=5),
        finished_at=at,
        outcome=outcome,
        error_code="rate_limited",
    )


def rows(**filters) -> dict:
    """Every row's figures by (minute, lane), without the id."""
    return {
        (row.minute, row.lane): {k: v for k, v in vars(row).items() if k not in ("_state", "id")}
        for row in Minute.objects.filter(**filters)
    }


def what_the_jobs_say(start, end) -> dict:
    """Each (minute, lane)'s ended figures, computed here from the job rows one by one."""
    said = defaultdict(lambda: {"documents": 0, "pages": 0, "ready": [], "failures": Counter()})
    ended = Job.objects.filter(finished_at__gte=start, finished_at__lt=end)
    for job in ended.select_related("document"):
        figures = said[(history.floor_minute(job.finished_at), job.lane)]
        if job.status == JobStatus.SUCCEEDED:
            figures["documents"] += 1
            figures["pages"] += job.document.page_count or 0
            figures["ready"].append((job.finished_at - job.created_at).total_seconds())
        elif job.status == JobStatus.FAILED:
            figures["failures"][job.error_code] += 1
    return said


def quantile(values: list[float], q: int) -> float:
    """The q-th percentile, interpolated between the nearest two (as percentile_cont)."""
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def test_each_minute_says_what_the_job_rows_say(alice):
    for n, (ready, pages) in enumerate([(10, 2), (20, 3), (40, 5), (90, 1)]):
        ended_job(alice, T0 + timedelta(seconds=5 + n), ready=ready, pages=pages)
    ended_job(alice, T0 + timedelta(seconds=59.999), ready=30, pages=7, lane="batch")
    ended_job(alice, T0 + timedelta(seconds=60), ready=50, pages=4, lane="batch")
    ended_job(alice, T0 + timedelta(seconds=8), status=JobStatus.FAILED, code="corrupt")
    ended_job(alice, T0 + timedelta(seconds=9), status=JobStatus.FAILED, code="corrupt")
    ended_job(alice, T0 + timedelta(seconds=9), status=JobStatus.FAILED, code="no_text")
    ended_job(alice, T0 + timedelta(seconds=9), status=JobStatus.CANCELLED, code="superseded")
    retried = ended_job(alice, T0 + timedelta(minutes=2))
    attempt(retried, T0 + timedelta(seconds=20))
    attempt(retried, T0 + timedelta(seconds=40))
    attempt(retried, T0 + timedelta(seconds=50), AttemptOutcome.LOST)

    history.record(now=T0 + timedelta(minutes=5))

    recorded = rows(minute__lt=T0 + timedelta(minutes=5))
    for (minute, lane), said in what_the_jobs_say(T0, T0 + timedelta(minutes=5)).items():
        row = recorded[(minute, lane)]
        assert row["documents_ready"] == len(said["ready"])
        assert row["pages_ready"] == said["pages"]
        assert row["failures"] == dict(said["failures"])
        if said["ready"]:
            assert row["ready_p50_seconds"] == pytest.approx(statistics.median(said["ready"]))
            assert row["ready_p95_seconds"] == pytest.approx(quantile(said["ready"], 95))
    fast = recorded[(T0, "fast")]
    assert (fast["documents_ready"], fast["pages_ready"]) == (4, 11)
    assert fast["ready_p50_seconds"] == pytest.approx(30.0)
    assert fast["ready_p95_seconds"] == pytest.approx(82.5)
    assert fast["failures"] == {"corrupt": 2, "no_text": 1}
    assert fast["retries"] == 2  # the lost attempt is not a retry
    assert recorded[(T0, "batch")]["documents_ready"] == 1  # 59.999 s is still T0's
    assert recorded[(T0 + timedelta(minutes=1), "batch")]["pages_ready"] == 4
    assert recorded[(T0 + timedelta(minutes=3), "fast")]["documents_ready"] == 0


def test_recording_again_gives_the_same_rows(alice):
    ended_job(alice, T0 + timedelta(seconds=10), ready=12, pages=3)
    ended_job(alice, T0 + timedelta(seconds=20), status=JobStatus.FAILED, code="corrupt")
    now = T0 + timedelta(minutes=1, seconds=30)

    history.record(now=now)
    first = rows()
    history.record(now=now)
    history.record(now=now + timedelta(seconds=10))

    assert rows() == first
    assert first[(T0, "fast")]["documents_ready"] == 1


def test_a_minute_is_counted_again_until_it_settles_then_left_alone(alice):
    history.record(now=T0 + timedelta(seconds=50))
    # A job that ended in T0 but committed after that sweep (finished_at is the worker's
    # clock before its commit): the next sweep counts it.
    late = ended_job(alice, T0 + timedelta(seconds=40), status=JobStatus.FAILED, code="crashed")
    history.record(now=T0 + timedelta(seconds=80))
    assert rows()[(T0, "fast")]["failures"] == {"crashed": 1}

    # Past SETTLE the minute is final: an operator's retry of the job (its finished_at
    # cleared) does not rewrite what happened then.
    history.record(now=T0 + timedelta(minutes=4))
    Job.objects.filter(id=late.id).update(status=JobStatus.QUEUED, finished_at=None)
    history.record(now=T0 + timedelta(minutes=4, seconds=30))
    history.record(now=T0 + timedelta(minutes=5))

    assert rows()[(T0, "fast")]["failures"] == {"crashed": 1}


def test_a_sweep_after_an_outage_counts_the_minutes_it_missed(alice):
    history.record(now=T0)
    ended_job(alice, T0 + timedelta(minutes=10, seconds=5), pages=6)
    ended_job(alice, T0 - timedelta(hours=25), pages=9)  # past the backfill: never counted

    history.record(now=T0 + timedelta(minutes=20))

    recorded = rows()
    assert recorded[(T0 + timedelta(minutes=10), "fast")]["pages_ready"] == 6
    assert sum(row["pages_ready"] for row in recorded.values()) == 6
    # Minutes no sweep saw have no queue sample: zeros.
    assert recorded[(T0 + timedelta(minutes=10), "fast")]["queued"] == 0


def test_the_current_minute_holds_the_queue_as_the_sweep_saw_it(alice):
    for _ in range(3):
        make_document(alice)  # a queued job each, due now
    Job.objects.update(queued_at=timezone.now() - timedelta(seconds=90))
    now = timezone.now()

    history.record(now=now)

    row = Minute.objects.get(minute=history.floor_minute(now), lane="fast")
    assert (row.queued, row.processing) == (3, 0)
    assert 90 <= row.oldest_age_seconds < 120
    assert row.workers_wanted >= 1
    assert Minute.objects.get(minute=history.floor_minute(now), lane="batch").queued == 0


def test_the_embedding_providers_429s_and_waits_go_on_the_all_lanes_row(settings):
    # Other tests' minutes (a 429 storm) stay in Redis for a day: start from none.
    client = redis.Redis.from_url(settings.REDIS_URL)
    for key in client.scan_iter("ingest:ops:embed:*"):
        client.delete(key)
    stats.note_request("rate_limited")
    stats.note_request("rate_limited")
    stats.note_request("ok")
    stats.note_wait(1.5)

    history.record()

    recorded = Minute.objects.filter(lane=history.ALL_LANES)
    assert sum(row.embedding_rate_limited for row in recorded) == 2
    assert sum(row.embedding_wait_seconds for row in recorded) == pytest.approx(1.5)
    assert not Minute.objects.exclude(lane=history.ALL_LANES).filter(embedding_rate_limited__gt=0)


def test_rows_older_than_the_retention_are_pruned(settings):
    settings.INGEST_OPS_RETENTION_DAYS = 2
    now = timezone.now().replace(second=0, microsecond=0)
    for age in (timedelta(days=3), timedelta(days=2, minutes=1), timedelta(days=1)):
        Minute.objects.create(minute=now - age, lane="fast", queued=1)

    history.record(now=now)

    kept = set(Minute.objects.filter(queued=1).values_list("minute", flat=True))
    assert kept == {now - timedelta(days=1)}


def test_a_failure_is_logged_and_never_raised_into_the_sweeper(caplog):
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE ops_minute RENAME TO ops_minute_away")
    try:
        history.record()
    finally:
        with connection.cursor() as cursor:
            cursor.execute("ALTER TABLE ops_minute_away RENAME TO ops_minute")

    assert "could not record the ops history" in caplog.text


@pytest.mark.django_db(transaction=True)
def test_after_real_jobs_the_rows_add_up_to_the_jobs(alice_client, broker):
    files = [pdf_upload(make_pdf(pages=n, seed=n), f"doc{n}.pdf") for n in (1, 2, 3)]
    damaged = make_pdf(pages=1, seed=9)
    files.append(pdf_upload(damaged[: len(damaged) // 2], "damaged.pdf"))
    answer = alice_client.post("/api/documents/", {"file": files}).json()
    with running_worker(broker):
        jobs = wait_until_terminal([result["job_id"] for result in answer["results"]])

    history.record()

    recorded = Minute.objects.all()
    succeeded = [job for job in jobs if job.status == JobStatus.SUCCEEDED]
    assert sum(row.documents_ready for row in recorded) == len(succeeded) == 3
    assert sum(row.pages_ready for row in recorded) == 6
    failures = Counter()
    for row in recorded:
        failures.update(row.failures)
    assert failures == {"corrupt": 1}
