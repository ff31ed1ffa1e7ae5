"""The embedded default: with nothing configured, `manage.py embedded start` finds or starts
the services; the settings only point at them."""

import shutil
import tempfile
from pathlib import Path

import pytest

from config.tooling import embedded
from tests.config.commands import manage


def test_embedded_start_with_nothing_set_starts_the_services_once_and_reuses_them():
    # Not under pytest's basetemp: another pytest run on the machine may prune it.
    tmp_path = Path(tempfile.mkdtemp(prefix="ingest-embedded-"))
    try:
        first = manage("embedded", "start", data_dir=tmp_path)
        second = manage("embedded", "start", data_dir=tmp_path)

        assert "(embedded)" in first
        assert first == second, "the second command found the same servers"
        redis_port = int((tmp_path / "redis" / "port").read_text())
        assert embedded.redis_answers(redis_port)
        assert embedded.postgres_url(tmp_path / "pg") in first
    finally:
        stopped = manage("embedded", "stop", data_dir=tmp_path)
    shutil.rmtree(tmp_path, ignore_errors=True)
    assert "postgres: stopped" in stopped
    assert "redis: stopped" in stopped


def test_a_stopped_redis_is_started_again_on_the_same_port(tmp_path):
    url = embedded.ensure_redis(tmp_path)
    port = int((tmp_path / "port").read_text())
    try:
        embedded.stop_redis(tmp_path)
        assert not embedded.redis_answers(port)
        assert embedded.redis_url(tmp_path) == url, "the settings' URL stays the same"

        assert embedded.ensure_redis(tmp_path) == url
        assert embedded.redis_answers(port)
    finally:
        embedded.stop_redis(tmp_path)


def test_the_wheel_binary_serves_when_no_redis_server_is_on_path(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))

    binary = embedded.redis_binary()
    server = embedded.RedisServer(tmp_path / "redis").start()
    try:
        assert "valkey" in binary
        assert embedded.redis_answers(server.port)
    finally:
        server.stop()


def test_a_postgres_that_cannot_start_says_which_and_what_to_do(tmp_path):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")

    with pytest.raises(embedded.EmbeddedServiceError, match="DATABASE_URL"):
        embedded.start_postgres(blocker / "pg")


def test_a_data_directory_of_another_major_version_is_refused_with_what_to_do(tmp_path):
    old = tmp_path / "pg"
    old.mkdir()
    (old / "PG_VERSION").write_text("16\n")

    with pytest.raises(embedded.EmbeddedServiceError) as refused:
        embedded.start_postgres(old)

    assert "PostgreSQL 16 data directory" in str(refused.value)
    assert "pg_dump" in str(refused.value)
    assert sorted(p.name for p in old.iterdir()) == ["PG_VERSION"], "nothing was touched"


def test_a_restarted_postgres_answers_again_on_the_same_url(tmp_path):
    import psycopg

    server = embedded.start_postgres(tmp_path / "pg", cleanup_mode="delete")
    try:
        url = server.get_uri()
        with psycopg.connect(url) as before:
            pid_before = before.info.backend_pid
            embedded.restart_postgres(tmp_path / "pg")
            with pytest.raises(psycopg.OperationalError):
                before.execute("SELECT 1")  # the restart ended every session

        with psycopg.connect(url) as after:
            assert after.execute("SELECT 1").fetchone() == (1,)
            assert after.info.backend_pid != pid_before
    finally:
        server.cleanup()
