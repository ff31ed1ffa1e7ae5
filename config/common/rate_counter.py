"""Per-user request limits: a fixed-window counter in Redis, one round trip a request,
shared by every web process (the upload throttle, documents.front_door.throttle; the search limit,
documents.api.search and search.search_box).

DRF's own throttles keep a pickled list of timestamps per user in the cache, read and
rewritten on every request; a counter (INCR + EXPIRE in one pipeline) is several times
cheaper and shared by every process the same way.
"""

import logging
import time
from typing import cast

import redis
from django.conf import settings
from rest_framework.throttling import SimpleRateThrottle

from config.common import redis_clients

log = logging.getLogger(__name__)


def _client(url: str) -> redis.Redis:
    return redis_clients.client(url, connect_timeout=1, timeout=1)


def parse_rate(rate: str) -> tuple[int, int]:
    """(requests, seconds) of a rate such as "120/min", read by DRF's own parser.

    SimpleRateThrottle.parse_rate never uses its instance (and building one needs a
    configured scope), so it is called on the class with none.
    """
    allowed, period = SimpleRateThrottle.parse_rate(cast(SimpleRateThrottle, None), rate)
    # Both are None only for a None rate.
    assert allowed is not None
    assert period is not None
    return allowed, period


def count(*, scope: str, user_id: int, rate: str) -> float | None:
    """Count one request of the user's in `scope` against `rate` ("120/min"): None while
    within it, else the seconds until the next window lets one in. Costs one Redis round
    trip; while Redis is down every request is let through (and a warning logged)."""
    allowed, period = parse_rate(rate)
    now = time.time()
    window = int(now // period)
    key = f"ingest:throttle:{scope}:{user_id}:{window}"
    try:
        # One round trip: a pipeline buffers its commands until execute(). Without
        # MULTI/EXEC (two more commands to send and parse): should the EXPIRE be lost,
        # the key of a past window is only left without a TTL, never wrongly counted.
        pipe = _client(settings.REDIS_URL).pipeline(transaction=False)
        pipe.incr(key)
        pipe.expire(key, period + 1)
        counted, _ = pipe.execute()
    except redis.RedisError:
        log.warning("%s limit unavailable; letting the request through", scope, exc_info=True)
        return None
    return None if counted <= allowed else period - (now % period)


def count_search(*, user_id: int) -> float | None:
    """One search of the user's against INGEST_SEARCH_THROTTLE_RATE."""
    return count(scope="searches", user_id=user_id, rate=settings.INGEST_SEARCH_THROTTLE_RATE)
