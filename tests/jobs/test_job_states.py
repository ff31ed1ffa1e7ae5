"""In flight, running and stale, defined once on the Job queryset, and every reader that
counts them agreeing: the claim, fairness, the sweeper and the busy gauge."""

from datetime import timedelta

import pytest
from django.utils import timezone

from jobs import fairness, services
from jobs.models import Job, JobStatus
from jobs.sweeper import requeue_stuck
from tests.factories import make_document
from tests.jobs.ops.metrics_reader import scrape, value

pytestmark = pytest.mark.django_db(transaction=True)


def processing(owner, *, beat_seconds_ago: float) -> Job:
    job = services.claim_job(job_id=make_document(owner).current_job.id, worker="w:1:t")
    assert job is not None
    beat = timezone.now() - timedelta(seconds=beat_seconds_ago)
    Job.objects.filter(id=job.id).update(heartbeat_at=beat)
    return job


def test_a_processing_job_whose_lease_expired_is_stale_and_not_running(alice, settings):
    settings.INGEST_LEASE_SECONDS = 60
    dead = processing(alice, beat_seconds_ago=61)
    live = processing(alice, beat_seconds_ago=1)

    assert set(Job.objects.stale()) == {dead}
    assert set(Job.objects.running()) == {live}


def test_queued_and_processing_jobs_are_in_flight_and_ended_ones_are_not(alice):
    queued = make_document(alice).current_job
    running = processing(alice, beat_seconds_ago=0)
    failed = processing(alice, beat_seconds_ago=0)
    services.fail_job(job=failed, code="corrupt", detail="The PDF is damaged.")

    assert set(Job.objects.in_flight()) == {queued, running}


def test_the_claim_fairness_the_sweeper_and_the_busy_gauge_agree_on_a_stale_job(
    alice, settings, broker
):
    settings.INGEST_LEASE_SECONDS = 60
    settings.INGEST_MAX_RUNNING_PER_USER = 1
    dead = processing(alice, beat_seconds_ago=61)

    assert fairness.running(alice.pk, dead.lane) == 0  # it holds no share
    assert value(scrape(), "ingest_workers_busy") == 0  # nor a thread
    assert requeue_stuck(dry_run=True).reclaimed == [dead.id]  # the sweeper would take it
    taken_over = services.claim_job(job_id=dead.id, worker="w:2:t")  # as may a claim
    assert taken_over is not None
    assert taken_over.worker == "w:2:t"
    assert taken_over.attempts == 2
    assert fairness.running(alice.pk, dead.lane) == 1
    assert Job.objects.get(id=dead.id).status == JobStatus.PROCESSING


def test_the_finishing_update_records_which_embedding_made_the_vectors(alice):
    job = processing(alice, beat_seconds_ago=0)

    outcome = services.complete_job(
        job=job, total=3, ready_version=None, embed_model="openai:text-embedding-3-small:384"
    )

    assert outcome == services.Outcome.SUCCEEDED
    done = Job.objects.get(id=job.id)
    assert (done.status, done.embed_model) == (
        JobStatus.SUCCEEDED,
        "openai:text-embedding-3-small:384",
    )


def test_a_completion_by_an_attempt_that_lost_the_job_records_no_embedding(alice, settings):
    settings.INGEST_LEASE_SECONDS = 60
    first = processing(alice, beat_seconds_ago=61)
    second = services.claim_job(job_id=first.id, worker="w:2:t")
    assert second is not None

    outcome = services.complete_job(job=first, total=3, ready_version=None, embed_model="x:y:1")

    assert outcome == services.Outcome.LOST
    assert Job.objects.get(id=first.id).embed_model == ""


def test_a_superseded_result_records_no_embedding(alice):
    job = processing(alice, beat_seconds_ago=0)

    outcome = services.complete_job(
        job=job, total=3, ready_version=job.version + 1, embed_model="x:y:1"
    )

    assert outcome == services.Outcome.SUPERSEDED
    assert Job.objects.get(id=job.id).embed_model == ""
