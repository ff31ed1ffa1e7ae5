"""How searches went: their time by mode and how many were degraded, for /metrics and /ops/.

Counted twice, like the embedding figures (search/embedding/stats.py): Prometheus (config.
metrics: `ingest_search_seconds{mode}`, `ingest_searches{mode,outcome}`) and per-minute totals
in Redis (search/minute_totals.py), which the ops dashboard reads for its last hour whatever process
or machine answered the searches. The minute holds, per mode, the count, the degraded and
empty answers, and how many took at most each of BUCKETS_MS, so percentiles can be read
back to a bucket's bound. Calls to the rerank service are counted in Prometheus only
(`ingest_search_reranks{outcome}`): an alert on its failures needs no dashboard.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from datetime import datetime, timedelta

from config.common import metrics
from search import minute_totals

PREFIX = "ingest:ops:search"
BUCKETS_MS = (5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000)
RESULTS, NO_RESULTS, DEGRADED = "results", "no_results", "degraded"


def note(mode: str, seconds: float, *, degraded: bool, results: int) -> None:
    """One search answered."""
    outcome = DEGRADED if degraded else (RESULTS if results else NO_RESULTS)
    metrics.SEARCH_SECONDS.labels(mode=mode).observe(seconds)
    metrics.SEARCHES.labels(mode=mode, outcome=outcome).inc()
    at = bisect.bisect_left(BUCKETS_MS, seconds * 1000)
    bucket = str(BUCKETS_MS[at]) if at < len(BUCKETS_MS) else "inf"
    minute_totals.add(PREFIX, {f"{mode}:n": 1, f"{mode}:{outcome}": 1, f"{mode}:le:{bucket}": 1})


def note_rerank(outcome: str) -> None:
    """One call to the rerank service: `reranked`, or why its order was not used."""
    metrics.SEARCH_RERANKS.labels(outcome=outcome).inc()


@dataclass(frozen=True)
class ModeFigures:
    mode: str
    searches: int
    degraded: int
    no_results: int
    p50_ms: float | None  # a bucket's upper bound (None without searches; inf past the last)
    p95_ms: float | None


def _bound(counts: dict[str, int], total: int, share: float) -> float | None:
    if not total:
        return None
    wanted, seen = share * total, 0
    for bound in [*map(str, BUCKETS_MS), "inf"]:
        seen += counts.get(bound, 0)
        if seen >= wanted:
            return float(bound)
    return float("inf")


def recent(modes: tuple[str, ...], now: datetime, span: timedelta) -> list[ModeFigures]:
    """Each mode's searches in the `span` before `now`."""
    totals: dict[str, int] = {}
    for fields in minute_totals.read(PREFIX, now - span, now + timedelta(minutes=1)).values():
        for name, value in fields.items():
            totals[name] = totals.get(name, 0) + value
    figures = []
    for mode in modes:
        count = totals.get(f"{mode}:n", 0)
        buckets = {
            name.rsplit(":", 1)[1]: value
            for name, value in totals.items()
            if name.startswith(f"{mode}:le:")
        }
        figures.append(
            ModeFigures(
                mode=mode,
                searches=count,
                degraded=totals.get(f"{mode}:{DEGRADED}", 0),
                no_results=totals.get(f"{mode}:{NO_RESULTS}", 0),
                p50_ms=_bound(buckets, count, 0.5),
                p95_ms=_bound(buckets, count, 0.95),
            )
        )
    return figures
