"""Fair shares: a claim leaves an owner at most its share of a lane; a skipped job keeps
its place and is sent again the moment one of its owner's jobs ends."""

import queue
import threading

import pytest
from django.contrib.auth.models import User

from jobs import fairness, services
from jobs.models import Job, JobStatus
from tests.conftest import at_once
from tests.factories import make_document

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def share_of_two(settings, broker):
    settings.INGEST_MAX_RUNNING_PER_USER = 2
    for key in broker.client.scan_iter("ingest:fair:*"):  # ids left by earlier tests
        broker.client.delete(key)


def queued_jobs(owner: User, count: int) -> list[Job]:
    return [make_document(owner).current_job for _ in range(count)]


def claim(job: Job) -> Job | None:
    return services.claim_job(job_id=job.id, worker=threading.current_thread().name)


def waiting_ids(owner: User, lane: str = "fast") -> list[str]:
    client = fairness._redis()
    return [member.decode() for member in client.zrange(fairness._key(owner.id, lane), 0, -1)]


def test_an_owner_at_its_share_is_skipped_and_the_job_keeps_its_place(alice, bob):
    first, second, third = queued_jobs(alice, 3)
    [other] = queued_jobs(bob, 1)

    assert claim(first) is not None
    assert claim(second) is not None
    assert claim(third) is None

    third_after = Job.objects.get(id=third.id)
    assert third_after.status == JobStatus.QUEUED
    assert third_after.queued_at == third.queued_at
    assert third_after.attempts == 0
    assert waiting_ids(alice) == [str(third.id)]
    assert claim(other) is not None, "another account's job is not held back"


def test_when_a_job_ends_its_owners_oldest_waiting_job_is_sent_to_the_resume_queue(alice, broker):
    running = [claim(job) for job in queued_jobs(alice, 2)]
    waiting = queued_jobs(alice, 2)
    for job in waiting:
        assert claim(job) is None
    assert waiting_ids(alice) == [str(job.id) for job in waiting]

    services.fail_job(job=running[0], code="corrupt", detail="broken")

    assert waiting_ids(alice) == [str(waiting[1].id)], "one slot freed, the oldest sent"
    sent = b"".join(broker.client.hvals("dramatiq:fast-resume.msgs")).decode()
    assert str(waiting[0].id) in sent
    assert str(waiting[1].id) not in sent
    assert claim(waiting[0]) is not None


def test_a_retry_frees_the_slot_too_and_a_cancelled_waiting_job_is_passed_over(alice):
    running = [claim(job) for job in queued_jobs(alice, 2)]
    cancelled, next_one = queued_jobs(alice, 2)
    assert claim(cancelled) is None
    assert claim(next_one) is None
    services.cancel_jobs(job_ids=[cancelled.id])

    assert services.retry_or_fail(job=running[0], code="rate_limited", detail="429")

    assert waiting_ids(alice) == []
    assert claim(next_one) is not None


def test_two_racing_claims_of_one_owner_never_pass_its_share():
    owner = User.objects.create_user("racer")
    jobs: queue.Queue[Job] = queue.Queue()
    for job in queued_jobs(owner, 8):
        jobs.put(job)

    results = at_once(lambda: claim(jobs.get()), count=8)

    assert sum(result is not None for result in results) == 2
    assert Job.objects.filter(owner=owner, status=JobStatus.PROCESSING).count() == 2
    assert len(waiting_ids(owner)) == 6


def test_a_stale_attempt_does_not_hold_its_owners_share(alice):
    running = [claim(job) for job in queued_jobs(alice, 2)]
    Job.objects.filter(id=running[0].id).update(heartbeat_at="2000-01-01T00:00:00Z")
    [late] = queued_jobs(alice, 1)

    assert claim(late) is not None


def test_the_share_is_per_lane(alice):
    for job in queued_jobs(alice, 2):
        claim(job)
    batch = make_document(alice).current_job
    Job.objects.filter(id=batch.id).update(lane="batch")

    assert claim(batch) is not None


@pytest.mark.parametrize(
    ("processes", "threads", "share"), [(1, 4, 2), (2, 4, 4), (1, 1, 1), (1, 3, 1)]
)
def test_the_default_share_is_half_the_lanes_worker_threads(settings, processes, threads, share):
    settings.INGEST_MAX_RUNNING_PER_USER = 0
    settings.WORKER_BATCH_PROCESSES, settings.WORKER_BATCH_THREADS = processes, threads

    assert fairness.limit("batch") == share
