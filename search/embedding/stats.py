"""What the embedding provider said and how long the shared limiter made us wait.

Counted twice, for two readers: Prometheus counters (config.common.metrics, added up across
processes by /metrics) and per-minute totals in Redis, which the sweeper folds into the
ops dashboard's history (jobs.ops.dashboard.history) whichever machine the workers run on.
The Redis side is best effort: a failed write costs a dashboard point, never a job.
"""

from datetime import datetime

from config.common import metrics
from search import minute_totals

PREFIX = "ingest:ops:embed"
_RATE_LIMITED, _WAIT_MS = "rate_limited", "wait_ms"


def note_request(outcome: str) -> None:
    """One call to the provider ended: `ok`, `rate_limited` (HTTP 429) or `error`."""
    metrics.EMBEDDING_REQUESTS.labels(outcome=outcome).inc()
    if outcome == "rate_limited":
        minute_totals.add(PREFIX, {_RATE_LIMITED: 1})


def note_wait(seconds: float) -> None:
    """Time a call spent waiting for its turn on the shared rate limiter."""
    if seconds <= 0:
        return
    metrics.EMBEDDING_WAIT.inc(seconds)
    minute_totals.add(PREFIX, {_WAIT_MS: round(seconds * 1000)})


def read_minutes(start: datetime, end: datetime) -> dict[datetime, tuple[int, float]]:
    """(429 answers, seconds waited) per UTC minute start in [start, end), minutes with
    neither left out; empty when Redis does not answer."""
    found = minute_totals.read(PREFIX, start, end, [_RATE_LIMITED, _WAIT_MS])
    return {
        minute: (fields.get(_RATE_LIMITED, 0), fields.get(_WAIT_MS, 0) / 1000)
        for minute, fields in found.items()
    }
