"""The queue sends by name: every lane's names are an actor's, and sending needs no actor."""

import os
import subprocess
import sys

import dramatiq
import pytest

from jobs import actors
from jobs.lanes import ROUTES, route
from jobs.models import Lane


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
heavy = ("jobs.actors", "jobs.processing", "openai", "pdfminer")
print(sorted(name for name in heavy if name in sys.modules))
"""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )

    assert done.stdout.strip() == "[]"
    assert '"actor_name":"resume_fast_job"' in done.stderr
    assert '"args":["a-job-id"]' in done.stderr
