"""What the embedding provider said and how long the shared limiter made us wait.

Counted twice, for two readers: Prometheus counters (config.metrics, added up across
processes by /metrics) and per-minute totals in Redis, which the sweeper folds into the
ops dashboard's history (jobs.ops.history) whichever machine the workers run on. The Redis
side is best effort: a failed write costs a dashboard point, never a job.
"""

import logging
from datetime import UTC, datetime, timedelta

import redis
from django.conf import settings

from config import metrics, redis_clients

log = logging.getLogger(__name__)

KEEP_SECONDS = 2 * 24 * 3600  # the sweeper reads the last few minutes; a day off is fine
_RATE_LIMITED, _WAIT_MS = "rate_limited", "wait_ms"


def _key(minute: datetime) -> str:
    return f"ingest:ops:embed:{minute:%Y%m%d%H%M}"


def _minute(when: datetime) -> datetime:
    return when.astimezone(UTC).replace(second=0, microsecond=0)


def _client(url: str) -> redis.Redis:
    return redis_clients.client(url, connect_timeout=1, timeout=2)


def _add(field: str, amount: int) -> None:
    key = _key(_minute(datetime.now(UTC)))
    try:
        pipe = _client(settings.REDIS_URL).pipeline()
        pipe.hincrby(key, field, amount)
        pipe.expire(key, KEEP_SECONDS)
        pipe.execute()
    except redis.RedisError:
        log.info("could not add to the embedding minute %s", key, exc_info=True)


def note_request(outcome: str) -> None:
    """One call to the provider ended: `ok`, `rate_limited` (HTTP 429) or `error`."""
    metrics.EMBEDDING_REQUESTS.labels(outcome=outcome).inc()
    if outcome == "rate_limited":
        _add(_RATE_LIMITED, 1)


def note_wait(seconds: float) -> None:
    """Time a call spent waiting for its turn on the shared rate limiter."""
    if seconds <= 0:
        return
    metrics.EMBEDDING_WAIT.inc(seconds)
    _add(_WAIT_MS, round(seconds * 1000))


def read_minutes(start: datetime, end: datetime) -> dict[datetime, tuple[int, float]]:
    """(429 answers, seconds waited) per UTC minute start in [start, end), minutes with
    neither left out; empty when Redis does not answer."""
    minutes = []
    minute = _minute(start)
    while minute < end:
        minutes.append(minute)
        minute += timedelta(minutes=1)
    if not minutes:
        return {}
    try:
        pipe = _client(settings.REDIS_URL).pipeline()
        for minute in minutes:
            pipe.hmget(_key(minute), _RATE_LIMITED, _WAIT_MS)
        answers = pipe.execute()
    except redis.RedisError:
        log.info("could not read the embedding minutes", exc_info=True)
        return {}
    found = {}
    for minute, (limited, wait_ms) in zip(minutes, answers, strict=True):
        if limited is not None or wait_ms is not None:
            found[minute] = (int(limited or 0), int(wait_ms or 0) / 1000)
    return found
