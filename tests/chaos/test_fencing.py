"""Fencing: a worker that comes back after its lease was taken over lands no write.

A real worker process is frozen (SIGSTOP: as a network cut or a long pause, it neither
renews its lease nor writes) while its embedding call is in flight; its lease expires,
the sweeper takes the job back and another worker finishes it. Then the frozen one goes
on (SIGCONT) with its answer in hand. Every write it tries names its attempt's lease,
which is no longer the job's: the database refuses each one. Nothing of the job's row or
its chunks changes (their row versions, xmin, stay those the second attempt wrote), and
the refusals are counted in the frozen worker's own metrics.
"""

import os
import signal
import time

import pytest
from django.db import connection
from prometheus_client import CollectorRegistry
from prometheus_client.multiprocess import MultiProcessCollector

from jobs.models import Job, JobStatus
from jobs.sweeper import requeue_stuck
from tests.chaos.conftest import LEASE_SECONDS, openai_env
from tests.chaos.test_worker_crashes import assert_each_chunk_once, pid_of, upload
from tests.conftest import eventually, wait_until_terminal

pytestmark = pytest.mark.django_db(transaction=True)

ROW_VERSIONS_SQL = """
SELECT 'job', xmin::text FROM jobs_job WHERE id = %(job)s
UNION ALL
SELECT id::text, xmin::text FROM search_chunk WHERE document_id = %(document)s
ORDER BY 1
"""


def row_versions(job: Job) -> list[tuple[str, str]]:
    """Each row's version (xmin: the transaction that last wrote it) of the job and of its
    document's chunks: any write, even of the same values, changes it."""
    with connection.cursor() as cursor:
        cursor.execute(ROW_VERSIONS_SQL, {"job": job.id, "document": job.document_id})
        return cursor.fetchall()


def refused_writes(metrics_dir) -> dict[str, float]:
    """ingest_fenced_writes_total by write, from the processes that wrote to metrics_dir."""
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=str(metrics_dir))
    return {
        sample.labels["write"]: sample.value
        for metric in registry.collect()
        if metric.name == "ingest_fenced_writes"
        for sample in metric.samples
        if sample.name.endswith("_total")
    }


def test_a_worker_back_after_its_lease_was_taken_over_lands_no_write(
    alice_client, broker, start_worker, slow_openai, tmp_path
):
    slow_openai.delay = 3.0  # the frozen worker's call is in flight when it freezes
    stale_metrics = tmp_path / "stale-metrics"
    stale = start_worker(**openai_env(slow_openai), PROMETHEUS_MULTIPROC_DIR=str(stale_metrics))
    probed = slow_openai.calls
    job_id = upload(alice_client, seed=11, pages=4)
    eventually(lambda: slow_openai.calls > probed, timeout=30)
    first = Job.objects.get(id=job_id)
    assert pid_of(first) in stale.worker_pids()

    os.killpg(stale.popen.pid, signal.SIGSTOP)
    try:
        slow_openai.delay = 0.0
        time.sleep(LEASE_SECONDS + 0.5)
        requeue_stuck()  # the sweeper: the lease ran out, the job goes back to the queue
        survivor = start_worker(**openai_env(slow_openai))
        [finished] = wait_until_terminal([job_id], timeout=60)
        assert finished.status == JobStatus.SUCCEEDED
        assert pid_of(finished) in survivor.worker_pids()
        before = row_versions(finished)
    finally:
        os.killpg(stale.popen.pid, signal.SIGCONT)

    eventually(lambda: "lost to another attempt" in stale.output(), timeout=30)
    assert row_versions(finished) == before  # not one write of the frozen attempt landed
    assert Job.objects.get(id=job_id).status == JobStatus.SUCCEEDED
    outcomes = list(finished.attempt_log.values_list("outcome", flat=True))
    assert outcomes == ["lost", "succeeded"]
    assert_each_chunk_once()
    refused = refused_writes(stale_metrics)
    assert sum(refused.values()) >= 1, refused
    assert set(refused) <= {"heartbeat", "pages", "progress", "chunks", "ending"}
