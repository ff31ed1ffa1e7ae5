"""Admission control: 503 past the backlog or queue age, 429 past a user's in-flight limit."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from documents.front_door import admission
from documents.models import Document
from jobs import backlog
from jobs.models import Job, JobStatus
from tests.conftest import pdf_upload
from tests.factories import make_document, make_pdf

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_snapshot():
    admission.forget_backlog()
    yield
    admission.forget_backlog()


def upload(client):
    return client.post("/api/documents/", {"file": pdf_upload(make_pdf())}, format="multipart")


def queued_jobs(owner, count: int) -> None:
    for _ in range(count):
        make_document(owner)


def finished_jobs(owner, count: int, seconds_ago: int = 60) -> None:
    when = timezone.now() - timedelta(seconds=seconds_ago)
    for _ in range(count):
        job = make_document(owner).current_job
        Job.objects.filter(id=job.id).update(status=JobStatus.SUCCEEDED, finished_at=when)


def test_a_full_backlog_refuses_with_503_and_stores_nothing(alice_client, bob, settings):
    settings.INGEST_MAX_BACKLOG = 5
    queued_jobs(bob, 10)

    response = upload(alice_client)

    assert response.status_code == 503
    assert response.json()["code"] == "backlog_full"
    assert "busy" in response.json()["detail"]
    assert int(response["Retry-After"]) >= 1
    assert Document.objects.filter(owner__username="alice").count() == 0


def test_retry_after_follows_the_measured_drain_rate(alice_client, bob, settings):
    settings.INGEST_MAX_BACKLOG = 5
    queued_jobs(bob, 10)  # 10 in flight; come back when 4.5 are left: 5.5 jobs to drain
    finished_jobs(bob, 30)  # 30 in the 300 s window: 0.1 jobs per second

    slow = upload(alice_client)
    finished_jobs(bob, 30, seconds_ago=120)  # twice the rate
    admission.forget_backlog()
    fast = upload(alice_client)

    assert int(slow["Retry-After"]) == 55
    assert int(fast["Retry-After"]) == 28


def test_an_old_queue_refuses_with_503(alice_client, bob, settings):
    settings.INGEST_MAX_QUEUE_AGE_SECONDS = 60
    queued_jobs(bob, 1)
    Job.objects.update(queued_at=timezone.now() - timedelta(minutes=5))

    response = upload(alice_client)

    assert response.status_code == 503
    assert response.json()["code"] == "backlog_full"


def test_jobs_waiting_for_their_owners_share_do_not_make_the_queue_look_old(
    alice_client, bob, settings
):
    settings.INGEST_MAX_QUEUE_AGE_SECONDS = 60
    settings.INGEST_MAX_RUNNING_PER_USER = 1
    queued_jobs(bob, 3)
    running, *waiting = Job.objects.order_by("created_at")
    Job.objects.filter(id=running.id).update(status=JobStatus.PROCESSING)
    Job.objects.filter(id__in=[job.id for job in waiting]).update(
        queued_at=timezone.now() - timedelta(minutes=5)
    )

    assert upload(alice_client).status_code == 202  # bob's jobs wait for bob's share

    Job.objects.filter(id=running.id).update(status=JobStatus.SUCCEEDED)
    admission.forget_backlog()
    assert upload(alice_client).status_code == 503  # now they could start: the queue is late


def test_a_user_past_the_in_flight_limit_gets_429_and_others_do_not(
    alice_client, bob_client, alice, settings
):
    settings.INGEST_MAX_INFLIGHT_PER_USER = 3
    queued_jobs(alice, 3)

    refused = upload(alice_client)
    accepted = upload(bob_client)

    assert refused.status_code == 429
    assert refused.json()["code"] == "too_many_in_flight"
    assert int(refused["Retry-After"]) >= 1
    assert accepted.status_code == 202


def test_finished_jobs_do_not_count_against_the_user(alice_client, alice, settings):
    settings.INGEST_MAX_INFLIGHT_PER_USER = 3
    finished_jobs(alice, 5)

    assert upload(alice_client).status_code == 202


def test_the_backlog_is_read_at_most_once_a_second_per_process(alice_client):
    with CaptureQueriesContext(connection) as queries:
        for _ in range(3):
            assert upload(alice_client).status_code == 202

    snapshot_reads = [
        q for q in queries.captured_queries if q["sql"].startswith(backlog.SNAPSHOT_SQL_HEAD)
    ]
    assert len(snapshot_reads) == 1


def test_uploads_past_the_throttle_rate_get_429(alice_client, settings):
    settings.INGEST_UPLOAD_THROTTLE_RATE = "2/min"

    answers = [upload(alice_client) for _ in range(3)]

    assert [a.status_code for a in answers] == [202, 202, 429]
    assert answers[2].json()["code"] == "throttled"
    assert int(answers[2]["Retry-After"]) > 0


def test_uploads_admitted_since_the_snapshot_count_towards_the_backlog_limit(
    alice_client, bob, settings
):
    settings.INGEST_MAX_BACKLOG = 5
    settings.INGEST_MAX_INFLIGHT_PER_USER = 100
    queued_jobs(bob, 3)

    answers = [
        alice_client.post("/api/documents/", {"file": pdf_upload(make_pdf(seed=i))}).status_code
        for i in range(4)
    ]

    # The snapshot (3 in flight) is not read again within the second: the two this
    # process admitted fill the backlog, and the next upload is refused, not a fourth.
    assert answers == [202, 202, 503, 503]
    assert Job.objects.count() == 5


def test_a_user_is_not_counted_while_the_whole_backlog_is_under_the_users_limit(
    alice_client, alice, settings
):
    settings.INGEST_MAX_INFLIGHT_PER_USER = 5
    queued_jobs(alice, 3)

    with CaptureQueriesContext(connection) as queries:
        assert upload(alice_client).status_code == 202

    user_counts = [
        q
        for q in queries.captured_queries
        if "jobs_job" in q["sql"]
        and "owner_id" in q["sql"]
        and "COUNT" in q["sql"].upper()
        and not q["sql"].startswith(backlog.SNAPSHOT_SQL_HEAD)
    ]
    assert user_counts == []
