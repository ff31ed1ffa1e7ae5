"""The gauges /metrics reads from the database when Prometheus scrapes, so every process
(and every replica) reports the same truth: jobs by state and lane, queue age, worker
threads alive and busy, and the scaling signal. Small queries only: jobs by state from a
table that triggers keep (jobs.ops.counts), the jobs in flight, the attempts that ended in
the last minutes, the live worker rows."""

from collections.abc import Iterator

from django.db.models import Count, Sum
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from jobs.models import Job
from jobs.ops import counts, scaling
from jobs.worker import heartbeat


def _jobs() -> GaugeMetricFamily:
    family = GaugeMetricFamily(
        "ingest_jobs",
        "Jobs by state and lane, as the database holds them.",
        labels=["status", "lane"],
    )
    for (status, lane), n in counts.jobs_by_status_and_lane().items():
        family.add_metric([status, lane], n)
    return family


def _lanes() -> Iterator[GaugeMetricFamily]:
    lanes = scaling.lanes_now()
    oldest = GaugeMetricFamily(
        "ingest_queue_oldest_age_seconds",
        "How long the lane's oldest due queued job has waited; 0 when none.",
        labels=["lane"],
    )
    wanted = GaugeMetricFamily(
        "ingest_workers_wanted",
        "Worker threads that would drain the lane's backlog within INGEST_TARGET_QUEUE_SECONDS "
        "at the measured rate, clamped to INGEST_MIN_WORKERS..INGEST_MAX_WORKERS.",
        labels=["lane"],
    )
    per_job = GaugeMetricFamily(
        "ingest_job_seconds_per_attempt",
        "Mean duration of the lane's attempts that ended in the last 15 minutes "
        "(30 when none did): the rate behind ingest_workers_wanted.",
        labels=["lane"],
    )
    for lane, now in lanes.items():
        oldest.add_metric([lane], now.oldest_age_seconds)
        wanted.add_metric([lane], now.workers_wanted)
        per_job.add_metric([lane], now.seconds_per_job)
    yield from (oldest, wanted, per_job)


def _workers() -> Iterator[GaugeMetricFamily]:
    alive = heartbeat.alive().aggregate(threads=Sum("threads"), processes=Count("*"))
    # Held now: a stale job belongs to a dead worker.
    busy = Job.objects.running().count()
    yield GaugeMetricFamily(
        "ingest_worker_threads",
        "Threads of the worker processes whose heartbeat is fresh.",
        value=alive["threads"] or 0,
    )
    yield GaugeMetricFamily(
        "ingest_worker_processes",
        "Worker processes whose heartbeat is fresh.",
        value=alive["processes"],
    )
    yield GaugeMetricFamily(
        "ingest_workers_busy", "Jobs processing now: threads holding a lease.", value=busy
    )


class DatabaseCollector(Collector):
    def collect(self) -> Iterator[GaugeMetricFamily]:
        yield _jobs()
        yield from _lanes()
        yield from _workers()
