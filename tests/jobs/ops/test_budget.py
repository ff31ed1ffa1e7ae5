"""The connection budget: what each process line holds, and PgBouncer's two pools, from the
process model (jobs/ops/budget.py, `manage.py connection_budget`)."""

import shutil
import tempfile
import threading
import time
from pathlib import Path

import psycopg
import pytest
from django.core.management import call_command
from django.db import connection

from jobs.ops.budget import RESERVED, budget, pgbouncer_databases
from tests.harness.pgbouncer import PgBouncer, pgbouncer_binary

CLUSTER = {
    "WEB_CONCURRENCY": "2",
    "WEB_THREADS": "8",
    "WEB_SMALL_THREADS": "4",
    "WORKER_FAST_THREADS": "4",
    "WORKER_BATCH_THREADS": "4",
    "WORKER_OCR_THREADS": "1",
    "WORKER_WEBHOOKS_THREADS": "4",
}


def test_each_line_holds_what_its_processes_and_threads_make():
    found = budget(web_hosts=2, worker_hosts=3, environ=CLUSTER)

    clients = {line.name: line.clients for line in found.lines}
    # A connection per thread that served a request, uploads' and small requests'.
    assert clients["web"] == 2 * 2 * (8 + 4)
    assert clients["ws"] == 2 * 4  # a ws process's row-reading threads
    assert clients["worker-fast"] == 3 * 4 * 2  # a job's thread and its lease keeper's
    assert clients["worker-webhooks"] == 3 * 4
    assert found.clients == sum(clients.values())
    assert found.max_connections(pooled=False) == found.clients + RESERVED


def test_the_pools_are_smaller_than_the_clients_and_each_covers_its_side():
    small = budget(web_hosts=1, worker_hosts=1, environ={"WEB_CONCURRENCY": "1"})
    large = budget(web_hosts=8, worker_hosts=20, environ=CLUSTER)

    for found in (small, large):
        web_side = sum(line.clients for line in found.lines if line.name in ("web", "ws"))
        job_threads = sum(
            line.processes * line.threads
            for line in found.lines
            if line.name.startswith("worker-") and line.name != "worker-webhooks"
        )
        assert 0 < found.web_pool <= web_side
        assert found.workers_pool > job_threads  # every job may be writing at once
        assert found.pooled < found.clients
    # More machines, more of each pool.
    assert large.web_pool > small.web_pool
    assert large.workers_pool > small.workers_pool


def test_the_command_prints_the_lines_the_pools_and_pgbouncers_databases(capsys):
    call_command("connection_budget", "--web-hosts", "2", "--worker-hosts", "3")

    printed = capsys.readouterr().out
    assert "worker-fast" in printed
    assert "[databases]" in printed
    assert "ingest_web = host=postgres port=5432 dbname=ingest pool_size=" in printed
    assert "WEB_DATABASE_URL=postgresql://USER:PASSWORD@pgbouncer:6432/ingest_web" in printed


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(pgbouncer_binary() is None, reason="pgbouncer is not installed")
def test_the_web_holding_its_whole_pool_leaves_the_workers_theirs():
    """Two pools of one server connection each: with the web's taken by a long transaction,
    a worker's query runs at once, while a second web transaction waits."""
    settings = connection.settings_dict
    name = settings["NAME"]
    workdir = Path(tempfile.mkdtemp(prefix="ingest-pgbouncer-"))
    workdir.chmod(0o755)  # pgbouncer runs as another user when we are root
    bouncer = PgBouncer(
        workdir,
        upstream_host=settings["HOST"],
        upstream_port=int(settings["PORT"] or 5432),
        pool_size=1,
        pools={"web_side": (name, 1)},
    ).start()
    try:
        holding = threading.Event()

        def web_transaction() -> None:
            with psycopg.connect(bouncer.url("web_side"), prepare_threshold=None) as conn:
                conn.execute("SELECT 1")  # in a transaction: the pool's one connection
                holding.set()
                time.sleep(3)

        holder = threading.Thread(target=web_transaction)
        holder.start()
        assert holding.wait(10)

        began = time.monotonic()
        with psycopg.connect(bouncer.url(name), prepare_threshold=None) as worker:
            assert worker.execute("SELECT 2").fetchone() == (2,)
        workers_wait = time.monotonic() - began
        began = time.monotonic()
        with psycopg.connect(bouncer.url("web_side"), prepare_threshold=None) as web:
            web.execute("SELECT 3")
        webs_wait = time.monotonic() - began
        holder.join()

        assert webs_wait > 1.0  # it waited for the web's one server connection
        assert workers_wait < webs_wait  # the workers' own was free all along
    finally:
        bouncer.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def test_the_databases_snippet_names_both_pools():
    found = budget(web_hosts=1, worker_hosts=1, environ={})

    lines = pgbouncer_databases(found, postgres="db.internal", database="docs").splitlines()

    assert lines == [
        "[databases]",
        f"docs_web = host=db.internal dbname=docs pool_size={found.web_pool}",
        f"docs = host=db.internal dbname=docs pool_size={found.workers_pool}",
    ]
