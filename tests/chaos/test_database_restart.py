"""Postgres goes away and comes back: nothing is lost, nothing waits for the sweeper.

These stop the run's real private Postgres (every session ends, as in a restart or a
failover) and start it again on the same socket.
"""

import contextlib
import logging
import subprocess
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from config.accounts.tokens import issue_token
from documents import content as contents
from jobs.models import Job, JobStatus
from search.models import Block, Chunk
from tests.chaos.conftest import ROOT, openai_env
from tests.conftest import (
    eventually,
    pdf_upload,
    processed,
    running_worker,
    wait_until_terminal,
)
from tests.factories import make_document, make_pdf
from tests.services import postgres_stopped, restart_postgres

pytestmark = pytest.mark.django_db(transaction=True)


def token_client(user) -> APIClient:
    """A client that authenticates as a real integrator does, through the database."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {issue_token(user).key}")
    return client


def stored_files(settings) -> list[Path]:
    return [p for p in Path(settings.MEDIA_ROOT).rglob("*") if p.is_file()]


def test_an_upload_while_postgres_is_down_answers_503_and_keeps_nothing(alice, settings):
    client = token_client(alice)

    with postgres_stopped():
        response = client.post("/api/documents/", {"file": pdf_upload(make_pdf())})

        assert response.status_code == 503
        assert response.json()["code"] == "database_unavailable"
        assert int(response["Retry-After"]) > 0
        assert stored_files(settings) == []

    again = client.post("/api/documents/", {"file": pdf_upload(make_pdf())})
    assert again.status_code == 202, "the next request after the restart goes through"


def test_a_page_while_postgres_is_down_answers_503_not_500(alice, client):
    client.force_login(alice)

    with postgres_stopped():
        response = client.get("/")

    assert response.status_code == 503
    assert "try again" in response.content.decode()


def test_a_claim_that_meets_no_database_waits_for_it_and_keeps_its_message(
    alice_client, broker, caplog
):
    caplog.set_level(logging.INFO)
    answer = alice_client.post("/api/documents/", {"file": pdf_upload(make_pdf(pages=2))})
    job_id = answer.json()["results"][0]["job_id"]

    with contextlib.ExitStack() as worker:
        with postgres_stopped():
            # Started with the database already away, the worker cannot claim yet.
            worker.enter_context(running_worker(broker))
            eventually(lambda: "database unreachable, trying again" in caplog.text, timeout=30)
        [job] = wait_until_terminal([job_id], timeout=60)

    assert job.status == JobStatus.SUCCEEDED
    assert job.attempts == 1
    assert "Retrying message" not in caplog.text, "claimed in place, not sent to the back"


def test_a_job_whose_claim_met_no_database_for_long_is_redelivered_and_finishes(
    alice_client, broker, caplog
):
    caplog.set_level(logging.INFO, logger="dramatiq")
    answer = alice_client.post("/api/documents/", {"file": pdf_upload(make_pdf(pages=2))})
    job_id = answer.json()["results"][0]["job_id"]

    with postgres_stopped(), running_worker(broker):
        # The worker takes the message and, the database staying away, gives it back.
        eventually(lambda: "Failed to process message" in caplog.text, timeout=60)
        started = time.monotonic()

    with running_worker(broker):
        [job] = wait_until_terminal([job_id], timeout=60)

    assert job.status == JobStatus.SUCCEEDED
    assert job.attempts == 1, "the failed claims never counted as attempts"
    # Well inside the sweeper's grace period (INGEST_REQUEUE_GRACE_SECONDS, 900 s).
    assert time.monotonic() - started < 60


def test_a_job_processing_through_a_restart_rides_it_out_in_the_same_attempt(
    alice_client, broker, start_worker, slow_openai
):
    slow_openai.delay = 2.0  # each embedding call stalls, so the restart lands mid-job
    # A lease far longer than the test may take: only the fix can finish the job in time.
    start_worker(**openai_env(slow_openai), INGEST_LEASE_SECONDS="300")
    answer = alice_client.post(
        "/api/documents/", {"file": pdf_upload(make_pdf(pages=3, words_per_page=400))}
    )
    job_id = answer.json()["results"][0]["job_id"]
    eventually(lambda: Job.objects.get(id=job_id, status=JobStatus.PROCESSING), timeout=30)

    restart_postgres()
    slow_openai.delay = 0.0

    [job] = wait_until_terminal([job_id], timeout=60)
    assert job.status == JobStatus.SUCCEEDED
    # Its writes were tried again on a new connection: the extracted text was not thrown
    # away for a retry behind the queue.
    attempts = list(job.attempt_log.values_list("outcome", "error_code"))
    assert attempts == [("succeeded", "")]
    assert Chunk.objects.filter(document_id=job.document_id).count() == job.progress_total


@pytest.mark.parametrize("format_", ["markdown", "json"])
def test_a_content_stream_rides_out_postgres_going_away_mid_stream(
    alice_client, worker, monkeypatch, caplog, format_
):
    """Its status and first bytes are sent: a 503 is no longer possible, and a cut body
    would be a broken answer. The next batch waits for the database instead."""
    report = processed(alice_client, make_pdf(pages=6, words_per_page=60))
    url = f"/api/documents/{report}/content"
    monkeypatch.setattr(contents, "ROWS_AT_ONCE", 2)  # pages and blocks in many batches
    whole = b"".join(alice_client.get(url, {"format": format_}).streaming_content)

    answer = alice_client.get(url, {"format": format_})
    pieces = iter(answer.streaming_content)
    first = next(pieces)
    caplog.set_level(logging.WARNING)
    stopped, back = threading.Event(), threading.Event()

    def away_for_a_while() -> None:
        with postgres_stopped():
            stopped.set()
            time.sleep(2.0)
        back.set()

    outage = threading.Thread(target=away_for_a_while)
    outage.start()
    assert stopped.wait(30)
    rest = b"".join(pieces)  # the next batch meets no database, and waits for it
    outage.join(60)

    assert back.is_set()
    assert answer.status_code == 200
    assert first + rest == whole
    assert "database unreachable, trying again" in caplog.text
    assert Block.objects.filter(document_id=report).count() >= 6, "a body of many batches"


def test_a_looping_sweeper_outlives_a_restart_and_sweeps_after_it(alice, worker_env, tmp_path):
    log = tmp_path / "sweeper.log"
    with open(log, "wb") as output:
        sweeper = subprocess.Popen(
            [sys.executable, "manage.py", "requeue_stuck", "--loop", "0.2"],
            cwd=ROOT,
            env=worker_env,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        with postgres_stopped():
            eventually(lambda: "database unavailable" in log.read_text(), timeout=30)
        job = make_document(alice).current_job  # never sent: the sweeper's to send
        Job.objects.filter(id=job.id).update(queued_at=timezone.now() - timedelta(minutes=1))

        eventually(lambda: Job.objects.get(id=job.id).enqueued_at is not None, timeout=30)
        assert sweeper.poll() is None, log.read_text()
    finally:
        sweeper.terminate()
        sweeper.wait(10)
