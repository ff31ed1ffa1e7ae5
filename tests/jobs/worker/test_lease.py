import time

import pytest

from jobs import services
from jobs.models import Job
from jobs.worker.lease import LeaseKeeper
from tests.factories import make_document

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_lease_is_renewed_while_a_long_step_runs(alice, settings):
    settings.INGEST_LEASE_SECONDS = 3  # renewed every second
    job = services.claim_job(job_id=make_document(alice).current_job_id, worker="w")
    first = Job.objects.get(id=job.id).heartbeat_at

    with LeaseKeeper(job) as lease:
        time.sleep(2.5)  # a long extraction, say

    assert Job.objects.get(id=job.id).heartbeat_at > first
    assert not lease.lost.is_set()


def test_a_lease_keeper_notices_when_the_job_is_taken_away(alice, settings):
    settings.INGEST_LEASE_SECONDS = 3
    job = services.claim_job(job_id=make_document(alice).current_job_id, worker="w")

    with LeaseKeeper(job) as lease:
        Job.objects.filter(id=job.id).update(worker="someone-else")
        assert lease.lost.wait(timeout=3)
