"""The queue sends by name: every lane's names are an actor's, and sending needs no actor;
admission reads every lane's own fair share."""

import os
import subprocess
import sys

import dramatiq
import pytest
from django.utils import timezone

from jobs import actors, backlog, fairness
from jobs.lanes import ROUTES, route
from jobs.models import Job, JobStatus, Lane
from tests.factories import make_document


@pytest.mark.parametrize("resumed", [False, True])
@pytest.mark.parametrize("lane", list(Lane))
def test_every_lane_routes_to_a_declared_actor_on_its_queue(lane, resumed):
    actor_name, queue_name = route(lane, resumed=resumed)

    actor = dramatiq.get_broker().get_actor(actor_name)

    assert actor.queue_name == queue_name
    assert actor.priority == (actors.RESUMED if resumed else actors.NEW)


def test_no_route_without_a_lane():
    assert {lane for lane, _ in ROUTES} == {lane.value for lane in Lane}


def test_sending_a_job_does_not_import_the_actors_or_the_pipeline():
    # A fresh interpreter (this one has imported the actors), sending to a stub broker.
    code = """
import sys, django
django.setup()
import dramatiq
from dramatiq.brokers.stub import StubBroker
broker = StubBroker()
dramatiq.set_broker(broker)
broker.declare_queue("fast-resume")
from jobs.queue import _send
_send("a-job-id", lane="fast", resumed=True, delay_ms=None)
message = broker.queues["fast-resume"].get_nowait()
print(message.decode(), file=sys.stderr)
heavy = ("jobs.actors", "jobs.worker.processing", "openai", "pdfminer")
print(sorted(name for name in heavy if name in sys.modules))
"""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )

    assert done.stdout.strip() == "[]"
    assert '"actor_name":"resume_fast_job"' in done.stderr
    assert '"args":["a-job-id"]' in done.stderr


@pytest.mark.django_db
@pytest.mark.parametrize("lane", list(Lane))
def test_a_job_waiting_for_its_owners_share_of_its_lane_is_not_the_backlogs_oldest(
    lane, alice, settings
):
    """Admission reads each lane's own share (jobs.fairness.limit): with one OCR thread, an
    owner whose scan is being read has no room for a second in that lane."""
    settings.INGEST_MAX_RUNNING_PER_USER = 0  # half the lane's threads
    settings.WORKER_FAST_THREADS, settings.WORKER_BATCH_THREADS = 2, 4
    settings.WORKER_OCR_PROCESSES, settings.WORKER_OCR_THREADS = 1, 2
    share = fairness.limit(lane)
    now = timezone.now()
    for _ in range(share):
        running = make_document(alice).current_job
        Job.objects.filter(id=running.id).update(
            lane=lane, status=JobStatus.PROCESSING, started_at=now, heartbeat_at=now
        )
    waiting = make_document(alice).current_job
    Job.objects.filter(id=waiting.id).update(lane=lane)

    assert backlog.read().oldest_queued_at is None

    Job.objects.filter(status=JobStatus.PROCESSING).first().delete()  # room again

    assert backlog.read().oldest_queued_at == Job.objects.get(id=waiting.id).queued_at
