"""Alerts to on-call: a real HTTP receiver, the run's Redis and a real Dramatiq worker.

Dead letters here are failed rows written directly, so that each test alone decides when
`alerts.job_failed` runs; the tests at the end fail jobs through the services and a
worker, where jobs.events calls it after commit.
"""

import json
import logging
import socket
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.utils import timezone
from dramatiq.common import current_millis

import jobs.ops.actors  # noqa: F401  (declares the alerts queue, as rundramatiq does)
from jobs.actors import process_fast_job
from jobs.models import Job, JobStatus
from jobs.ops import alerts
from tests.conftest import eventually, running_worker, wait_until_terminal
from tests.factories import make_document

pytestmark = pytest.mark.django_db(transaction=True)


class Receiver:
    """A Slack-compatible incoming webhook on a free local port: keeps each POST's text."""

    def __init__(self, status: int = 200) -> None:
        texts: list[str] = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                texts.append(json.loads(body)["text"])
                self.send_response(status)
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args: object) -> None:
                pass

        self.texts = texts
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hooks/T0/B0/x"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver(settings) -> Iterator[Receiver]:
    receiver = Receiver()
    settings.INGEST_ALERT_WEBHOOK_URL = receiver.url
    yield receiver
    receiver.close()


@pytest.fixture(autouse=True)
def fresh_throttle(settings, broker) -> None:
    """Every test starts with no window open; Redis outlives the tests' databases."""
    settings.INGEST_ALERT_MIN_INTERVAL_SECONDS = 60
    settings.INGEST_PUBLIC_URL = "https://ingest.example.com"
    alerts.clear()


def closed_port_url() -> str:
    """A URL nothing listens on: connecting is refused at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/hook"


def dead_letter(owner, code: str = "retries_exhausted", filename: str = "report.pdf") -> Job:
    """A job as the services leave one that failed with `code` (job_failed not called)."""
    job = make_document(owner, filename=filename).current_job
    Job.objects.filter(id=job.id).update(
        status=JobStatus.FAILED,
        error_code=code,
        error_detail="Gave up after 5 attempts. Last error: HTTP 502 from the provider.\n"
        "Traceback line that stays out of the alert",
        finished_at=timezone.now(),
    )
    return job


def all_sent(broker, worker) -> None:
    """Wait until the alerts queue is empty and the worker idle: every alert delivered."""
    broker.join(alerts.QUEUE_NAME, timeout=20_000)
    worker.join()


def wait_out_the_window(seconds: float) -> None:
    time.sleep(seconds + 0.2)


# --------------------------------------------------------------------------- dead letters


def test_ten_dead_letters_inside_the_interval_send_one_alert_and_later_the_count(
    alice, receiver, broker, settings
):
    settings.INGEST_ALERT_MIN_INTERVAL_SECONDS = 3
    jobs = [dead_letter(alice, filename=f"report-{n}.pdf") for n in range(10)]

    with running_worker(broker) as worker:
        for job in jobs:
            alerts.job_failed(job)
        alerts.check_queue_age()  # the window is still open: nothing to summarize yet
        all_sent(broker, worker)
        assert len(receiver.texts) == 1

        wait_out_the_window(3)
        alerts.check_queue_age()
        alerts.check_queue_age()  # a second sweep finds nothing more to say
        all_sent(broker, worker)

    first, summary = receiver.texts
    job = jobs[0]
    assert f"job {job.id} failed with retries_exhausted" in first
    assert f"report-0.pdf ({job.document_id}), owner alice" in first
    assert "Detail: Gave up after 5 attempts. Last error: HTTP 502 from the provider." in first
    assert "Traceback" not in first
    assert f"https://ingest.example.com/admin/jobs/deadletter/{job.id}/change/" in first
    assert "more" not in first
    assert summary.startswith("Dead letters: 9 more dead letters")
    assert "https://ingest.example.com/admin/jobs/deadletter/" in summary


def test_the_next_dead_letter_after_the_window_carries_the_folded_count(
    alice, receiver, broker, settings
):
    settings.INGEST_ALERT_MIN_INTERVAL_SECONDS = 2
    settings.INGEST_PUBLIC_URL = ""
    with running_worker(broker) as worker:
        for _ in range(4):
            alerts.job_failed(dead_letter(alice, code="crashed"))
        wait_out_the_window(2)
        later = dead_letter(alice, code="timeout", filename="late.pdf")
        alerts.job_failed(later)
        all_sent(broker, worker)

    assert len(receiver.texts) == 2
    assert f"job {later.id} failed with timeout" in receiver.texts[1]
    assert receiver.texts[1].endswith("…and 3 more dead letters since the last alert.")
    # Without INGEST_PUBLIC_URL the link is the admin's path.
    assert f"Admin: /admin/jobs/deadletter/{later.id}/change/" in receiver.texts[1]


def test_a_users_file_failing_sends_nothing_and_is_not_counted(alice, receiver, broker):
    user_caused = ["encrypted", "no_text", "corrupt", "not_a_pdf", "too_many_pages"]
    with running_worker(broker) as worker:
        for code in user_caused:
            alerts.job_failed(dead_letter(alice, code=code))
        all_sent(broker, worker)
        assert receiver.texts == []

        expired = dead_letter(alice, code="expired")
        alerts.job_failed(expired)
        all_sent(broker, worker)

    [text] = receiver.texts
    assert f"job {expired.id} failed with expired" in text
    assert "more" not in text


def test_a_file_name_cannot_mention_the_channel(alice):
    job = Job.objects.get(id=dead_letter(alice, filename="<!channel> & co.pdf").id)

    text = alerts.dead_letter_text(job)

    assert "Document: &lt;!channel&gt; &amp; co.pdf (" in text
    assert "<" not in text


def test_without_a_webhook_nothing_is_queued(alice, broker, settings):
    settings.INGEST_ALERT_WEBHOOK_URL = ""
    late = make_document(alice).current_job
    Job.objects.filter(id=late.id).update(queued_at=timezone.now() - timedelta(hours=2))

    alerts.job_failed(dead_letter(alice))
    alerts.check_queue_age()

    assert broker.do_qsize(alerts.QUEUE_NAME) == 0


def test_an_unreachable_webhook_costs_the_caller_nothing_and_the_actor_retries(
    alice, broker, settings, caplog
):
    settings.INGEST_ALERT_WEBHOOK_URL = closed_port_url()
    caplog.set_level(logging.INFO)
    job = dead_letter(alice)

    started = time.monotonic()
    alerts.job_failed(job)
    assert time.monotonic() - started < 0.5  # it only queued the message

    with running_worker(broker):

        def retry_scheduled() -> bool:
            return any("Retrying message" in r.getMessage() for r in caplog.records)

        eventually(retry_scheduled, timeout=20)
    warnings = [r.getMessage() for r in caplog.records if r.name == "jobs.ops.actors"]
    assert any(w.startswith("alert not delivered (try 1 of 6)") for w in warnings)
    assert Job.objects.get(id=job.id).status == JobStatus.FAILED


def test_a_webhook_that_refuses_the_alert_for_good_is_not_asked_again(
    alice, broker, settings, caplog
):
    refusing = Receiver(status=404)  # what Slack answers for a revoked webhook
    settings.INGEST_ALERT_WEBHOOK_URL = refusing.url
    try:
        with running_worker(broker) as worker:
            alerts.job_failed(dead_letter(alice))
            all_sent(broker, worker)
    finally:
        refusing.close()

    assert len(refusing.texts) == 1
    assert broker.do_qsize(alerts.QUEUE_NAME) == 0  # nothing waits for a retry
    assert any("refused an alert with HTTP 404" in r.getMessage() for r in caplog.records)


# --------------------------------------------------------------------------- queue age


def test_the_queue_age_alert_fires_past_the_threshold_and_not_below(
    alice, receiver, broker, settings
):
    settings.INGEST_ALERT_QUEUE_AGE_SECONDS = 600
    jobs = [make_document(alice).current_job for _ in range(3)]
    Job.objects.filter(id__in=[j.id for j in jobs]).update(
        queued_at=timezone.now() - timedelta(seconds=500)
    )
    # Waiting out a retry's backoff is not waiting for a worker: not counted.
    not_due = make_document(alice).current_job
    Job.objects.filter(id=not_due.id).update(
        queued_at=timezone.now() - timedelta(hours=3),
        next_attempt_at=timezone.now() + timedelta(minutes=5),
    )

    with running_worker(broker) as worker:
        alerts.check_queue_age()
        all_sent(broker, worker)
        assert receiver.texts == []

        Job.objects.filter(id=jobs[0].id).update(queued_at=timezone.now() - timedelta(seconds=700))
        alerts.check_queue_age()
        alerts.check_queue_age()  # still late, inside the interval: folded
        all_sent(broker, worker)

    [text] = receiver.texts
    assert text == (
        "Queue age: the fast lane's oldest queued job has waited about 12 minutes "
        "(alert threshold about 10 minutes); 3 jobs queued."
    )


def test_queue_age_checks_folded_into_the_window_are_reported_once_it_has_passed(
    alice, receiver, broker, settings
):
    settings.INGEST_ALERT_QUEUE_AGE_SECONDS = 60
    settings.INGEST_ALERT_MIN_INTERVAL_SECONDS = 2
    job = make_document(alice).current_job
    Job.objects.filter(id=job.id).update(queued_at=timezone.now() - timedelta(minutes=5))

    with running_worker(broker) as worker:
        for _ in range(3):
            alerts.check_queue_age()
        wait_out_the_window(2)
        alerts.check_queue_age()  # still late: a new alert, with the two folded sweeps
        alerts.check_queue_age()  # folded
        Job.objects.filter(id=job.id).update(status=JobStatus.PROCESSING)
        wait_out_the_window(2)
        alerts.check_queue_age()  # drained: says so, with the sweep folded meanwhile
        alerts.check_queue_age()  # nothing more to say
        all_sent(broker, worker)

    first, second, recovered = receiver.texts
    assert "1 job queued" in first
    assert second.endswith("…and 2 more sweeps found a lane past it since the last alert.")
    assert recovered == (
        "Queue age: every lane is back under about 1 minute. 1 more sweep found a lane "
        "past it since the last alert."
    )


# --------------------------------------------------------------------------- end to end


def test_a_job_expired_by_a_real_worker_alerts_after_commit(alice, receiver, broker, settings):
    settings.INGEST_MAX_MESSAGE_AGE_SECONDS = 60
    job = make_document(alice, filename="old.pdf").current_job
    stale = process_fast_job.message(str(job.id)).copy(message_timestamp=current_millis() - 61_000)
    broker.enqueue(stale)

    with running_worker(broker):
        wait_until_terminal([job.id])
        [text] = eventually(lambda: receiver.texts, timeout=20)

    assert f"job {job.id} failed with expired" in text
    assert f"old.pdf ({job.document_id}), owner alice" in text


def test_a_dead_webhook_leaves_a_failing_job_unaffected(alice, broker, settings, caplog):
    settings.INGEST_ALERT_WEBHOOK_URL = closed_port_url()
    settings.INGEST_MAX_MESSAGE_AGE_SECONDS = 60
    caplog.set_level(logging.INFO)
    job = make_document(alice).current_job
    stale = process_fast_job.message(str(job.id)).copy(message_timestamp=current_millis() - 61_000)
    broker.enqueue(stale)

    with running_worker(broker):
        started = time.monotonic()
        [failed] = wait_until_terminal([job.id], timeout=10)
        took = time.monotonic() - started

        def retry_scheduled() -> bool:
            return any("alert not delivered" in r.getMessage() for r in caplog.records)

        eventually(retry_scheduled, timeout=20)

    assert (failed.status, failed.error_code) == (JobStatus.FAILED, "expired")
    assert took < 5
