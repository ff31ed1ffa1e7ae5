"""The dashboard's history for a window (the last hour, or 24 h): the sweeper's `Minute`
rows, with the minutes not yet final counted live from the job rows (the same count the
sweeper makes) and the current minute's queue read now, so a chart moves as soon as a job
ends rather than at the next sweep.

The last hour has a point per minute. 24 h has a point per 15 minutes: queue depth, age
and workers wanted are the highest sample in it; documents and pages the mean per minute;
pages read by OCR the mean per second; failures, retries, 429s and limiter waits the
totals; p50 the mean of the minutes' p50s weighted by their documents, and p95 the
highest minute p95 (percentiles do not add up, so the 24 h view approximates them from
the minutes').
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from jobs.models import Lane
from jobs.ops.dashboard import history
from jobs.ops.dashboard.history import ALL_LANES, MINUTE, Ended
from jobs.ops.models import Minute
from jobs.ops.scaling import LaneNow


@dataclass(frozen=True)
class Window:
    key: str
    label: str  # "the last hour"
    span: timedelta
    step: timedelta

    @property
    def step_minutes(self) -> int:
        return int(self.step / MINUTE)


WINDOWS = {
    "1h": Window("1h", "the last hour", timedelta(hours=1), MINUTE),
    "24h": Window("24h", "the last 24 hours", timedelta(hours=24), timedelta(minutes=15)),
}


@dataclass
class History:
    """One list per figure, a value per slot of the window (None: no reading)."""

    window: Window
    times: list[datetime]
    queued: dict[str, list[float | None]] = field(default_factory=dict)
    oldest: dict[str, list[float | None]] = field(default_factory=dict)
    wanted: dict[str, list[float | None]] = field(default_factory=dict)
    documents: dict[str, list[float]] = field(default_factory=dict)  # per minute
    pages: dict[str, list[float]] = field(default_factory=dict)  # per minute
    ocr_pages: list[float] = field(default_factory=list)  # read by OCR, per second
    ready_p50: dict[str, list[float | None]] = field(default_factory=dict)
    ready_p95: dict[str, list[float | None]] = field(default_factory=dict)
    failures: dict[str, list[float]] = field(default_factory=dict)  # by code
    retries: list[float] = field(default_factory=list)
    rate_limited: list[float] = field(default_factory=list)
    waited: list[float] = field(default_factory=list)  # seconds
    totals: dict[str, float] = field(default_factory=dict)


def load(window: Window, now: datetime, lanes: dict[str, LaneNow]) -> History:
    """The window ending at `now`'s minute, with `lanes` (read now) as its last sample."""
    minute = history.floor_minute(now)
    last = _slot_start(minute, window)
    first = last - window.span + window.step
    rows, unsampled = _rows(first, minute, lanes)
    times = [first + window.step * i for i in range(int(window.span / window.step))]
    slots: dict[datetime, list[Minute]] = defaultdict(list)
    sampled: dict[datetime, list[Minute]] = defaultdict(list)
    for key, row in rows.items():
        slots[_slot_start(row.minute, window)].append(row)
        if key not in unsampled:
            sampled[_slot_start(row.minute, window)].append(row)
    result = History(window, times)
    _fill(result, [slots[t] for t in times], [sampled[t] for t in times])
    return result


def _slot_start(minute: datetime, window: Window) -> datetime:
    into = (minute.hour * 60 + minute.minute) % window.step_minutes
    return minute - timedelta(minutes=into)


Key = tuple[datetime, str]


def _rows(
    first: datetime, minute: datetime, lanes: dict[str, LaneNow]
) -> tuple[dict[Key, Minute], set[Key]]:
    """The stored rows by (minute, lane), the minutes not yet final recounted now; and
    the keys of rows no sweep wrote, whose queue nobody saw (a gap, not zeros)."""
    rows = {(r.minute, r.lane): r for r in Minute.objects.filter(minute__gte=first)}
    unsampled = set()
    live_from = max(first, minute - history.SETTLE - MINUTE)
    live = history.ended_between(live_from, minute + MINUTE)
    moment = live_from
    while moment <= minute:
        for lane in [*Lane.values, ALL_LANES]:
            if (moment, lane) not in rows:
                rows[(moment, lane)] = Minute(minute=moment, lane=lane)
                unsampled.add((moment, lane))
            for name, value in vars(live.get((moment, lane), Ended())).items():
                setattr(rows[(moment, lane)], name, value)
        moment += MINUTE
    for now in lanes.values():
        row = rows[(minute, now.lane)]
        row.queued, row.processing = now.queued, now.processing
        row.oldest_age_seconds, row.workers_wanted = now.oldest_age_seconds, now.workers_wanted
        unsampled.discard((minute, now.lane))
    return rows, unsampled


def _fill(result: History, slots: list[list[Minute]], sampled: list[list[Minute]]) -> None:
    per_minute = 1 / result.window.step_minutes
    for lane in Lane.values:
        seen = [[r for r in rows if r.lane == lane] for rows in sampled]
        result.queued[lane] = [_highest(rows, "queued") for rows in seen]
        result.oldest[lane] = [_highest(rows, "oldest_age_seconds") for rows in seen]
        result.wanted[lane] = [_highest(rows, "workers_wanted") for rows in seen]
        in_lane = [[r for r in rows if r.lane == lane] for rows in slots]
        result.documents[lane] = [_sum(rows, "documents_ready") * per_minute for rows in in_lane]
        result.pages[lane] = [_sum(rows, "pages_ready") * per_minute for rows in in_lane]
        result.ready_p50[lane] = [_weighted_p50(rows) for rows in in_lane]
        result.ready_p95[lane] = [_highest(rows, "ready_p95_seconds") for rows in in_lane]
    codes = sorted({code for rows in slots for row in rows for code in row.failures})
    for code in codes:
        result.failures[code] = [sum(r.failures.get(code, 0) for r in rows) for rows in slots]
    seconds = result.window.step.total_seconds()
    result.ocr_pages = [_sum(rows, "ocr_pages") / seconds for rows in slots]
    result.retries = [_sum(rows, "retries") for rows in slots]
    result.rate_limited = [_sum(rows, "embedding_rate_limited") for rows in slots]
    result.waited = [_sum(rows, "embedding_wait_seconds") for rows in slots]
    every = [row for rows in slots for row in rows]
    result.totals = {
        "documents": _sum(every, "documents_ready"),
        "pages": _sum(every, "pages_ready"),
        "ocr_pages": _sum(every, "ocr_pages"),
        "failures": sum(sum(row.failures.values()) for row in every),
        "retries": _sum(every, "retries"),
        "rate_limited": _sum(every, "embedding_rate_limited"),
        "waited": _sum(every, "embedding_wait_seconds"),
    }


def _sum(rows: list[Minute], name: str) -> float:
    return sum(getattr(row, name) for row in rows)


def _highest(rows: list[Minute], name: str) -> float | None:
    values = [getattr(row, name) for row in rows if getattr(row, name) is not None]
    return max(values) if values else None


def _weighted_p50(rows: list[Minute]) -> float | None:
    weighted = [(r.ready_p50_seconds, r.documents_ready) for r in rows if r.documents_ready]
    documents = sum(n for _, n in weighted)
    if not documents:
        return None
    return sum((p50 or 0) * n for p50, n in weighted) / documents
