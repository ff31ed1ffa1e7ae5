"""Each worker a process boots beats on a thread of its own, stopped with that worker
alone (jobs/worker/heartbeat.py). A test process boots workers in turn; a beat left
running after its worker stopped would count threads nobody has."""

import threading

import pytest

from jobs.models import WorkerProcess
from jobs.worker import heartbeat
from tests.conftest import eventually, running_worker

pytestmark = pytest.mark.django_db(transaction=True)


def beating() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "worker-heartbeat"]


def test_stopping_one_worker_stops_its_beat_and_no_other(broker):
    with running_worker(broker, threads=2):
        with running_worker(broker, threads=1):
            assert len(beating()) == 2
        # The first worker still runs, so it still beats (a stopped beat may take a slow
        # write's time to end).
        eventually(lambda: len(beating()) == 1)
        assert eventually(lambda: heartbeat.alive().filter(name=heartbeat.process_name()))

    eventually(lambda: beating() == [])
    assert not WorkerProcess.objects.filter(name=heartbeat.process_name()).exists()
