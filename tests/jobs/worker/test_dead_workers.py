"""A dead worker's jobs are released as soon as its death is known (its pid gone from the
process table its neighbours share, or its heartbeat stopped), not when its lease runs out."""

import subprocess
import sys
from datetime import timedelta

import pytest
from django.utils import timezone

from jobs import fairness, services
from jobs.models import AttemptOutcome, Job, JobAttempt, JobStatus, WorkerProcess
from jobs.sweeper import resend_first_sent, take_back_dead
from jobs.worker import heartbeat
from tests.factories import make_document

pytestmark = pytest.mark.django_db(transaction=True)

JUDGE = heartbeat.process_name()


def gone_pid() -> int:
    """The pid of a process that has ended (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


@pytest.fixture
def live_pid():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield child.pid
    child.kill()
    child.wait()


def process(pid: int, *, space: str | None = None, beat_ago: float = 0, started_ago: float = 0):
    now = timezone.now()
    return WorkerProcess.objects.create(
        name=f"elsewhere:{pid}",
        host="elsewhere",
        pid=pid,
        threads=4,
        queues=["fast", "fast-resume"],
        started_at=now - timedelta(seconds=started_ago),
        beat_at=now - timedelta(seconds=beat_ago),
        pid_space=heartbeat.pid_space() if space is None else space,
    )


def held_by(row: WorkerProcess, owner) -> Job:
    job = make_document(owner).current_job
    assert services.claim_job(job_id=job.id, worker=f"{row.name}:Thread-1") is not None
    return job


def test_a_neighbour_whose_pid_is_gone_is_marked_dead_and_its_job_taken_back_at_once(alice, broker):
    row = process(gone_pid())
    job = held_by(row, alice)  # its heartbeat is fresh: the lease has a minute to run

    assert heartbeat.mark_dead(judge=JUDGE, judge_silence=False) == [row.name]
    assert take_back_dead() == [job.id]

    job.refresh_from_db()
    assert (job.status, job.worker, job.error_code) == (JobStatus.QUEUED, "", "lease_expired")
    assert JobAttempt.objects.get(job=job).outcome == AttemptOutcome.LOST
    assert not heartbeat.alive().filter(name=row.name).exists()


def test_a_live_neighbour_keeps_its_job_and_its_owners_share(alice, broker, live_pid):
    row = process(live_pid)
    job = held_by(row, alice)

    assert heartbeat.mark_dead(judge=JUDGE, judge_silence=True) == []
    assert take_back_dead() == []
    assert not Job.objects.stale().filter(id=job.id).exists()
    assert fairness.running(alice.id, job.lane) == 1


def test_a_dead_workers_job_leaves_its_owners_share_and_can_be_claimed(alice, broker):
    row = process(gone_pid())
    job = held_by(row, alice)
    heartbeat.mark_dead(judge=JUDGE, judge_silence=False)

    assert fairness.running(alice.id, job.lane) == 0
    claimed = services.claim_job(job_id=job.id, worker="survivor:1:Thread-1")
    assert claimed is not None
    assert claimed.attempts == 2


def test_a_pid_of_another_process_table_is_never_judged_gone(alice, broker):
    row = process(gone_pid(), space="another-machine/pid:[1]")
    held_by(row, alice)

    assert heartbeat.mark_dead(judge=JUDGE, judge_silence=False) == []


def test_a_pid_reused_by_a_newer_process_is_taken_for_dead(alice, broker, live_pid):
    # The row is older than the process that has its pid now.
    row = process(live_pid, started_ago=3600)

    assert heartbeat.mark_dead(judge=JUDGE, judge_silence=False) == [row.name]


def test_a_silent_beat_is_death_only_to_a_judge_that_reached_the_database_all_along(
    alice, broker, live_pid
):
    silent = process(
        live_pid, space="another-machine/pid:[1]", beat_ago=2 * heartbeat.silence_seconds()
    )
    process(gone_pid() + 100_000, space="another-machine/pid:[1]")  # beating: alive

    assert heartbeat.mark_dead(judge=JUDGE, judge_silence=False) == []
    assert heartbeat.mark_dead(judge=JUDGE, judge_silence=True) == [silent.name]


def test_a_process_taken_for_dead_that_beats_again_is_alive_and_its_new_claims_are_not_stale(
    alice, broker, live_pid
):
    # A machine cut off the network: its silence passed for death, then it came back.
    name = heartbeat.process_name()
    heartbeat._write(name, 4, ["fast"], timezone.now())
    WorkerProcess.objects.filter(name=name).update(dead_at=timezone.now())
    job = make_document(alice).current_job
    services.claim_job(job_id=job.id, worker=f"{name}:Thread-1")
    assert Job.objects.stale().filter(id=job.id).exists()  # what a sweep would take back

    heartbeat._write(name, 4, ["fast"], timezone.now())

    assert WorkerProcess.objects.get(name=name).dead_at is None
    assert not Job.objects.stale().filter(id=job.id).exists()
    assert Job.objects.running().filter(id=job.id).exists()


def test_a_neighbour_whose_pid_runs_is_alive_however_late_its_beat(alice, broker, live_pid):
    # Starved of CPU (a nice worker on a busy machine) or stuck: not dead, its lease decides.
    process(live_pid, beat_ago=2 * heartbeat.silence_seconds())

    assert heartbeat.mark_dead(judge=JUDGE, judge_silence=True) == []


def test_the_first_sent_queued_jobs_of_the_lane_are_sent_again_to_its_resume_queue(alice, broker):
    jobs = [make_document(alice).current_job for _ in range(3)]
    now = timezone.now()
    for age, job in zip((30, 20, 10), jobs, strict=True):
        Job.objects.filter(id=job.id).update(enqueued_at=now - timedelta(seconds=age))
    broker.flush_all()

    sent = resend_first_sent(lane="fast", count=2)

    assert sent == [jobs[0].id, jobs[1].id]
    assert broker.client.hlen("dramatiq:fast-resume.msgs") == 2
    assert broker.client.hlen("dramatiq:fast.msgs") == 0
