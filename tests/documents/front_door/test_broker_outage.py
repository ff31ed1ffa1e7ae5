"""With Redis down, uploads are still accepted and recorded; the sweeper sends them later."""

import logging
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from jobs.actors import process_fast_job as process_job
from jobs.models import Job, JobStatus
from tests.conftest import pdf_upload, running_worker, wait_until_terminal
from tests.factories import make_pdf
from tests.services import redis_server

pytestmark = pytest.mark.django_db(transaction=True)


def test_uploads_during_a_redis_outage_are_kept_and_sent_once_it_is_back(
    alice_client, broker, caplog
):
    redis = redis_server()
    redis.stop()
    try:
        with caplog.at_level(logging.WARNING):
            response = alice_client.post(
                "/api/documents/",
                {
                    "file": [
                        pdf_upload(make_pdf(seed=1), "a.pdf"),
                        pdf_upload(make_pdf(seed=2), "b.pdf"),
                    ]
                },
                format="multipart",
            )
    finally:
        redis.start()

    assert response.status_code == 202
    job_ids = [r["job_id"] for r in response.json()["results"]]
    jobs = Job.objects.filter(id__in=job_ids)
    assert {job.status for job in jobs} == {JobStatus.QUEUED}
    assert all(job.enqueued_at is None for job in jobs)
    assert "could not send job" in caplog.text
    assert broker.client.hlen(f"dramatiq:{process_job.queue_name}.msgs") == 0

    # Queued before this Redis started and never sent: the first sweep sends them, without
    # waiting for a grace period.
    call_command("requeue_stuck")

    assert Job.objects.filter(id__in=job_ids, enqueued_at__isnull=False).count() == 2
    with running_worker(broker):
        finished = wait_until_terminal(job_ids)
    assert {job.status for job in finished} == {JobStatus.SUCCEEDED}


def test_requeue_stuck_dry_run_sends_nothing(alice_client, broker, capsys):
    redis = redis_server()
    redis.stop()
    try:
        alice_client.post("/api/documents/", {"file": pdf_upload(make_pdf())}, format="multipart")
    finally:
        redis.start()
    Job.objects.update(queued_at=timezone.now() - timedelta(minutes=1))

    call_command("requeue_stuck", "--dry-run")

    assert "would re-send 1 queued jobs" in capsys.readouterr().out
    assert Job.objects.get().enqueued_at is None
    assert broker.client.hlen(f"dramatiq:{process_job.queue_name}.msgs") == 0
