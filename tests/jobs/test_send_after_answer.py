"""An upload's job id goes to the broker after its answer has been written, and a job
whose send was lost between the two (the web process died) is sent by the running
sweeper within seconds.

Requests go through Django's WSGI application as a WSGI server drives it: the server
writes the body it iterates and then calls close(), which is when held sends run. Not
calling close() is what a process killed in between leaves behind.
"""

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterable
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.handlers.wsgi import WSGIHandler
from django.test.client import RequestFactory
from django.utils import timezone

from config.accounts.tokens import issue_token
from jobs.lanes import ROUTES
from jobs.models import Job, JobStatus
from jobs.sweeper import UNSENT_CHECK_SECONDS, UNSENT_GRACE_SECONDS
from tests.chaos.conftest import ROOT, database_url
from tests.conftest import eventually, pdf_upload, running_worker, wait_until_terminal
from tests.factories import make_document, make_pdf

pytestmark = pytest.mark.django_db(transaction=True)


def messages(broker) -> int:
    queues = {route.queue_name for route in ROUTES.values()}
    return sum(broker.client.hlen(f"dramatiq:{queue}.msgs") for queue in queues)


def answer_without_close(user, seed: int) -> tuple[int, dict, Iterable[bytes]]:
    """POST one PDF through the WSGI app; the status, the JSON body, and the response
    iterable, not closed yet."""
    request = RequestFactory().post(
        "/api/documents/",
        {"file": pdf_upload(make_pdf(seed=seed))},
        HTTP_AUTHORIZATION=f"Token {issue_token(user).key}",
    )
    started: list[str] = []
    body = WSGIHandler()(request.environ, lambda status, headers: started.append(status))
    return int(started[0].split()[0]), json.loads(b"".join(body)), body


def test_the_job_id_is_sent_once_the_answer_is_written_and_closed(alice, broker):
    status, answer, body = answer_without_close(alice, seed=1)

    assert status == 202
    job = Job.objects.get(id=answer["results"][0]["job_id"])
    assert (job.status, job.enqueued_at) == (JobStatus.QUEUED, None)
    assert messages(broker) == 0, "the answer was written before anything was sent"

    body.close()  # type: ignore[attr-defined]

    assert messages(broker) == 1
    job.refresh_from_db()
    assert job.enqueued_at is not None


def test_an_upload_of_several_files_sends_each_job_once_after_its_answer(alice_client, broker):
    answer = alice_client.post(
        "/api/documents/",
        {"file": [pdf_upload(make_pdf(seed=i), f"{i}.pdf") for i in range(3)]},
        format="multipart",
    )

    assert answer.status_code == 202
    job_ids = [r["job_id"] for r in answer.json()["results"]]
    assert messages(broker) == 3
    assert Job.objects.filter(id__in=job_ids, enqueued_at__isnull=False).count() == 3


def test_a_job_whose_send_was_lost_after_the_answer_is_sent_by_the_sweeper_within_seconds(
    alice, broker, settings, tmp_path
):
    sweeper = start_sweeper(settings, tmp_path / "sweeper.log")
    try:
        # The sweeper is up once it has sent a job left unsent a minute ago.
        ready = make_document(alice).current_job
        Job.objects.filter(id=ready.id).update(queued_at=timezone.now() - timedelta(minutes=1))
        eventually(lambda: Job.objects.get(id=ready.id).enqueued_at is not None, timeout=60)

        status, answer, _never_closed = answer_without_close(alice, seed=2)
        answered = time.monotonic()
        assert status == 202
        job_id = answer["results"][0]["job_id"]
        assert Job.objects.get(id=job_id).enqueued_at is None

        eventually(lambda: Job.objects.get(id=job_id).enqueued_at is not None, timeout=60)
        delay = time.monotonic() - answered
        assert sweeper.poll() is None, (tmp_path / "sweeper.log").read_text()
    finally:
        sweeper.terminate()
        sweeper.wait(10)

    # Left alone while its send may still be on its way, then sent at the next quick
    # pass, not at the next full sweep (SWEEPER_INTERVAL, 30 s here as in the Procfile).
    assert UNSENT_GRACE_SECONDS - 1 <= delay <= UNSENT_GRACE_SECONDS + UNSENT_CHECK_SECONDS + 2
    with running_worker(broker):
        [finished] = wait_until_terminal([job_id])
    assert finished.status == JobStatus.SUCCEEDED


def start_sweeper(settings, log: Path) -> subprocess.Popen:
    env = {
        "DATABASE_URL": database_url(),
        "REDIS_URL": settings.REDIS_URL,
        "INGEST_MEDIA_ROOT": str(settings.MEDIA_ROOT),
    }
    with open(log, "wb") as output:
        return subprocess.Popen(
            [sys.executable, "manage.py", "requeue_stuck", "--loop", "30"],
            cwd=ROOT,
            env={**os.environ, **env},
            stdout=output,
            stderr=subprocess.STDOUT,
        )
