"""Per-minute totals in Redis, one hash a UTC minute (`<prefix>:<YYYYmmddHHMM>`), that any
process adds to and the ops dashboard reads, whichever machine each runs on. Best effort: a
failed write costs a dashboard point, never a job or a search."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta

import redis
from django.conf import settings

from config.common import redis_clients

log = logging.getLogger(__name__)

KEEP_SECONDS = 2 * 24 * 3600  # the readers look at the last day at most


def minute_of(when: datetime) -> datetime:
    return when.astimezone(UTC).replace(second=0, microsecond=0)


def _key(prefix: str, minute: datetime) -> str:
    return f"{prefix}:{minute:%Y%m%d%H%M}"


def _client() -> redis.Redis:
    # No retries with backoff: a search notes its figures here, and must not wait out a
    # Redis restart for a dashboard point.
    return redis_clients.client(settings.REDIS_URL, connect_timeout=1, timeout=2, retries=0)


def add(prefix: str, amounts: Mapping[str, int]) -> None:
    """Add `amounts` (field: how much) to this minute's hash."""
    key = _key(prefix, minute_of(datetime.now(UTC)))
    try:
        pipe = _client().pipeline()
        for name, amount in amounts.items():
            pipe.hincrby(key, name, amount)
        pipe.expire(key, KEEP_SECONDS)
        pipe.execute()
    except redis.RedisError:
        log.info("could not add to the minute %s", key, exc_info=True)


def read(
    prefix: str, start: datetime, end: datetime, names: Sequence[str] | None = None
) -> dict[datetime, dict[str, int]]:
    """Each UTC minute start in [start, end) with its fields (`names`, or all), minutes
    without any left out; empty when Redis does not answer."""
    minutes = []
    minute = minute_of(start)
    while minute < end:
        minutes.append(minute)
        minute += timedelta(minutes=1)
    if not minutes:
        return {}
    try:
        pipe = _client().pipeline()
        for minute in minutes:
            if names is None:
                pipe.hgetall(_key(prefix, minute))
            else:
                pipe.hmget(_key(prefix, minute), list(names))
        answers = pipe.execute()
    except redis.RedisError:
        log.info("could not read the minutes of %s", prefix, exc_info=True)
        return {}
    found: dict[datetime, dict[str, int]] = {}
    for minute, answer in zip(minutes, answers, strict=True):
        if names is None:
            fields = {k.decode() if isinstance(k, bytes) else k: int(v) for k, v in answer.items()}
        else:
            fields = {n: int(v) for n, v in zip(names, answer, strict=True) if v is not None}
        if fields:
            found[minute] = fields
    return found
