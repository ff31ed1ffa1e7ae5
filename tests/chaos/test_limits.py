"""Time and age limits, enforced by real worker processes."""

import time

import pytest

from jobs.models import JobStatus
from tests.chaos.conftest import openai_env
from tests.conftest import pdf_upload, wait_until_terminal
from tests.factories import make_pdf

pytestmark = pytest.mark.django_db(transaction=True)


def upload(client) -> str:
    return client.post("/api/documents/", {"file": pdf_upload(make_pdf())}).json()["results"][0][
        "job_id"
    ]


def test_a_job_past_its_time_limit_fails_as_timeout_after_its_attempts(
    alice_client, broker, start_worker, slow_openai
):
    slow_openai.delay = 4.0
    start_worker(
        **openai_env(slow_openai), INGEST_JOB_TIME_LIMIT_SECONDS="2", INGEST_MAX_ATTEMPTS="1"
    )

    [job] = wait_until_terminal([upload(alice_client)], timeout=60)

    assert (job.status, job.error_code) == (JobStatus.FAILED, "timeout")
    assert "time limit of 2 s" in job.error_detail


def test_a_message_older_than_the_age_limit_fails_its_job_as_expired(
    alice_client, broker, start_worker
):
    job_id = upload(alice_client)
    time.sleep(2.5)  # no worker yet: the message ages in the queue

    start_worker(INGEST_MAX_MESSAGE_AGE_SECONDS="2")
    [job] = wait_until_terminal([job_id], timeout=30)

    assert (job.status, job.error_code, job.attempts) == (JobStatus.FAILED, "expired", 0)
