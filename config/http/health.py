"""GET /healthz: 200 when the database and Redis answer, 503 otherwise.

Probes call it every few seconds, so it opens nothing per call: the database check runs on
the thread's Django connection (kept for DATABASE_CONN_MAX_AGE like any request's), and
Redis is asked through one client per process whose pool holds at most two connections. A
probe that waits for a free one, or for an answer, gives up after a second.
"""

import redis
from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse

from config.common import redis_clients

TIMEOUT_SECONDS = 1
POOL_SIZE = 2


def _database_ok() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return True
    except Exception:
        return False


def redis_client() -> redis.Redis:
    """This process's client for the check (made on first use, when settings are read)."""
    return redis_clients.client(
        settings.REDIS_URL,
        connect_timeout=TIMEOUT_SECONDS,
        timeout=TIMEOUT_SECONDS,
        max_connections=POOL_SIZE,
        pool_timeout=TIMEOUT_SECONDS,
        # One retry, at once: a pooled connection that a Redis restart cut fails once,
        # and the retry reconnects. redis-py's default (three, with backoff) would keep
        # a probe of a Redis that is down waiting for seconds.
        retries=1,
    )


def _redis_ok() -> bool:
    try:
        return bool(redis_client().ping())
    except Exception:
        return False


def healthz(request: HttpRequest) -> JsonResponse:
    checks = {"database": _database_ok(), "redis": _redis_ok()}
    healthy = all(checks.values())
    body = {"status": "ok" if healthy else "unavailable", "checks": checks}
    return JsonResponse(body, status=200 if healthy else 503)
