"""At most INGEST_WS_MAX_PER_USER status sockets per user, counted across `ws` processes.

One sorted set per user in Redis: a member per open socket (its channel name), scored by
when its lease ends. A socket takes a slot when it connects, renews its lease at each
session check (documents/page/socket/consumer.py) and gives the slot back when it disconnects; the
slots of a process that died without giving them back free themselves when their leases
end, and the whole set expires with its last lease. Times are Redis's own (TIME), so the
processes' clocks need not agree.

Like the upload throttle, an outage lets sockets through: the pushes need Redis anyway,
and the page polls while its socket is down.
"""

import logging
import math

import redis
from django.conf import settings

from config.common import redis_clients

log = logging.getLogger(__name__)

# Drop ended leases, then take (or renew) the member's slot unless the set is full.
_TAKE = """
local now = redis.call('TIME')
local t = tonumber(now[1]) + tonumber(now[2]) / 1000000
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', t)
if not redis.call('ZSCORE', KEYS[1], ARGV[1])
    and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], t + tonumber(ARGV[3]), ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[4])
return 1
"""


def _client(url: str) -> redis.Redis:
    return redis_clients.client(url, connect_timeout=1, timeout=1)


def _key(user_id: int) -> str:
    return f"ingest:ws:sockets:{user_id}"


def lease_seconds() -> float:
    """Three session checks long: a live socket renews well before its lease ends."""
    return max(3 * settings.INGEST_WS_SESSION_CHECK_SECONDS, 1.0)


def take(user_id: int, socket_id: str) -> bool:
    """Take (or renew) `socket_id`'s slot; False when the user's slots are all taken."""
    lease = lease_seconds()
    try:
        taken = _client(settings.REDIS_URL).eval(
            _TAKE,
            1,
            _key(user_id),
            socket_id,
            settings.INGEST_WS_MAX_PER_USER,
            lease,
            math.ceil(lease),
        )
    except redis.RedisError:
        log.warning("socket slots unavailable; letting the socket through", exc_info=True)
        return True
    return bool(taken)


def release(user_id: int, socket_id: str) -> None:
    try:
        _client(settings.REDIS_URL).zrem(_key(user_id), socket_id)
    except redis.RedisError:
        # Its lease ends it soon enough.
        log.warning("could not give back a socket slot", exc_info=True)


def taken(user_id: int) -> int:
    """How many of the user's slots are taken (leases not yet ended): for tests, ops."""
    client = _client(settings.REDIS_URL)
    seconds, micros = client.time()
    return int(client.zcount(_key(user_id), f"({seconds + micros / 1e6}", "+inf"))
