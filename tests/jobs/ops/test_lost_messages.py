"""A job whose message was lost is sent again within seconds while its lane has idle
threads (jobs/ops/lost_messages.py), not after the sweeper's grace period for deep backlogs."""

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from jobs import services
from jobs.models import Job, WorkerProcess
from jobs.ops import lost_messages
from jobs.worker import heartbeat
from tests.factories import make_document

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("no_other_workers")]


def worker(threads: int = 4, queues: tuple[str, ...] = ("fast", "fast-resume")) -> str:
    """A live worker process elsewhere, consuming `queues`."""
    now = timezone.now()
    name = f"elsewhere:{WorkerProcess.objects.count() + 100}"
    WorkerProcess.objects.create(
        name=name,
        host="elsewhere",
        pid=WorkerProcess.objects.count() + 100,
        threads=threads,
        queues=list(queues),
        started_at=now,
        beat_at=now,
        pid_space="another-machine/pid:[1]",
    )
    return name


def sent_ago(job: Job, seconds: float) -> None:
    Job.objects.filter(id=job.id).update(enqueued_at=timezone.now() - timedelta(seconds=seconds))


def test_a_lost_message_is_sent_again_while_the_lanes_threads_idle(alice, broker):
    worker(threads=4)
    lost = make_document(alice).current_job
    sent_ago(lost, 30)
    broker.flush_all()

    assert lost_messages.idle_threads()["fast"] == 4
    assert lost_messages.resend_waiting_behind_idle_threads() == [lost.id]
    assert broker.client.hlen("dramatiq:fast-resume.msgs") == 1
    # Stamped: not sent again before it has waited as long once more.
    assert lost_messages.resend_waiting_behind_idle_threads() == []


def test_a_message_sent_moments_ago_is_left_to_arrive(alice, broker):
    worker(threads=4)
    sent_ago(make_document(alice).current_job, 2)

    assert lost_messages.resend_waiting_behind_idle_threads() == []


def test_no_idle_thread_no_resend(alice, broker, bob):
    name = worker(threads=1)
    running = make_document(bob).current_job
    services.claim_job(job_id=running.id, worker=f"{name}:Thread-1")
    sent_ago(make_document(alice).current_job, 30)

    assert lost_messages.idle_threads()["fast"] == 0
    assert lost_messages.resend_waiting_behind_idle_threads() == []


def test_threads_of_another_lane_do_not_count(alice, broker):
    worker(threads=4, queues=("batch", "batch-resume"))
    sent_ago(make_document(alice).current_job, 30)

    assert lost_messages.resend_waiting_behind_idle_threads() == []


def test_a_dead_workers_threads_do_not_count(alice, broker):
    name = worker(threads=4)
    WorkerProcess.objects.filter(name=name).update(
        beat_at=timezone.now() - timedelta(seconds=2 * heartbeat.silence_seconds())
    )
    sent_ago(make_document(alice).current_job, 30)

    assert lost_messages.resend_waiting_behind_idle_threads() == []


@override_settings(INGEST_MAX_RUNNING_PER_USER=1)
def test_an_owner_at_their_share_waits_without_a_message(alice, broker):
    name = worker(threads=4)
    running = make_document(alice).current_job
    services.claim_job(job_id=running.id, worker=f"{name}:Thread-1")
    sent_ago(make_document(alice).current_job, 30)

    assert lost_messages.resend_waiting_behind_idle_threads() == []
