"""The one way the service makes its Redis clients (Dramatiq's broker and the channel
layer make their own, from the settings).

A client is made once per process for each URL and set of arguments, then kept: callers
that ask alike share its connection pool (redis-py's pools are thread-safe and start
afresh in a forked child). Each caller says what it needs, so a slow or absent Redis costs
it what it can afford: how long to wait to connect and for an answer, decoded strings or
bytes, and for a caller that must never pile up connections, a small pool that waits for
a free one instead of opening more.
"""

import functools

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry


@functools.lru_cache(maxsize=32)
def client(
    url: str,
    *,
    connect_timeout: float,
    timeout: float,
    decode_responses: bool = False,
    max_connections: int | None = None,
    pool_timeout: float | None = None,
    retries: int | None = None,
) -> redis.Redis:
    """This process's client for `url` with these arguments (made on first use).

    `connect_timeout`, `timeout`: seconds to connect, and to wait for each answer.
    `max_connections`: the pool's limit (None: redis-py's, which is practically none);
    with `pool_timeout`, a caller past it waits that long for a free connection, then
    fails, instead of being refused at once. `retries`: how many times a command that
    met a broken connection is tried again at once (a Redis restart cuts pooled ones);
    None keeps redis-py's retries with backoff.
    """
    options: dict[str, object] = {
        "socket_connect_timeout": connect_timeout,
        "socket_timeout": timeout,
        "decode_responses": decode_responses,
    }
    if max_connections is not None:
        options["max_connections"] = max_connections
    if retries is not None:
        options["retry"] = Retry(NoBackoff(), retries)
    if pool_timeout is None:
        return redis.Redis.from_url(url, **options)
    pool = redis.BlockingConnectionPool.from_url(url, timeout=pool_timeout, **options)
    return redis.Redis(connection_pool=pool)
