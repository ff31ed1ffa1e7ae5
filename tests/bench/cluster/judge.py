"""What the cluster run adds to the load test's judgement: the cut worker host's jobs.

- `cut_jobs_back`: each job the host held when it was cut is taken back within a lease
  (and a sweep) of the cut, claimed again soon after, and finished by that later attempt;
- `nothing_landed`: once the host is back, not one write of its attempts lands: each of
  those attempts stays closed as the takeover closed it (lost, at the takeover's time,
  before the host came back), the job ended by a later attempt, and the refusals the host
  counted (ingest_fenced_writes_total on its own /metrics) are reported.
"""

from __future__ import annotations

import math

from prometheus_client.parser import text_string_to_metric_families

from tests.bench.cluster.stack import ClusterStack
from tests.bench.loadtest.collect import AttemptRow, Final
from tests.bench.loadtest.criteria import RECLAIM_LIMIT, Criterion
from tests.bench.loadtest.faults import Fault


def refused_writes(stack: ClusterStack, host: str) -> dict:
    """ingest_fenced_writes_total by write, from `host`'s worker metrics, or why not."""
    try:
        pages = stack.metrics(host)
    except OSError as exc:
        return {"error": f"{host}'s metrics could not be read: {exc}"}
    refused: dict[str, float] = {}
    for text in pages:
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                if sample.name == "ingest_fenced_writes_total":
                    write = sample.labels.get("write", "")
                    refused[write] = refused.get(write, 0.0) + sample.value
    return {"by_write": refused}


def on_host(worker: str, host: str) -> bool:
    """Whether a job's `worker` (host:pid:thread) ran on `host`: its own host name, or
    a container's of it (`worker2-worker-fast`)."""
    name = worker.split(":", 1)[0]
    return name == host or name.startswith(f"{host}-")


def _cut(faults: list[Fault]) -> Fault | None:
    return next((fault for fault in faults if fault.name == "cut"), None)


def cut_attempts(cut: Fault, final: Final, host: str) -> list[AttemptRow]:
    """The attempts `host` was running when its link went down, by the database's record:
    started before the cut, not ended before it."""
    return [
        attempt
        for attempts in final.attempts.values()
        for attempt in attempts
        if on_host(attempt.worker, host)
        and attempt.started < cut.start
        and (attempt.finished is None or attempt.finished > cut.start)
    ]


def cut_jobs_back(
    faults: list[Fault], final: Final, host: str, *, lease: float, sweep_every: float
) -> Criterion:
    """Taken back within a lease and a sweep of the cut (5 s of slack for a busy machine),
    claimed again within RECLAIM_LIMIT after that, and succeeded by that later attempt.

    The later claim is usually another host's. On a busy machine the cut host may be back
    before another host has a free thread and take the job from the queue itself: a fresh
    claim with a new attempt number, which it may finish. That still shows the takeover
    worked (the old attempt closed, the job sent again); its count is reported."""
    cut = _cut(faults)
    back_limit = lease + sweep_every + 5.0
    claim_limit = back_limit + RECLAIM_LIMIT
    name = "The cut-off host's jobs are taken over and finished"
    limit = (
        f"taken back <= {back_limit:.0f} s after the cut (a lease, a sweep, 5 s), claimed "
        f"again <= {claim_limit:.0f} s, succeeded by a later attempt"
    )
    held = cut_attempts(cut, final, host) if cut is not None else []
    if cut is None or not held:
        return Criterion(name, "no worker host was cut off while holding a job", limit, False)
    back, again, wrong, at_home = [], [], [], 0
    for attempt in held:
        later = [a for a in final.attempts.get(attempt.job, []) if a.number > attempt.number]
        back.append(attempt.finished - cut.start if attempt.finished else math.inf)
        again.append(later[0].started - cut.start if later else math.inf)
        job = final.jobs.get(attempt.job)
        if job is None or job.status != "succeeded" or not later:
            wrong.append(attempt.job)
        elif on_host(later[-1].worker, host):
            at_home += 1
    return Criterion(
        name,
        f"{len(held)} jobs running on {host} at the cut; cut to taken back max "
        f"{max(back):.1f} s, to claimed again max {max(again):.1f} s; "
        f"{len(held) - len(wrong)} of {len(held)} then succeeded "
        f"({at_home} of them claimed afresh by {host} once back)",
        limit,
        max(back) <= back_limit and max(again) <= claim_limit and not wrong,
        ", ".join(wrong[:5]),
    )


def nothing_landed(faults: list[Fault], final: Final, host: str, refused: dict) -> Criterion:
    """Each attempt cut off stays as the takeover closed it: lost, at a time before the
    host came back; no attempt of its number ends the job."""
    cut = _cut(faults)
    by_write = refused.get("by_write", {})
    kinds = ", ".join(f"{write} {n:.0f}" for write, n in sorted(by_write.items()) if n)
    counted = (
        f"{sum(by_write.values()):.0f}" + (f" ({kinds})" if kinds else "")
        if "by_write" in refused
        else f"unknown ({refused.get('error', 'not read')})"
    )
    name = "The cut-off host lands no write once it is back (fencing)"
    limit = "0 landed: its attempts stay closed by the takeover; the job ended by a later one"
    held = cut_attempts(cut, final, host) if cut is not None else []
    if cut is None or not held:
        return Criterion(name, "no worker host was cut off while holding a job", limit, False)
    landed = [
        attempt.job
        for attempt in held
        if attempt.outcome != "lost" or attempt.finished is None or attempt.finished > cut.end
    ]
    return Criterion(
        name,
        f"{len(held)} attempts cut off; {len(landed)} with a write after {host} came back; "
        f"writes {host} refused (ingest_fenced_writes_total): {counted}",
        limit,
        not landed,
        ", ".join(landed[:5]),
    )
