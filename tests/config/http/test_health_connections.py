"""/healthz opens no connection per call: probes every few seconds must not churn Postgres
and Redis connections. Asked of a real gunicorn (the Procfile's `web`), counted on the
servers themselves."""

import sys
import urllib.request
from collections.abc import Iterator

import pytest
import redis
from django.conf import settings
from django.db import connection

from config.tooling.embedded import free_port
from tests.harness.servers import WEB, ServerProcess, answers, web_environment

pytestmark = pytest.mark.django_db(transaction=True)

CALLS = 30


@pytest.fixture
def web(tmp_path) -> Iterator[str]:
    port = free_port()
    # One thread in each of the web process's pools: /healthz, a small request, is always
    # answered on the same thread, whose one database connection is the only one the
    # server may hold.
    env = {**web_environment(port, threads=1), "WEB_SMALL_THREADS": "1"}
    base_url = f"http://127.0.0.1:{port}"
    server = ServerProcess(
        "web",
        [sys.executable, *WEB],
        env,
        tmp_path,
        lambda _: answers(f"{base_url}/healthz"),
    ).start()
    try:
        yield base_url
    finally:
        server.stop()


def healthz(base_url: str) -> int:
    with urllib.request.urlopen(f"{base_url}/healthz", timeout=5) as answer:
        return answer.status


def postgres_backends() -> set[tuple[int, object]]:
    """The server's client sessions other than this test's own."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid, backend_start FROM pg_stat_activity"
            " WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()"
        )
        return set(cursor.fetchall())


def redis_connections_received(client: redis.Redis) -> int:
    return int(client.info("stats")["total_connections_received"])


def test_repeated_healthz_calls_open_no_new_connections(web):
    counter = redis.Redis.from_url(settings.REDIS_URL)
    assert healthz(web) == 200  # the first call may connect; later ones must not
    backends = postgres_backends()
    received = redis_connections_received(counter)

    statuses = {healthz(web) for _ in range(CALLS)}

    assert statuses == {200}
    assert postgres_backends() == backends
    # This test's own INFO call is not counted: its client keeps its connection.
    assert redis_connections_received(counter) == received
    counter.close()
