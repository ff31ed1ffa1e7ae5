"""A new job's message gives way to a resumed job left waiting (jobs/actors.py, _give_way):
a killed worker's jobs, taken back while every thread of the lane was busy, run on the next
thread that starts any job of the lane, not after the jobs it took first."""

from datetime import timedelta

import pytest
from django.utils import timezone

from jobs.models import Job, JobAttempt
from tests.conftest import pdf_upload, running_worker, wait_until_terminal
from tests.factories import make_pdf

pytestmark = pytest.mark.django_db(transaction=True)


def upload(client, seed: int) -> Job:
    response = client.post("/api/documents/", {"file": pdf_upload(make_pdf(seed=seed))})
    assert response.status_code == 202, response.content
    [accepted] = response.json()["results"]
    return Job.objects.get(id=accepted["job_id"])


def resumed_and_sent(job: Job, *, seconds_ago: float) -> None:
    """As a job taken back after one attempt and sent to its resume queue that long ago."""
    sent = timezone.now() - timedelta(seconds=seconds_ago)
    Job.objects.filter(id=job.id).update(attempts=1, enqueued_at=sent)


def attempt_order(**jobs: Job) -> list[str]:
    names = {job.id: name for name, job in jobs.items()}
    attempts = JobAttempt.objects.filter(job_id__in=names).order_by("started_at")
    return [names[attempt.job_id] for attempt in attempts]


@pytest.mark.parametrize(("sent_seconds_ago", "first"), [(10, "waiting"), (0, "new")])
def test_a_new_jobs_thread_runs_a_resumed_job_left_waiting_first(
    alice_client, broker, sent_seconds_ago, first
):
    """One thread, and the new job's message first in the queue: the resumed job goes
    first if it has waited past the give-way time, else the queue's order holds."""
    new = upload(alice_client, seed=1)
    waiting = upload(alice_client, seed=2)
    resumed_and_sent(waiting, seconds_ago=sent_seconds_ago)

    with running_worker(broker, threads=1):
        ended = wait_until_terminal([new.id, waiting.id])

    assert {job.status for job in ended} == {"succeeded"}
    order = attempt_order(new=new, waiting=waiting)
    assert order[0] == first
    assert sorted(order) == ["new", "waiting"]  # one attempt each: the copies were dropped
