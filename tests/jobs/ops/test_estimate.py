"""When a queued job may start (jobs.ops.estimate): from the jobs ahead of it in its lane
and the live worker threads that serve the lane, and nothing where there is no basis."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from jobs.models import Job, JobAttempt, JobStatus, Lane, WorkerProcess
from jobs.ops import estimate
from tests.factories import make_document

pytestmark = pytest.mark.django_db


@pytest.fixture
def charlie(db) -> User:
    return User.objects.create_user("charlie", password="charlie-password")


def live_worker(name: str, *, threads: int, queues: list[str]) -> WorkerProcess:
    now = timezone.now()
    host = name.split(":")[0]
    return WorkerProcess.objects.create(
        name=name, host=host, pid=int(name.split(":")[1]), threads=threads, queues=queues,
        started_at=now, beat_at=now,
    )  # fmt: skip


def running(owner, worker: str, *, for_seconds: float, lane: str = Lane.FAST) -> Job:
    """A job of `owner` that a thread of `worker` has held for `for_seconds`."""
    job = make_document(owner).current_job
    now = timezone.now()
    Job.objects.filter(id=job.id).update(
        status=JobStatus.PROCESSING,
        lane=lane,
        worker=f"{worker}:Thread-{job.id.hex[:4]}",
        started_at=now - timedelta(seconds=for_seconds),
        heartbeat_at=now,
        attempts=1,
    )
    return Job.objects.get(id=job.id)


def measured(owner, *, seconds: float, lane: str = Lane.FAST, count: int = 3) -> None:
    """Attempts of the lane that ended lately, each `seconds` long."""
    now = timezone.now()
    for _ in range(count):
        job = make_document(owner).current_job
        Job.objects.filter(id=job.id).update(lane=lane, status=JobStatus.SUCCEEDED)
        JobAttempt.objects.create(
            job=job, number=1, worker="w", outcome="succeeded",
            started_at=now - timedelta(seconds=seconds + 5), finished_at=now - timedelta(seconds=5),
        )  # fmt: skip


def queued(owner, *, lane: str = Lane.FAST) -> Job:
    job = make_document(owner).current_job
    Job.objects.filter(id=job.id).update(lane=lane)
    return Job.objects.get(id=job.id)


def starts_in(job: Job) -> float | None:
    lane = estimate.lane_threads(job.lane)
    return estimate.seconds_to_start(job, ahead=estimate.jobs_ahead(job), lane=lane)


def test_with_no_live_worker_nothing_is_said(alice, bob):
    measured(bob, seconds=10)
    WorkerProcess.objects.create(
        name="w1:9",
        host="w1",
        pid=9,
        threads=4,
        queues=["fast"],
        started_at=timezone.now(),
        beat_at=timezone.now() - timedelta(hours=1),
    )  # fmt: skip  (its beat stopped an hour ago)

    assert starts_in(queued(alice)) is None


def test_a_worker_of_another_lane_is_no_basis_either(alice, bob):
    measured(bob, seconds=10)
    live_worker("w1:1", threads=4, queues=["batch", "batch-resume"])

    assert starts_in(queued(alice)) is None


def test_a_free_thread_takes_it_in_a_moment_without_anything_measured(alice, bob):
    live_worker("w1:1", threads=2, queues=["fast", "fast-resume"])
    running(bob, "w1:1", for_seconds=3)

    assert starts_in(queued(alice)) == 0.0


def test_with_every_thread_busy_and_nothing_measured_nothing_is_said(alice, bob):
    live_worker("w1:1", threads=2, queues=["fast", "fast-resume"])
    running(bob, "w1:1", for_seconds=3)
    running(bob, "w1:1", for_seconds=4)

    assert starts_in(queued(alice)) is None


def test_busy_threads_free_up_as_their_jobs_reach_the_measured_duration(alice, bob, charlie):
    measured(charlie, seconds=20)
    live_worker("w1:1", threads=2, queues=["fast", "fast-resume"])
    running(bob, "w1:1", for_seconds=15)  # about 5 s left
    running(charlie, "w1:1", for_seconds=5)  # about 15 s left
    jobs = [queued(alice) for _ in range(4)]

    seconds = [starts_in(job) for job in jobs]

    # Slots at 5 and 15 s, then each 20 s later: 5, 15, 25, 35 (give or take the test's time).
    assert [round(s) for s in seconds] == [5, 15, 25, 35]


def test_the_threads_of_every_live_worker_of_the_lane_count(alice, bob, charlie):
    measured(charlie, seconds=20)
    live_worker("w1:1", threads=1, queues=["fast", "fast-resume"])
    live_worker("w2:1", threads=1, queues=["fast", "fast-resume", "batch", "batch-resume"])
    running(bob, "w1:1", for_seconds=15)
    running(charlie, "w2:1", for_seconds=10, lane=Lane.BATCH)  # holds w2's one thread

    first, second = queued(alice), queued(alice)

    assert round(starts_in(first)) == 5
    assert round(starts_in(second)) == 10


def test_only_jobs_of_its_lane_queued_before_it_or_resumed_are_ahead(alice, bob):
    earlier = queued(bob)
    queued(bob, lane=Lane.BATCH)  # another lane
    job = queued(alice)
    later = queued(bob)
    resumed = queued(bob)
    Job.objects.filter(id=resumed.id).update(attempts=1)  # workers serve resumed jobs first

    assert estimate.jobs_ahead(earlier) == 1  # the resumed one
    assert estimate.jobs_ahead(job) == 2
    assert estimate.jobs_ahead(later) == 3


def test_an_owner_at_their_fair_share_waits_for_their_own_jobs(alice, bob, settings):
    settings.INGEST_MAX_RUNNING_PER_USER = 1
    live_worker("w1:1", threads=4, queues=["fast", "fast-resume"])
    running(alice, "w1:1", for_seconds=2)

    assert starts_in(queued(alice)) is None
    assert starts_in(queued(bob)) == 0.0


def test_a_retry_waits_out_its_backoff_first(alice):
    live_worker("w1:1", threads=2, queues=["fast", "fast-resume"])
    job = queued(alice)
    Job.objects.filter(id=job.id).update(next_attempt_at=timezone.now() + timedelta(seconds=90))

    assert round(starts_in(Job.objects.get(id=job.id))) == 90


def test_the_row_says_when_there_is_a_basis_and_nothing_when_not(alice, bob):
    waiting = make_document(alice, filename="waiting.pdf")
    client = Client()
    client.force_login(alice)

    without = client.get(f"/documents/{waiting.id}/row/").content.decode()
    live_worker("w1:1", threads=2, queues=["fast", "fast-resume"])
    with_free = client.get(f"/documents/{waiting.id}/row/").content.decode()
    measured(bob, seconds=120)
    running(bob, "w1:1", for_seconds=10)
    running(bob, "w1:1", for_seconds=20)
    busy = client.get(f"/documents/{waiting.id}/row/").content.decode()

    assert "next in line" in without
    assert "starts in" not in without
    assert "next in line · starts in a moment" in with_free
    assert "next in line · starts in about 2 minutes" in busy
