"""Job state changes: claims and leases, retries with backoff, permanent failures, limits."""

from datetime import timedelta

import pytest
from django.utils import timezone
from dramatiq.common import current_millis

from jobs import services
from jobs.actors import process_fast_job
from jobs.models import AttemptOutcome, Job, JobAttempt, JobStatus
from jobs.worker import processing
from search.pipeline.errors import RateLimited
from tests.conftest import running_worker, wait_until_terminal
from tests.factories import make_document

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def job(alice) -> Job:
    return make_document(alice).current_job


def make_stale(job: Job, minutes: int = 10) -> None:
    Job.objects.filter(id=job.id).update(heartbeat_at=timezone.now() - timedelta(minutes=minutes))


def test_a_claim_opens_an_attempt_record(job):
    claimed = services.claim_job(job_id=job.id, worker="w1")

    assert claimed.status == JobStatus.PROCESSING
    assert claimed.attempts == 1
    [attempt] = JobAttempt.objects.filter(job=job)
    assert (attempt.number, attempt.worker, attempt.outcome) == (1, "w1", AttemptOutcome.RUNNING)


def test_a_job_held_under_a_live_lease_cannot_be_claimed(job):
    services.claim_job(job_id=job.id, worker="w1")

    assert services.claim_job(job_id=job.id, worker="w2") is None
    assert Job.objects.get(id=job.id).worker == "w1"


def test_an_expired_lease_is_taken_over_and_the_old_attempt_recorded_as_lost(job):
    first = services.claim_job(job_id=job.id, worker="w1")
    make_stale(job)

    second = services.claim_job(job_id=job.id, worker="w2")

    assert second.attempts == 2
    assert second.worker == "w2"
    outcomes = list(JobAttempt.objects.filter(job=job).values_list("number", "outcome"))
    assert outcomes == [(1, AttemptOutcome.LOST), (2, AttemptOutcome.RUNNING)]
    # The first worker's late writes change nothing now.
    assert services.record_progress(job=first, done=5, total=9) is False
    assert services.fail_job(job=first, code="corrupt", detail="late") == services.Outcome.LOST
    assert Job.objects.get(id=job.id).status == JobStatus.PROCESSING


def test_a_job_whose_every_attempt_died_ends_crashed(job, settings):
    settings.INGEST_MAX_ATTEMPTS = 2
    for worker in ("w1", "w2"):
        assert services.claim_job(job_id=job.id, worker=worker) is not None
        make_stale(job)

    assert services.claim_job(job_id=job.id, worker="w3") is None

    job.refresh_from_db()
    assert job.status == JobStatus.FAILED
    assert job.error_code == "crashed"
    assert "2 attempts" in job.error_detail
    assert set(JobAttempt.objects.filter(job=job).values_list("outcome", flat=True)) == {
        AttemptOutcome.LOST
    }


def test_a_transient_error_requeues_with_backoff_and_a_delayed_message(job, broker, settings):
    settings.INGEST_RETRY_BASE_SECONDS = 4
    claimed = services.claim_job(job_id=job.id, worker="w1")
    before = timezone.now()

    assert (
        services.retry_or_fail(job=claimed, code="provider_unavailable", detail="HTTP 502")
        == "retry"
    )

    job.refresh_from_db()
    assert job.status == JobStatus.QUEUED
    assert job.error_code == "provider_unavailable"
    delay = (job.next_attempt_at - before).total_seconds()
    assert 2 <= delay <= 4.5, "attempt 1: between half and all of the 4 s base"
    # A delayed message waits, for the lane's resume queue: the job has had its turn.
    assert broker.client.hlen(f"dramatiq:{job.lane}-resume.DQ.msgs") == 1
    assert JobAttempt.objects.get(job=job).outcome == AttemptOutcome.RETRY


def test_a_providers_retry_after_is_honoured(job, broker, settings):
    settings.INGEST_RETRY_BASE_SECONDS = 1
    claimed = services.claim_job(job_id=job.id, worker="w1")

    services.retry_or_fail(job=claimed, code="rate_limited", detail="429", retry_after=30)

    job.refresh_from_db()
    assert (job.next_attempt_at - timezone.now()).total_seconds() > 28


def test_backoff_grows_exponentially_up_to_the_cap(settings):
    settings.INGEST_RETRY_BASE_SECONDS = 2
    settings.INGEST_RETRY_MAX_SECONDS = 20

    delays = [services.backoff_seconds(attempt) for attempt in range(1, 7)]

    for attempt, delay in enumerate(delays, start=1):
        ceiling = min(20, 2 * 2 ** (attempt - 1))
        assert ceiling / 2 <= delay <= ceiling


def test_a_job_not_due_yet_is_not_claimed(job, broker):
    claimed = services.claim_job(job_id=job.id, worker="w1")
    services.retry_or_fail(job=claimed, code="rate_limited", detail="429", retry_after=60)

    assert services.claim_job(job_id=job.id, worker="early-duplicate") is None


def test_the_last_attempt_of_a_transient_error_fails_the_job(job, broker, settings):
    settings.INGEST_MAX_ATTEMPTS = 1
    claimed = services.claim_job(job_id=job.id, worker="w1")

    assert (
        services.retry_or_fail(job=claimed, code="provider_unavailable", detail="HTTP 502")
        == "failed"
    )

    job.refresh_from_db()
    assert job.status == JobStatus.FAILED
    assert job.error_code == "retries_exhausted"
    assert "HTTP 502" in job.error_detail


def test_a_job_that_keeps_timing_out_fails_as_timeout(job, broker, settings):
    settings.INGEST_MAX_ATTEMPTS = 1
    claimed = services.claim_job(job_id=job.id, worker="w1")

    services.retry_or_fail(job=claimed, code="timeout", detail="took too long")

    job.refresh_from_db()
    assert (job.status, job.error_code) == (JobStatus.FAILED, "timeout")


def test_unknown_exceptions_are_retried_with_their_class_and_message_kept(job, broker, monkeypatch):
    claimed = services.claim_job(job_id=job.id, worker="w1")

    def explode(job, lease):
        raise KeyError("surprise")

    monkeypatch.setattr(processing, "_extract", explode)
    processing.run(claimed)

    job.refresh_from_db()
    assert job.status == JobStatus.QUEUED
    assert job.error_code == "unexpected_error"
    assert "KeyError" in job.error_detail
    attempt = JobAttempt.objects.get(job=job)
    assert "KeyError: 'surprise'" in attempt.traceback


def test_a_rate_limited_step_is_retried_no_sooner_than_asked(job, broker, monkeypatch):
    claimed = services.claim_job(job_id=job.id, worker="w1")

    def limited(job, lease):
        raise RateLimited("the provider said 429", retry_after=45)

    monkeypatch.setattr(processing, "_extract", limited)
    processing.run(claimed)

    job.refresh_from_db()
    assert job.error_code == "rate_limited"
    assert (job.next_attempt_at - timezone.now()).total_seconds() > 43


def test_a_message_older_than_the_age_limit_fails_its_job_as_expired(job, settings, broker):
    settings.INGEST_MAX_MESSAGE_AGE_SECONDS = 60
    sent_long_ago = current_millis() - 61_000
    broker.enqueue(process_fast_job.message(str(job.id)).copy(message_timestamp=sent_long_ago))

    with running_worker(broker):
        wait_until_terminal([job.id])

    job.refresh_from_db()
    assert (job.status, job.error_code) == (JobStatus.FAILED, "expired")
    assert job.attempts == 0


def test_the_job_api_shows_each_attempt(alice_client, job, broker):
    claimed = services.claim_job(job_id=job.id, worker="w1")
    services.retry_or_fail(
        job=claimed, code="provider_unavailable", detail="HTTP 502", tb="Traceback: x"
    )

    body = alice_client.get(f"/api/jobs/{job.id}/").json()

    [attempt] = body["attempt_history"]
    assert attempt["number"] == 1
    assert attempt["outcome"] == "retry"
    assert attempt["error_code"] == "provider_unavailable"
    assert attempt["error_message"] == "The embedding service was not available."
    assert "worker" not in attempt, "worker names are for staff, in the admin"
    assert "traceback" not in attempt
    assert attempt["duration_seconds"] >= 0
