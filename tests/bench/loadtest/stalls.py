"""How long each attempt waited past its due time for no reason the queue explains.

A job waits in a backlog by design: the jobs ahead of it go first. So an attempt's stall
is how long it was claimed after the queue had reached it: after every attempt of its lane
due before it was claimed, except the last `tolerance[lane]` of them (the lane's worker
threads: a thread's worth of prefetch each and small reorderings: a message sent again
after a Redis restart, a worker busy with a long document holding one it prefetched). A
message lost while its job stayed queued shows as a stall that lasts until the sweeper
sends it again; so does a job that was never claimed (it counts until the end of the run).

Due is when the job was queued for its first attempt; for a retry, the `next_attempt_at`
the sampler saw for it (else when the attempt before it ended, as after a lost attempt,
when the sweeper took the job back, or after a scan's hand-off to the OCR lane). Each
attempt is in the lane it ran in: a scan's first in the fast lane, its OCR in the `ocr`.
"""

from __future__ import annotations

import heapq

from tests.bench.loadtest.collect import Final


def _attempt_dues(final: Final, retry_due: dict) -> list[dict]:
    """(job, attempt, lane, due, claimed) for every attempt, and for jobs still waiting.

    A scan's attempt that handed it on to the OCR lane gave its attempt back (the job's
    `attempts`, by which the sampler keys a retry's due time, counts one fewer from
    there); the OCR lane's attempt after it is due when it handed on."""
    rows = []
    for job in final.jobs.values():
        previous_end, handed_on = None, 0
        for attempt in final.attempts.get(job.id, []):
            if attempt.number == 1:
                due = job.created
            else:
                key = (job.id, attempt.number - 1 - handed_on)
                due = retry_due.get(key, previous_end or job.created)
            rows.append(
                dict(
                    job=job.id,
                    number=attempt.number,
                    lane=attempt.lane,
                    due=due,
                    claimed=attempt.started,
                )
            )
            previous_end = attempt.finished
            handed_on += attempt.handed_on
        if job.status == "queued":  # never claimed again: it waits until the end of the run
            due = retry_due.get((job.id, job.attempts), job.queued)
            number = job.attempts + handed_on + 1
            rows.append(dict(job=job.id, number=number, lane=job.lane, due=due, claimed=None))
    return rows


def _reached(ours: list[dict], tolerance: int, end: float) -> None:
    """Set each row's `reached`: when all but `tolerance` of the rows due before it were
    claimed (rows sorted by due)."""
    latest: list[float] = []  # min-heap of the tolerance + 1 latest claims so far
    for row in ours:
        row["reached"] = latest[0] if len(latest) > tolerance else row["due"]
        claimed = row["claimed"] if row["claimed"] is not None else end
        if len(latest) <= tolerance:
            heapq.heappush(latest, claimed)
        elif claimed > latest[0]:
            heapq.heapreplace(latest, claimed)


def stalls(final: Final, retry_due: dict, tolerance: dict[str, int], end: float) -> list[dict]:
    """Every attempt's stall in seconds, longest first. `tolerance`: per lane, its
    worker threads."""
    rows = _attempt_dues(final, retry_due)
    for lane in {row["lane"] for row in rows}:
        ours = sorted((r for r in rows if r["lane"] == lane), key=lambda r: r["due"])
        _reached(ours, tolerance[lane], end)
    for row in rows:
        claimed = row["claimed"] if row["claimed"] is not None else end
        row["stall"] = max(0.0, claimed - max(row["due"], row["reached"]))
        row["wait"] = max(0.0, claimed - row["due"])
    return sorted(rows, key=lambda r: r["stall"], reverse=True)
