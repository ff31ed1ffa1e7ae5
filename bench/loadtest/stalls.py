"""How long each attempt waited past its due time for no reason the queue explains.

A job waits in a backlog by design: the jobs ahead of it go first. It is *stalled* while
it is due and not claimed although (a) a job of its lane that became due after it was
already claimed (the queue went past it: its message is missing or stuck), or (b) a
worker thread was free (nothing held the workers back, yet it was not taken).

Due is when the job was queued for its first attempt; for a retry, the `next_attempt_at`
the sampler saw for it (else when the attempt before it ended, which counts a retry's
back-off as waiting: it can only overstate a stall).
"""

from __future__ import annotations

import bisect
import itertools

from bench.loadtest.collect import Final
from bench.loadtest.sampler import Sample


def _idle_clock(samples: list[Sample], capacity: int) -> tuple[list[float], list[float]]:
    """Sample times and, at each, the seconds so far during which a worker thread was free."""
    times = [s.t for s in samples]
    idle = [0.0]
    for before, after in itertools.pairwise(samples):
        free = before.processing < capacity
        idle.append(idle[-1] + (after.t - before.t if free else 0.0))
    return times, idle


def _idle_between(clock: tuple[list[float], list[float]], start: float, end: float) -> float:
    times, idle = clock
    if end <= start or not times:
        return 0.0

    def at(t: float) -> float:
        k = bisect.bisect_right(times, t) - 1
        if k < 0:
            return 0.0
        if k + 1 >= len(times):
            return idle[-1]
        share = (t - times[k]) / (times[k + 1] - times[k]) if times[k + 1] > times[k] else 0.0
        return idle[k] + share * (idle[k + 1] - idle[k])

    return at(end) - at(start)


def _attempt_dues(final: Final, retry_due: dict) -> list[dict]:
    """(job, attempt, lane, due, claimed) for every attempt, and for jobs still waiting."""
    rows = []
    for job in final.jobs.values():
        attempts = final.attempts.get(job.id, [])
        previous_end = None
        for attempt in attempts:
            if attempt.number == 1:
                due = job.created
            else:
                due = retry_due.get((job.id, attempt.number - 1), previous_end or job.created)
            rows.append(
                dict(
                    job=job.id,
                    number=attempt.number,
                    lane=job.lane,
                    due=due,
                    claimed=attempt.started,
                )
            )
            previous_end = attempt.finished
        if job.status == "queued":  # never claimed again: it waits until the end of the run
            due = retry_due.get((job.id, job.attempts), job.queued)
            rows.append(
                dict(job=job.id, number=job.attempts + 1, lane=job.lane, due=due, claimed=None)
            )
    return rows


def stalls(
    final: Final, samples: list[Sample], retry_due: dict, capacity: int, end: float
) -> list[dict]:
    """Every attempt's stall in seconds, longest first."""
    clock = _idle_clock(samples, capacity)
    rows = _attempt_dues(final, retry_due)
    for lane in {row["lane"] for row in rows}:
        ours = sorted((r for r in rows if r["lane"] == lane), key=lambda r: r["due"])
        # The earliest claim among the attempts due after each one: when the queue passed it.
        passed_at = float("inf")
        for k in range(len(ours) - 1, -1, -1):
            row = ours[k]
            row["passed_at"] = passed_at
            if row["claimed"] is not None:
                passed_at = min(passed_at, row["claimed"])
    for row in rows:
        claimed = row["claimed"] if row["claimed"] is not None else end
        overtaken = max(0.0, claimed - max(row["due"], row["passed_at"]))
        idle = _idle_between(clock, row["due"], min(claimed, row["passed_at"]))
        row["stall"] = overtaken + max(0.0, idle)
        row["wait"] = max(0.0, claimed - row["due"])
    return sorted(rows, key=lambda r: r["stall"], reverse=True)
