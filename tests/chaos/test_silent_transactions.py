"""A worker that falls silent inside a transaction (its machine cut off the network, or
frozen) does not keep its job's row locked: Postgres ends the transaction after
DATABASE_IDLE_TRANSACTION_SECONDS, or PgBouncer does after its idle_transaction_timeout,
so the job can be taken over once its lease runs out, without waiting for the link.

A real process locks a job's row the way a batch of chunks does and then sends nothing;
the test waits until it can lock the row itself.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from django.core.checks import run_checks
from django.db import connection

from tests.chaos.conftest import database_url
from tests.factories import make_document
from tests.harness.manage import ROOT
from tests.harness.pgbouncer import PgBouncer, pgbouncer_binary

pytestmark = pytest.mark.django_db(transaction=True)

SILENT_FOR = 120  # seconds the locker sleeps inside its transaction: far past any check
LOCKER = """
import os, sys, time
import django
django.setup()
from django.db import transaction
from jobs.models import Job
with transaction.atomic():
    Job.objects.select_for_update().get(id=sys.argv[1])
    print("locked", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def _direct_url() -> str:
    return database_url()


def _lock_silently(job_id: str, env: dict[str, str]) -> subprocess.Popen:
    locker = subprocess.Popen(
        [sys.executable, "-c", LOCKER, job_id, str(SILENT_FOR)],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert locker.stdout is not None
    line = locker.stdout.readline()
    assert line.strip() == "locked", line + locker.stdout.read()
    return locker


def _seconds_until_lockable(job_id: str, url: str, limit: float = 60.0) -> float:
    """How long until this test can lock the row itself (NOWAIT, tried every 0.2 s)."""
    began = time.monotonic()
    with psycopg.connect(url) as conn:
        while time.monotonic() - began < limit:
            try:
                conn.execute("SELECT 1 FROM jobs_job WHERE id = %s FOR UPDATE NOWAIT", [job_id])
                conn.rollback()
                return time.monotonic() - began
            except psycopg.errors.LockNotAvailable:
                conn.rollback()
                time.sleep(0.2)
    raise AssertionError(f"the row stayed locked for {limit:.0f} s")


@pytest.fixture
def job_id(alice) -> str:
    return str(make_document(alice).current_job.id)


def test_postgres_ends_a_silent_workers_transaction_and_frees_its_row(job_id):
    locker = _lock_silently(
        job_id, {"DATABASE_URL": _direct_url(), "DATABASE_IDLE_TRANSACTION_SECONDS": "1"}
    )
    try:
        waited = _seconds_until_lockable(job_id, _direct_url())
        assert locker.poll() is None  # still asleep in its transaction: Postgres ended it
    finally:
        locker.kill()
        locker.wait(10)
    assert waited < SILENT_FOR


def test_without_the_timeout_the_silent_transaction_holds_the_row(job_id):
    locker = _lock_silently(
        job_id, {"DATABASE_URL": _direct_url(), "DATABASE_IDLE_TRANSACTION_SECONDS": "0"}
    )
    try:
        with pytest.raises(AssertionError, match="stayed locked"):
            _seconds_until_lockable(job_id, _direct_url(), limit=5.0)
    finally:
        locker.kill()
        locker.wait(10)


@pytest.fixture
def pgbouncer() -> Iterator[PgBouncer]:
    if pgbouncer_binary() is None:
        pytest.skip("pgbouncer is not installed (make pgbouncer)")
    params = connection.get_connection_params()
    workdir = Path(tempfile.mkdtemp(prefix="ingest-pgbouncer-"))
    workdir.chmod(0o755)  # pgbouncer runs as another user when we are root
    bouncer = PgBouncer(
        workdir,
        upstream_host=params.get("host") or "localhost",
        upstream_port=int(params.get("port") or 5432),
        pool_size=2,
        idle_transaction_timeout=1,
    ).start()
    yield bouncer
    bouncer.stop()
    shutil.rmtree(workdir, ignore_errors=True)


def test_pgbouncer_ends_a_silent_workers_transaction_and_frees_its_row(job_id, pgbouncer):
    pooled = {
        "DATABASE_URL": pgbouncer.url(connection.settings_dict["NAME"]),
        "DATABASE_POOL_MODE": "transaction",
    }
    locker = _lock_silently(job_id, pooled)
    try:
        _seconds_until_lockable(job_id, _direct_url())
        assert locker.poll() is None
    finally:
        locker.kill()
        locker.wait(10)


def test_a_timeout_not_below_the_lease_is_warned_of(settings):
    settings.DATABASE_POOL_MODE = "session"
    settings.DATABASE_IDLE_TRANSACTION_SECONDS = settings.INGEST_LEASE_SECONDS
    assert "jobs.W001" in [message.id for message in run_checks()]
    settings.DATABASE_IDLE_TRANSACTION_SECONDS = settings.INGEST_LEASE_SECONDS - 1
    assert "jobs.W001" not in [message.id for message in run_checks()]


def test_the_service_asks_postgres_for_the_timeout():
    with connection.cursor() as cursor:
        cursor.execute("SHOW idle_in_transaction_session_timeout")
        shown = cursor.fetchone()[0]
    assert shown == f"{settings.DATABASE_IDLE_TRANSACTION_SECONDS}s"
