"""The conditional claim: one winner however many workers try at once."""

import threading

import pytest

from jobs.models import Job, JobStatus
from jobs.services import claim_job
from tests.conftest import at_once
from tests.factories import make_document

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def queued_job(alice) -> Job:
    return make_document(alice).current_job


def claim_concurrently(job: Job, workers: int) -> list[Job | None]:
    """`workers` threads claim `job` at the same moment, each under its own name."""
    return at_once(
        lambda: claim_job(job_id=job.id, worker=threading.current_thread().name), count=workers
    )


def test_two_concurrent_claims_of_one_job_give_exactly_one_winner(queued_job):
    results = claim_concurrently(queued_job, workers=2)

    winners = [job for job in results if job is not None]
    assert len(winners) == 1
    queued_job.refresh_from_db()
    assert queued_job.status == JobStatus.PROCESSING
    assert queued_job.attempts == 1
    assert queued_job.worker == winners[0].worker


def test_eight_racing_workers_still_give_one_winner(queued_job):
    results = claim_concurrently(queued_job, workers=8)

    assert sum(job is not None for job in results) == 1
    queued_job.refresh_from_db()
    assert queued_job.attempts == 1


def test_a_finished_job_cannot_be_claimed_again(queued_job):
    Job.objects.filter(id=queued_job.id).update(status=JobStatus.SUCCEEDED)

    assert claim_job(job_id=queued_job.id, worker="late") is None
    queued_job.refresh_from_db()
    assert queued_job.status == JobStatus.SUCCEEDED
    assert queued_job.attempts == 0
