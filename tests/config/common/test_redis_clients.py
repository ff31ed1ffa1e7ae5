"""config.common.redis_clients: one client per process for each set of needs, and the only place
the product makes one."""

import re
import time
from pathlib import Path

import pytest
import redis
from django.conf import settings

from config.common import redis_clients
from config.tooling import embedded

ROOT = Path(__file__).resolve().parents[3]
PRODUCT = ("config", "documents", "jobs", "search")
MAKES_A_CLIENT = re.compile(r"Redis\(|from_url\(|ConnectionPool\b")


def test_callers_that_ask_alike_share_one_client_and_others_get_their_own():
    first = redis_clients.client(settings.REDIS_URL, connect_timeout=1, timeout=1)
    again = redis_clients.client(settings.REDIS_URL, connect_timeout=1, timeout=1)
    slower = redis_clients.client(settings.REDIS_URL, connect_timeout=1, timeout=2)

    assert first is again
    assert slower is not first
    assert first.connection_pool.connection_kwargs["socket_timeout"] == 1
    assert slower.connection_pool.connection_kwargs["socket_timeout"] == 2
    assert first.ping()
    assert slower.ping()


def test_decoded_answers_are_strings_when_asked_for():
    raw = redis_clients.client(settings.REDIS_URL, connect_timeout=1, timeout=1)
    decoded = redis_clients.client(
        settings.REDIS_URL, connect_timeout=1, timeout=1, decode_responses=True
    )
    raw.set("ingest:test:redis-clients", "value", ex=10)

    assert raw.get("ingest:test:redis-clients") == b"value"
    assert decoded.get("ingest:test:redis-clients") == "value"


def test_a_full_waiting_pool_waits_its_timeout_then_fails_instead_of_opening_more():
    client = redis_clients.client(
        settings.REDIS_URL, connect_timeout=1, timeout=1, max_connections=1, pool_timeout=0.3
    )
    held = client.connection_pool.get_connection()
    try:
        started = time.monotonic()
        with pytest.raises(redis.ConnectionError):
            client.ping()
        waited = time.monotonic() - started
    finally:
        client.connection_pool.release(held)

    assert 0.25 <= waited < 2
    assert client.ping(), "answers again once the connection is back"


def test_the_url_of_a_never_started_embedded_redis_fails_at_once(tmp_path):
    url = embedded.redis_url(tmp_path / "redis")
    client = redis_clients.client(url, connect_timeout=1, timeout=1, retries=0)

    started = time.monotonic()
    with pytest.raises(redis.ConnectionError, match=r"not-started\.sock"):
        client.ping()

    assert time.monotonic() - started < 5
    assert not (tmp_path / "redis").exists()


def test_no_other_product_module_makes_a_redis_client():
    makers = [
        str(path.relative_to(ROOT))
        for package in PRODUCT
        for path in (ROOT / package).rglob("*.py")
        if "migrations" not in path.parts and MAKES_A_CLIENT.search(path.read_text())
    ]

    assert makers == ["config/common/redis_clients.py"]
