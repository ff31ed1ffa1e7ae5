"""WORKER_METRICS_PORT: a machine of workers alone serves its own counters."""

import ipaddress
import urllib.error
import urllib.request

import pytest

from config.tooling import embedded
from jobs.models import JobStatus
from jobs.ops.worker_metrics import allowed
from tests.chaos.test_worker_crashes import upload
from tests.conftest import eventually, wait_until_terminal


def scrape(port: int) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read().decode()


@pytest.mark.django_db(transaction=True)
def test_a_worker_process_serves_the_machines_counters(
    alice_client, broker, start_worker, tmp_path
):
    port = embedded.free_port()
    start_worker(
        WORKER_METRICS_PORT=str(port),
        WORKER_METRICS_HOST="127.0.0.1",
        PROMETHEUS_MULTIPROC_DIR=str(tmp_path / "worker-host-metrics"),
    )

    [job] = wait_until_terminal([upload(alice_client, seed=21)], timeout=60)

    assert job.status == JobStatus.SUCCEEDED
    # The worker counts an ending after its commit, which the test may see first.
    counted = 'ingest_job_attempts_total{outcome="succeeded"} 1.0'

    def scraped_with_the_count() -> tuple[int, str] | None:
        answer = scrape(port)
        return answer if counted in answer[1] else None

    status, text = eventually(scraped_with_the_count, timeout=15)
    assert status == 200
    assert "ingest_chunks_stored_total" in text
    assert "ingest_jobs{" not in text  # the database's gauges stay with the web's /metrics


def test_the_worker_endpoint_keeps_the_webs_rule(settings):
    settings.INGEST_METRICS_TOKEN = "s3cret"
    settings.INGEST_METRICS_ALLOW_CIDRS = [ipaddress.ip_network("10.8.0.0/16")]

    assert allowed("127.0.0.1", "")
    assert allowed("10.8.3.4", "")
    assert allowed("192.0.2.7", "Bearer s3cret")
    assert not allowed("192.0.2.7", "")
    assert not allowed("192.0.2.7", "Bearer wrong")
    assert not allowed("not an address", "")
