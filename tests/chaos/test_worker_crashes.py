"""Real worker processes killed, stalled, and cut off from Redis: nothing is lost or doubled."""

import os
import time

import pytest
from django.db import connection

from jobs.models import Job, JobStatus
from jobs.sweeper import requeue_stuck
from search.models import Chunk
from tests.chaos.conftest import LEASE_SECONDS, openai_env
from tests.conftest import eventually, pdf_upload, wait_until_terminal
from tests.factories import make_pdf
from tests.harness import chunks, faults
from tests.services import redis_server

pytestmark = pytest.mark.django_db(transaction=True)

# `make chaos` repeats the kill and storm scenarios; the suite runs each once.
ROUNDS = range(int(os.environ.get("INGEST_CHAOS_ROUNDS", "1")))


def upload(client, seed: int, pages: int = 2) -> str:
    answer = client.post("/api/documents/", {"file": pdf_upload(make_pdf(pages=pages, seed=seed))})
    return answer.json()["results"][0]["job_id"]


def pid_of(job: Job) -> int:
    return int(job.worker.split(":")[1])


def assert_each_chunk_once() -> None:
    with connection.cursor() as cursor:
        twice = chunks.check(cursor)
    assert twice.clean, twice


@pytest.mark.parametrize("round_", ROUNDS)
def test_a_worker_killed_mid_job_is_replaced_and_the_job_finishes_once(
    alice_client, broker, start_worker, slow_openai, round_
):
    slow_openai.delay = 2.0  # the provider stalls while the first worker holds the job
    doomed = start_worker(**openai_env(slow_openai))
    job_id = upload(alice_client, seed=1, pages=4)
    job = eventually(lambda: Job.objects.get(id=job_id, status=JobStatus.PROCESSING), timeout=30)
    assert pid_of(job) in doomed.worker_pids()

    doomed.kill()  # SIGKILL, mid-job, message unacknowledged
    slow_openai.delay = 0.0
    survivor = start_worker(**openai_env(slow_openai))
    time.sleep(LEASE_SECONDS + 0.5)
    requeue_stuck()  # the Procfile's sweeper, one pass

    [finished] = wait_until_terminal([job_id], timeout=60)
    assert finished.status == JobStatus.SUCCEEDED
    assert finished.attempts == 2
    assert pid_of(finished) in survivor.worker_pids()
    outcomes = list(finished.attempt_log.values_list("outcome", flat=True))
    assert outcomes == ["lost", "succeeded"]
    assert_each_chunk_once()
    assert Chunk.objects.filter(document_id=finished.document_id).count() == finished.progress_total


def test_a_killed_workers_job_is_claimed_again_within_seconds_whatever_the_lease(
    alice_client, broker, start_worker, slow_openai
):
    env = {
        **openai_env(slow_openai),
        "INGEST_LEASE_SECONDS": "60",  # the default lease
        "INGEST_EMBED_TIMEOUT_SECONDS": "120",
    }
    doomed = start_worker(**env)
    probed = slow_openai.calls
    slow_openai.delay = 90.0  # the doomed worker's call hangs until it dies
    job_id = upload(alice_client, seed=3, pages=4)
    eventually(lambda: slow_openai.calls > probed, timeout=30)
    slow_openai.delay = 0.0  # answered at once from now on (the survivor's probe too)
    survivor = start_worker(**env)

    doomed.kill()  # no sweeper runs here: the survivor sees its neighbour's pid gone
    killed = time.monotonic()
    eventually(lambda: Job.objects.get(id=job_id, attempts=2), timeout=30)
    taken_over_after = time.monotonic() - killed

    [finished] = wait_until_terminal([job_id], timeout=60)
    assert taken_over_after < 15
    assert finished.status == JobStatus.SUCCEEDED
    assert pid_of(finished) in survivor.worker_pids()
    assert list(finished.attempt_log.values_list("outcome", flat=True)) == ["lost", "succeeded"]
    assert_each_chunk_once()


@pytest.mark.parametrize("round_", ROUNDS)
def test_a_429_storm_backs_off_and_every_job_succeeds_with_bounded_calls(
    alice_client, broker, start_worker, slow_openai, round_
):
    slow_openai.script(["429:1"] * 6)  # the provider refuses the first six calls
    start_worker(threads=4, **openai_env(slow_openai))
    job_ids = [upload(alice_client, seed=i, pages=1) for i in range(6)]

    jobs = wait_until_terminal(job_ids, timeout=90)

    assert {job.status for job in jobs} == {JobStatus.SUCCEEDED}
    # One call per job, plus at most one per refusal: the shared cool-down stops workers
    # from hammering a provider that said 429.
    assert slow_openai.calls <= len(job_ids) + 6
    assert_each_chunk_once()


def test_a_short_429_is_waited_out_in_the_same_attempt(
    alice_client, broker, start_worker, slow_openai
):
    start_worker(**openai_env(slow_openai))
    slow_openai.script(["429:1", "429:1"])  # the first two calls: wait a second
    job_id = upload(alice_client, seed=5, pages=1)

    [job] = wait_until_terminal([job_id], timeout=60)

    assert job.status == JobStatus.SUCCEEDED
    # The batch was sent again once the cool-down ended: no retry behind the queue.
    assert list(job.attempt_log.values_list("outcome", flat=True)) == ["succeeded"]
    assert slow_openai.calls >= 3


def test_redis_restarted_mid_run_workers_reconnect_and_the_sweeper_resends(
    alice_client, broker, start_worker, slow_openai
):
    slow_openai.delay = 0.5
    start_worker(**openai_env(slow_openai))
    job_ids = [upload(alice_client, seed=i, pages=2) for i in range(4)]
    eventually(lambda: Job.objects.filter(status=JobStatus.SUCCEEDED).exists(), timeout=30)

    faults.restart_redis(redis_server())  # without persistence: every queued message is gone
    # The Procfile's sweeper, looping: jobs whose retry could not be sent while Redis was
    # down are found once their grace period has passed.
    deadline = time.monotonic() + 90
    while Job.objects.filter(id__in=job_ids, status=JobStatus.SUCCEEDED).count() < len(job_ids):
        assert time.monotonic() < deadline, list(Job.objects.values_list("status", "error_code"))
        requeue_stuck(older_than=5)
        time.sleep(1)

    jobs = wait_until_terminal(job_ids, timeout=10)
    assert {job.status for job in jobs} == {JobStatus.SUCCEEDED}
    assert_each_chunk_once()


def test_a_job_that_kills_its_worker_every_time_ends_crashed(
    alice_client, broker, start_worker, settings, slow_openai
):
    settings.INGEST_MAX_ATTEMPTS = 2
    slow_openai.delay = 30.0  # every attempt hangs until its worker is killed
    env = {**openai_env(slow_openai), "INGEST_MAX_ATTEMPTS": "2"}
    job_id = upload(alice_client, seed=9)

    for attempt in (1, 2):
        worker = start_worker(**env)
        eventually(
            lambda n=attempt: Job.objects.get(id=job_id, status=JobStatus.PROCESSING, attempts=n),
            timeout=30,
        )
        worker.kill()
        time.sleep(LEASE_SECONDS + 0.5)
        requeue_stuck()

    job = Job.objects.get(id=job_id)
    assert (job.status, job.error_code) == (JobStatus.FAILED, "crashed")
    assert list(job.attempt_log.values_list("outcome", flat=True)) == ["lost", "lost"]
