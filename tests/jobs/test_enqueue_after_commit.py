"""Every path that queues a job inside a transaction sends its id only after commit.

Fixed outcomes, no timing: the broker holds no message while the transaction is open,
exactly one once it commits, and none when it rolls back.
"""

from collections.abc import Callable
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from documents.models import Document
from jobs import services
from jobs.lanes import ROUTES
from jobs.models import Job, JobStatus
from tests.factories import make_document

pytestmark = pytest.mark.django_db(transaction=True)


class Rollback(Exception):
    pass


def messages(broker) -> int:
    """Messages in every queue of every lane, delayed ones included."""
    queues = {route.queue_name for route in ROUTES.values()}
    return sum(
        broker.client.hlen(f"dramatiq:{queue}{suffix}.msgs")
        for queue in queues
        for suffix in ("", ".DQ")
    )


def queue_new_job(owner) -> Callable[[], object]:
    document = make_document(owner)
    Job.objects.filter(id=document.current_job_id).update(status=JobStatus.FAILED)

    def call() -> object:
        locked = Document.objects.select_for_update().get(id=document.id)
        return services.queue_new_job(document=locked)

    return call


def retry_jobs(owner) -> Callable[[], object]:
    job = make_document(owner).current_job
    Job.objects.filter(id=job.id).update(status=JobStatus.FAILED)
    return lambda: services.retry_jobs(job_ids=[job.id])


def requeue_stale(owner) -> Callable[[], object]:
    job = make_document(owner).current_job
    claimed = services.claim_job(job_id=job.id, worker="killed")
    Job.objects.filter(id=job.id).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    claimed.refresh_from_db()
    return lambda: services.requeue_stale(job=claimed)


def retry_or_fail(owner) -> Callable[[], object]:
    job = make_document(owner).current_job
    claimed = services.claim_job(job_id=job.id, worker="w")
    return lambda: services.retry_or_fail(job=claimed, code="rate_limited", detail="429")


PATHS = [queue_new_job, retry_jobs, requeue_stale, retry_or_fail]


@pytest.mark.parametrize("path", PATHS, ids=lambda path: path.__name__)
def test_the_id_is_sent_once_and_only_after_commit(path, alice, broker):
    call = path(alice)

    with transaction.atomic():
        call()
        assert messages(broker) == 0, "nothing may be sent while the transaction is open"

    assert messages(broker) == 1


@pytest.mark.parametrize("path", PATHS, ids=lambda path: path.__name__)
def test_a_rollback_sends_nothing(path, alice, broker):
    call = path(alice)

    def rolled_back() -> None:
        with transaction.atomic():
            call()
            raise Rollback

    with pytest.raises(Rollback):
        rolled_back()

    assert messages(broker) == 0
