import socket
import threading
import time
import uuid

import pytest
import redis
from django.conf import settings

from search.embedding.ratelimit import RateLimiter, estimate_tokens
from search.pipeline.errors import RateLimited, TransientError


@pytest.fixture
def name() -> str:
    """A limit of its own for each test, so no state carries over."""
    return f"test-{uuid.uuid4()}"


def limiter(name: str, *, rpm=1_000_000, tpm=100_000_000, max_wait=10.0, url=None) -> RateLimiter:
    """A limiter on its own Redis connection, as another worker process would have."""
    client = redis.Redis.from_url(url or settings.REDIS_URL, socket_connect_timeout=1)
    return RateLimiter(client, name=name, rpm=rpm, tpm=tpm, max_wait=max_wait)


def timed(function, *args) -> float:
    started = time.monotonic()
    function(*args)
    return time.monotonic() - started


def test_concurrent_callers_are_paced_to_the_requests_per_minute(name):
    # 120 a minute: a bucket of 2 (one second's worth), then one every 0.5 s.
    started = time.monotonic()
    offsets: list[float] = []

    def call() -> None:
        limiter(name, rpm=120).acquire(tokens=1)
        offsets.append(time.monotonic() - started)

    threads = [threading.Thread(target=call) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    expected = [0.0, 0.0, 0.5, 1.0, 1.5, 2.0]
    assert sorted(offsets) == pytest.approx(expected, abs=0.2)


def test_limiters_on_separate_connections_share_one_budget(name):
    first, second = limiter(name, rpm=60), limiter(name, rpm=60)

    assert timed(first.acquire, 1) < 0.2
    assert 0.8 < timed(second.acquire, 1) < 1.3


def test_a_wait_past_the_maximum_raises_rate_limited_and_reserves_nothing(name):
    paced = limiter(name, rpm=60, max_wait=0.3)
    paced.acquire(tokens=1)

    with pytest.raises(RateLimited) as caught:
        paced.acquire(tokens=1)

    assert 0.7 < caught.value.retry_after <= 1.0
    time.sleep(caught.value.retry_after)
    assert timed(paced.acquire, 1) < 0.2  # the refused call took no slot


def test_tokens_per_minute_pace_calls_by_their_size(name):
    # 600 tokens a minute: a bucket of 10 tokens, refilled at 10 a second.
    paced = limiter(name, tpm=600)

    assert timed(paced.acquire, 10) < 0.2
    assert 0.35 < timed(paced.acquire, 5) < 0.8


def test_a_call_larger_than_the_bucket_goes_and_the_next_ones_pay_for_it(name):
    paced = limiter(name, tpm=600, max_wait=0.5)

    assert timed(paced.acquire, 30) < 0.2  # three seconds' worth, on a full bucket

    with pytest.raises(RateLimited) as caught:
        paced.acquire(tokens=1)
    assert 1.9 < caught.value.retry_after <= 2.1


def test_a_cool_down_makes_every_process_wait(name):
    limiter(name).cool_down(0.6)

    assert 0.45 < timed(limiter(name).acquire, 1) < 1.0


def test_a_cool_down_is_never_shortened(name):
    limiter(name).cool_down(5)
    limiter(name).cool_down(0.1)

    with pytest.raises(RateLimited) as caught:
        limiter(name, max_wait=1).acquire(tokens=1)

    assert 4.5 < caught.value.retry_after <= 5


def test_clear_forgets_pacing_and_cool_down(name):
    paced = limiter(name, rpm=60, max_wait=0)
    paced.acquire(tokens=1)
    paced.cool_down(30)

    paced.clear()

    assert timed(paced.acquire, 1) < 0.2


def test_a_redis_failure_is_a_transient_connection_error(name):
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    unreachable = limiter(name, url=f"redis://127.0.0.1:{port}/0")

    with pytest.raises(TransientError) as caught:
        unreachable.acquire(tokens=1)

    assert caught.value.code == "connection"


def test_tokens_are_estimated_at_four_characters_each_and_at_least_one_per_text():
    assert estimate_tokens(["x" * 400, "y" * 10, ""]) == 100 + 3 + 1
