"""Settings read from the environment fail with config.common.env's message, not a raw
ValueError."""

import os
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

from config.common.env import ConfigurationError

ROOT = Path(__file__).resolve().parents[3]
GUNICORN_CONF = ROOT / "config" / "gunicorn.py"


def gunicorn_settings(monkeypatch, **env: str) -> dict:
    """config/gunicorn.py loaded by path, as gunicorn loads it."""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(GUNICORN_CONF))


PROXY_VARIABLES = ("INGEST_TRUSTED_PROXIES", "INGEST_TRUST_X_FORWARDED_PROTO")


def test_gunicorn_defaults(monkeypatch):
    names = ("HOST", "PORT", "WEB_CONCURRENCY", "WEB_THREADS", "WEB_SMALL_THREADS")
    for name in (*names, "WEB_ACCESS_LOG"):
        monkeypatch.delenv(name, raising=False)
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)

    conf = gunicorn_settings(monkeypatch)

    assert (conf["bind"], conf["workers"], conf["threads"]) == ("127.0.0.1:8000", 2, 8)
    assert conf["worker_class"] == "config.http.gthread.UploadsApartWorker"
    assert conf["small_threads"] == 4  # each process's pool for requests that are not uploads
    assert conf["accesslog"] is None
    # Forwarded headers believed from no one (gunicorn's own default: 127.0.0.1 and ::1).
    assert (conf["forwarded_allow_ips"], conf["secure_scheme_headers"]) == ("", {})


def test_gunicorn_believes_the_proxies_django_believes(monkeypatch):
    conf = gunicorn_settings(
        monkeypatch,
        INGEST_TRUSTED_PROXIES="10.0.0.7/8, 127.0.0.1, ::1",
        INGEST_TRUST_X_FORWARDED_PROTO="true",
    )

    assert conf["forwarded_allow_ips"] == "10.0.0.0/8,127.0.0.1/32,::1/128"
    assert conf["secure_scheme_headers"] == {"X-FORWARDED-PROTO": "https"}


def test_gunicorn_reads_its_environment(monkeypatch):
    conf = gunicorn_settings(
        monkeypatch, HOST="0.0.0.0", PORT="9000", WEB_CONCURRENCY="3", WEB_THREADS="4",
        WEB_ACCESS_LOG="1",
    )  # fmt: skip

    assert (conf["bind"], conf["workers"], conf["threads"]) == ("0.0.0.0:9000", 3, 4)
    assert conf["accesslog"] == "-"


def test_a_bad_web_concurrency_fails_with_a_clear_message(monkeypatch):
    with pytest.raises(
        ConfigurationError, match="WEB_CONCURRENCY must be a whole number, got 'many'"
    ):
        gunicorn_settings(monkeypatch, WEB_CONCURRENCY="many")


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("WEB_CONCURRENCY", "0", "WEB_CONCURRENCY must be at least 1, got 0"),
        ("WEB_THREADS", "eight", "WEB_THREADS must be a whole number, got 'eight'"),
        ("WEB_SMALL_THREADS", "-1", "WEB_SMALL_THREADS must be at least 0, got -1"),
        ("PORT", "http", "PORT must be a whole number, got 'http'"),
        ("INGEST_TRUSTED_PROXIES", "proxy", "INGEST_TRUSTED_PROXIES must list addresses"),
    ],
)
def test_other_bad_gunicorn_settings_fail_with_a_clear_message(monkeypatch, name, value, message):
    with pytest.raises(ConfigurationError, match=message):
        gunicorn_settings(monkeypatch, **{name: value})


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("many", "web: WEB_CONCURRENCY must be a whole number, got 'many'"),
        ("0", "web: WEB_CONCURRENCY must be at least 1, got 0"),
    ],
)
def test_the_web_process_stops_on_a_bad_web_concurrency_with_one_line(value, message):
    # gunicorn itself reads WEB_CONCURRENCY with a bare int() on import; config.web checks first.
    done = subprocess.run(
        [sys.executable, "-m", "config.web"],
        cwd=ROOT,
        env={**os.environ, "WEB_CONCURRENCY": value, "PORT": "0"},
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert done.returncode == 1
    assert done.stderr.strip() == message


def import_settings(**env: str) -> subprocess.CompletedProcess:
    """Import config.settings in a fresh interpreter; the URLs keep it from starting services."""
    env = {
        **os.environ,
        "DATABASE_URL": "postgresql://nobody@127.0.0.1:1/none",
        "REDIS_URL": "redis://127.0.0.1:1/0",
        **env,
    }
    return subprocess.run(
        [sys.executable, "-c", "import config.settings"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )


def test_a_bad_log_level_fails_with_a_clear_message():
    done = import_settings(LOG_LEVEL="LOUD")

    assert done.returncode != 0
    assert "ConfigurationError: LOG_LEVEL must be one of" in done.stderr
    assert "got 'LOUD'" in done.stderr


def test_a_log_level_logging_knows_is_accepted():
    done = import_settings(LOG_LEVEL="WARNING")

    assert done.returncode == 0, done.stderr
