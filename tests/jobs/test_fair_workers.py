"""Fair between accounts, with real workers: one account's twenty slow files do not make
another account's one-page file wait, and all twenty still finish."""

import statistics
import threading
import time
from collections.abc import Iterator

import pytest
from django.db import connection

from jobs.models import Job, JobStatus
from tests.chaos.conftest import openai_env
from tests.conftest import eventually, wait_until_terminal
from tests.factories import make_pdf
from tests.fakes.openai_server import FakeOpenAI
from tests.jobs.test_lanes_workers import StartLaneWorker, fake_openai, lane_workers, upload

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def start_lane_worker(settings, tmp_path) -> Iterator[StartLaneWorker]:
    with lane_workers(settings, tmp_path) as start:
        yield start


@pytest.fixture
def slow_openai() -> Iterator[FakeOpenAI]:
    with fake_openai() as server:
        yield server


EMBED_SECONDS = 2.0  # every embedding call of every job: each job holds a thread this long


def seconds_to_ready(job: Job) -> float:
    return (job.finished_at - job.created_at).total_seconds()


class Sampler:
    """The most of one owner's jobs seen processing at once, sampled every 50 ms."""

    def __init__(self, owner_id: int) -> None:
        self.owner_id, self.most = owner_id, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> "Sampler":
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        try:
            while not self._stop.wait(0.05):
                mine = Job.objects.filter(owner_id=self.owner_id, status=JobStatus.PROCESSING)
                self.most = max(self.most, mine.count())
        finally:
            connection.close()


@pytest.mark.timeout(240)
def test_one_accounts_twenty_slow_files_leave_room_for_anothers_one_page_file(
    alice, alice_client, bob_client, broker, start_lane_worker, slow_openai
):
    slow_openai.delay = EMBED_SECONDS
    # Four threads: a share of two each (half the lane's threads, the default).
    start_lane_worker("fast", threads=4, **openai_env(slow_openai))
    with Sampler(alice.id) as sampler:
        files = [make_pdf(pages=8, seed=100 + n) for n in range(20)]
        alice_ids = [upload(alice_client, content) for content in files]
        eventually(lambda: Job.objects.filter(owner=alice, status=JobStatus.PROCESSING).count())

        [busy] = wait_until_terminal([upload(bob_client, make_pdf(pages=1, seed=1))], timeout=60)
        alices = wait_until_terminal(alice_ids, timeout=180)

    [idle] = wait_until_terminal([upload(bob_client, make_pdf(pages=1, seed=2))], timeout=60)
    print(
        f"\none-page file, another account's 20 x 8-page files processing: ready in "
        f"{seconds_to_ready(busy):.2f} s; on an idle system: {seconds_to_ready(idle):.2f} s "
        f"(every embedding call takes {EMBED_SECONDS:.0f} s); the 20 finished "
        f"{max(job.finished_at for job in alices) - min(job.created_at for job in alices)} "
        f"after they were uploaded"
    )
    assert busy.status == idle.status == JobStatus.SUCCEEDED
    # Behind alice's queue, bob's file would wait for 16 of her jobs to start: four rounds
    # of her jobs at least. Beside them it may wait for a thread or the cores, about one
    # of her jobs on two loaded cores: measured in her jobs, so a slow machine slows both.
    her_job = statistics.median(
        (job.finished_at - job.started_at).total_seconds() for job in alices
    )
    assert seconds_to_ready(busy) - seconds_to_ready(idle) < 2 * her_job, her_job
    assert {job.status for job in alices} == {JobStatus.SUCCEEDED}
    assert sampler.most == 2, "alice never held more than her share"
    assert all(job.attempts == 1 for job in alices), "waiting is not an attempt"


def test_a_skipped_job_waits_without_a_message_loop(
    alice_client, broker, start_lane_worker, slow_openai
):
    slow_openai.delay = 3.0
    start_lane_worker("fast", threads=2, **openai_env(slow_openai))  # a share of one
    first = upload(alice_client, make_pdf(pages=1, seed=1))
    eventually(lambda: Job.objects.get(id=first).status == JobStatus.PROCESSING)
    second = upload(alice_client, make_pdf(pages=1, seed=2))
    time.sleep(1.0)  # the worker took its message and skipped it

    assert Job.objects.get(id=second).status == JobStatus.QUEUED
    queues = [b"dramatiq:fast", b"dramatiq:fast-resume", b"dramatiq:fast-resume.DQ"]
    assert sum(broker.client.llen(name) for name in queues) == 0, "no message goes round"
    [job] = wait_until_terminal([second], timeout=30)
    assert job.status == JobStatus.SUCCEEDED
    assert job.attempts == 1
