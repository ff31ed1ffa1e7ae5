"""`manage.py embedded status` and `stop` look at the embedded services and start nothing."""

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from config.tooling import embedded
from tests.config.commands import manage


@pytest.fixture
def data_dir() -> Iterator[Path]:
    # Not under pytest's basetemp: another pytest run on the machine may prune it.
    path = Path(tempfile.mkdtemp(prefix="ingest-status-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_status_of_stopped_services_says_stopped_and_starts_nothing(data_dir):
    status = manage("embedded", "status", data_dir=data_dir)

    assert f"postgres: stopped (embedded, data in {data_dir / 'pg'})" in status
    assert f"redis: stopped (embedded, data in {data_dir / 'redis'})" in status
    assert not (data_dir / "pg" / "postmaster.pid").exists()
    assert not (data_dir / "redis" / "port").exists()


def test_stop_with_nothing_running_says_so_and_starts_nothing(data_dir):
    stopped = manage("embedded", "stop", data_dir=data_dir)

    assert stopped.splitlines() == ["postgres: not running", "redis: not running"]
    assert not (data_dir / "pg" / "postmaster.pid").exists()
    assert not (data_dir / "redis" / "port").exists()


def test_status_names_configured_services_without_their_password(data_dir):
    urls = {
        "DATABASE_URL": "postgresql://ingest:s3cret@db.example:5432/ingest",
        "REDIS_URL": "redis://:hunter2@cache.example:6379/0",
    }

    status = manage("embedded", "status", data_dir=data_dir, **urls)
    stopped = manage("embedded", "stop", data_dir=data_dir, **urls)

    assert "postgres: postgresql://ingest:***@db.example:5432/ingest (from DATABASE_URL)" in status
    assert "redis: redis://:***@cache.example:6379/0 (from REDIS_URL)" in status
    assert "s3cret" not in status + stopped
    assert "hunter2" not in status + stopped
    assert "postgres: not embedded (DATABASE_URL is set), left alone" in stopped


def test_status_reports_running_services_and_then_stopped_ones(data_dir):
    manage("embedded", "start", data_dir=data_dir)
    try:
        running = manage("embedded", "status", data_dir=data_dir)
        redis_port = int((data_dir / "redis" / "port").read_text())
        socket_dir, port = embedded._running_postmaster((data_dir / "pg").resolve())
    finally:
        stopped = manage("embedded", "stop", data_dir=data_dir)
    after = manage("embedded", "status", data_dir=data_dir)

    postgres_url = embedded.socket_url(socket_dir, port, embedded.DATABASE_NAME)
    assert f"postgres: running, {postgres_url} (embedded)" in running
    assert f"redis: running, redis://127.0.0.1:{redis_port}/0 (embedded)" in running
    assert stopped.splitlines() == ["postgres: stopped", "redis: stopped"]
    assert "postgres: stopped" in after
    assert "redis: stopped" in after
