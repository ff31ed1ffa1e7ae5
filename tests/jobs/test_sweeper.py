"""requeue_stuck: recovers what the queue lost, takes back dead workers' jobs, and never
sends a job a live worker holds."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from jobs import services, sweeper
from jobs.models import AttemptOutcome, Job, JobAttempt, JobStatus
from jobs.sweeper import broker_started_at, requeue_stuck
from tests.conftest import at_once, eventually, pdf_upload, running_worker, wait_until_terminal
from tests.factories import make_document, make_pdf
from tests.harness import faults
from tests.services import redis_server

pytestmark = pytest.mark.django_db(transaction=True)


def messages(broker) -> int:
    """Messages waiting in every queue of the two lanes (new and resumed)."""
    queues = ("fast", "batch", "fast-resume", "batch-resume")
    return sum(broker.client.hlen(f"dramatiq:{queue}.msgs") for queue in queues)


def age(**fields) -> None:
    past = timezone.now() - timedelta(hours=1)
    Job.objects.update(**{name: past for name in fields})


def test_jobs_whose_messages_were_flushed_are_sent_again_and_finish(alice_client, broker):
    job_ids = [
        alice_client.post("/api/documents/", {"file": pdf_upload(make_pdf(seed=i))}).json()[
            "results"
        ][0]["job_id"]
        for i in range(3)
    ]
    broker.client.flushall()  # the queue forgets everything; the database does not
    age(queued_at=True, enqueued_at=True)

    report = requeue_stuck(older_than=60)

    assert sorted(map(str, report.resent)) == sorted(job_ids)
    assert messages(broker) == 3
    with running_worker(broker):
        finished = wait_until_terminal(job_ids)
    assert {job.status for job in finished} == {JobStatus.SUCCEEDED}


def test_a_job_a_live_worker_holds_is_never_sent(alice, broker):
    job = make_document(alice).current_job
    services.claim_job(job_id=job.id, worker="busy")
    age(queued_at=True, enqueued_at=True)

    report = requeue_stuck(older_than=0)

    assert report.resent == report.reclaimed == []
    assert messages(broker) == 0
    assert Job.objects.get(id=job.id).worker == "busy"


def test_a_recently_sent_job_is_left_alone(alice, broker):
    # Sent to a Redis up for longer than its uptime's rounding: certainly not lost with it.
    eventually(lambda: broker_started_at() < timezone.now() - timedelta(seconds=1), timeout=5)
    make_document(alice)
    Job.objects.update(enqueued_at=timezone.now())

    assert requeue_stuck(older_than=300).resent == []


def test_a_dead_workers_job_goes_back_to_the_queue(alice, broker):
    job = make_document(alice).current_job
    services.claim_job(job_id=job.id, worker="killed")
    age(heartbeat_at=True)

    report = requeue_stuck()

    assert report.reclaimed == [job.id]
    job.refresh_from_db()
    assert (job.status, job.error_code, job.worker) == (JobStatus.QUEUED, "lease_expired", "")
    assert JobAttempt.objects.get(job=job).outcome == AttemptOutcome.LOST
    assert messages(broker) == 1


def test_a_dead_workers_job_out_of_attempts_ends_crashed(alice, broker, settings):
    settings.INGEST_MAX_ATTEMPTS = 1
    job = make_document(alice).current_job
    services.claim_job(job_id=job.id, worker="killed")
    age(heartbeat_at=True)

    report = requeue_stuck()

    assert report.crashed == [job.id]
    assert Job.objects.get(id=job.id).error_code == "crashed"


def test_two_sweepers_at_once_send_each_job_once(alice, broker):

    for _ in range(20):
        make_document(alice)
    age(queued_at=True, enqueued_at=True)
    reports = at_once(lambda: requeue_stuck(older_than=60))

    sent = [job_id for report in reports for job_id in report.resent]
    assert len(sent) == len(set(sent)) == 20
    assert messages(broker) == 20


def test_the_command_dry_run_changes_nothing(alice, broker, capsys):
    job = make_document(alice).current_job
    services.claim_job(job_id=job.id, worker="killed")
    age(heartbeat_at=True)

    call_command("requeue_stuck", "--dry-run")

    assert f"would take back {job.id}" in capsys.readouterr().out
    assert Job.objects.get(id=job.id).status == JobStatus.PROCESSING
    assert messages(broker) == 0


def test_jobs_sent_before_redis_restarted_are_sent_again_at_once(alice_client, broker):
    before = upload_job(alice_client, seed=1)
    faults.restart_redis(redis_server(), down_seconds=0)  # no persistence: messages forgotten
    # Redis counts its uptime in whole seconds, and the sweeper rounds towards re-sending
    # (a duplicate is harmless, a lost message is not): once it says 3 s, more than 2 s
    # have passed since the restart, past any start time the sweeper can take from it.
    eventually(lambda: broker.client.info("server")["uptime_in_seconds"] >= 3)
    after = upload_job(alice_client, seed=2)

    report = requeue_stuck()  # default grace (900 s): only the restart explains a re-send

    assert [str(job_id) for job_id in report.resent] == [before]
    # Never claimed, it keeps its place in the lane's own queue (not the resume queue).
    assert broker.client.hlen("dramatiq:fast.msgs") == messages(broker) == 2
    with running_worker(broker):
        finished = wait_until_terminal([before, after])
    assert {job.status for job in finished} == {JobStatus.SUCCEEDED}
    assert requeue_stuck().resent == [], "sent once, then it waits like any other job"


def test_a_job_whose_send_failed_while_redis_was_down_is_sent_once_it_is_back(alice_client, broker):
    redis = redis_server()
    redis.stop()
    try:
        unsent = upload_job(alice_client, seed=3)  # accepted; its send failed
    finally:
        redis.start()
    assert Job.objects.get(id=unsent).enqueued_at is None

    # Not after the unsent grace (UNSENT_GRACE_SECONDS) nor the requeue grace: at once.
    report = requeue_stuck()

    assert [str(job_id) for job_id in report.resent] == [unsent]
    assert messages(broker) == 1


def test_a_just_created_job_not_yet_sent_is_left_alone_its_send_may_be_on_the_way(alice, broker):
    eventually(lambda: broker_started_at() < timezone.now() - timedelta(seconds=1), timeout=5)
    job = make_document(alice).current_job
    Job.objects.filter(id=job.id).update(enqueued_at=None)

    assert requeue_stuck().resent == []
    Job.objects.filter(id=job.id).update(queued_at=timezone.now() - timedelta(minutes=1))
    assert requeue_stuck().resent == [job.id]


def test_a_resumed_job_not_claimed_soon_after_it_was_due_is_sent_again(alice, broker):
    # Its message sits with a worker whose every thread is busy: another may be free.
    # (Sent after Redis last started, so only this rule can explain a re-send.)
    eventually(lambda: broker_started_at() < timezone.now() - timedelta(seconds=12), timeout=20)
    sent = timezone.now() - timedelta(seconds=11)
    job = make_document(alice).current_job
    Job.objects.filter(id=job.id).update(attempts=1, enqueued_at=sent)
    waiting = make_document(alice).current_job  # never had a turn: it waits for the grace
    Job.objects.filter(id=waiting.id).update(enqueued_at=sent)

    assert requeue_stuck().resent == [job.id]
    assert broker.client.hlen("dramatiq:fast-resume.msgs") == 1


def upload_job(client, seed: int) -> str:
    answer = client.post("/api/documents/", {"file": pdf_upload(make_pdf(seed=seed))})
    return answer.json()["results"][0]["job_id"]


def test_a_dead_workers_job_is_served_before_the_backlog_it_already_waited_behind(
    alice_client, broker
):
    taken_back = Job.objects.get(id=upload_job(alice_client, seed=10))
    broker.flush_all()  # its message was taken by the worker that then died
    services.claim_job(job_id=taken_back.id, worker="killed")
    age(heartbeat_at=True)
    backlog = [upload_job(alice_client, seed=i) for i in range(6)]
    assert requeue_stuck().reclaimed == [taken_back.id]  # sent after the whole backlog

    with running_worker(broker, threads=1):
        wait_until_terminal([*backlog, str(taken_back.id)])

    order = list(Job.objects.order_by("finished_at").values_list("id", flat=True))
    # The one thread may have taken a backlog job before the resumed one reached it.
    assert taken_back.id in order[:2], f"finished {order.index(taken_back.id) + 1}th of 7"


_RAN: list[str] = []


def _boom() -> None:
    raise RuntimeError("a step that breaks")


def _note() -> None:
    _RAN.append("noted")


@pytest.mark.django_db
def test_each_pass_runs_every_apps_steps_and_a_broken_one_stops_none(caplog):
    sweeper.on_each_pass(f"{__name__}._boom", f"{__name__}._note")
    try:
        with caplog.at_level("WARNING", logger="jobs.sweeper"):
            sweeper.run_each_pass()
    finally:
        for path in (f"{__name__}._boom", f"{__name__}._note"):
            sweeper.each_pass.disconnect(dispatch_uid=path)

    failed = [r.getMessage() for r in caplog.records if "failed" in r.getMessage()]
    assert failed == [f"sweeper: {__name__}._boom failed"]  # the apps' own steps all ran clean
    assert _RAN == ["noted"]
    connected = {receiver[0][0] for receiver in sweeper.each_pass.receivers}  # (uid, sender)
    assert {
        "jobs.ops.dashboard.history.record",
        "jobs.webhooks.sending.sweep.resend_due",
        "documents.direct.sweep.every_pass",
        "documents.upkeep.retention.every_pass",
    } <= connected
