"""GET /healthz: 200 when the database and Redis answer, 503 otherwise."""

import redis
from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse


def _database_ok() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return True
    except Exception:
        return False


def _redis_ok() -> bool:
    try:
        client = redis.Redis.from_url(
            settings.REDIS_URL, socket_timeout=1, socket_connect_timeout=1
        )
        try:
            return bool(client.ping())
        finally:
            client.close()
    except Exception:
        return False


def healthz(request: HttpRequest) -> JsonResponse:
    checks = {"database": _database_ok(), "redis": _redis_ok()}
    healthy = all(checks.values())
    body = {"status": "ok" if healthy else "unavailable", "checks": checks}
    return JsonResponse(body, status=200 if healthy else 503)
