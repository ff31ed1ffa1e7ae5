"""After the last upload, does the queue empty when its measured rate says it will?

Documents differ a hundredfold in work (a one-page letter against a 117-page thesis), so
"jobs per second" measured over one minute mispredicts a queue whose mix differs (long
documents retried after the 429 window all end up at its back). The prediction counts
work instead: each document weighs what reading it took when the corpus was built (the
manifest's `seconds`; a scan, SCAN_SECONDS of OCR) plus a fixed cost per job (the
sandbox's start, embedding, storing). The rate is the work the attempts did per second
in the window before the last upload (after the last fault), each attempt's work spread
over its duration; the prediction is the work left at the last upload (queued, and the
rest of what was being processed) over that rate. Jobs per second are reported beside it.
"""

from __future__ import annotations

import math

from tests.bench.loadtest.client import Answer
from tests.bench.loadtest.collect import Final
from tests.bench.loadtest.criteria import Criterion
from tests.bench.loadtest.payloads import SCAN_SECONDS, SCAN_SOURCE, corpus_files
from tests.bench.loadtest.sampler import Sample

TOLERANCE = 0.25
# Added to the allowance: a queue empties when a thread frees for its last job, which an
# average rate cannot place closer than about one long job (a 117-page thesis reads in
# seconds, slower beside other work), and the sampler looks every half second.
SLACK_SECONDS = 5.0
PER_JOB_SECONDS = 0.3  # a job's cost besides reading the PDF (tests.bench.pipeline: about this)


def _costs(answers: list[Answer]) -> dict[str, float]:
    """Job id to its expected work, in seconds of one worker thread."""
    seconds = {f.name: f.seconds for f in corpus_files()} | {SCAN_SOURCE: SCAN_SECONDS}
    return {a.job_id: seconds.get(a.source, 0.0) + PER_JOB_SECONDS for a in answers if a.job_id}


def _queued_at(final: Final, t: float) -> list[str]:
    """Jobs that were queued (created, not finished, no attempt running) at time t."""
    queued = []
    for job in final.jobs.values():
        if job.created > t or (job.finished is not None and job.finished <= t):
            continue
        running = any(
            a.started <= t and (a.finished is None or a.finished > t)
            for a in final.attempts.get(job.id, [])
        )
        if not running:
            queued.append(job.id)
    return queued


def drain(
    samples: list[Sample], final: Final, answers: list[Answer], last_upload: float, window: float
) -> tuple[Criterion, dict]:
    title = "After the last upload the queue drains as predicted"
    limit = f"<= predicted + {TOLERANCE:.0%} + {SLACK_SECONDS:g} s"
    costs = _costs(answers)
    start = last_upload - window
    work_done, in_progress, finished = 0.0, 0.0, 0
    for attempts in final.attempts.values():
        for attempt in attempts:
            end = attempt.finished if attempt.finished is not None else last_upload
            if end <= start or attempt.started >= last_upload or end <= attempt.started:
                continue
            # An attempt's work is spread over its duration: a long document half done at
            # the end of the window counts for half, a retry's re-reading counts too.
            overlap = min(end, last_upload) - max(attempt.started, start)
            cost = costs.get(attempt.job, PER_JOB_SECONDS)
            work_done += cost * overlap / (end - attempt.started)
            if end > last_upload:  # in progress at the last upload: what it had left
                in_progress += cost * (end - last_upload) / (end - attempt.started)
            finished += attempt.outcome == "succeeded" and start < end <= last_upload
    queued = _queued_at(final, last_upload)
    empty = next((s for s in samples if s.t >= last_upload and s.queued == 0), None)
    if not work_done or empty is None:
        figure = (
            "not measured (nothing finished before the last upload, or the queue never emptied)"
        )
        return Criterion(title, figure, limit, False), {}
    rate = work_done / window
    work = sum(costs.get(job_id, PER_JOB_SECONDS) for job_id in queued) + in_progress
    predicted = work / rate
    actual = empty.t - last_upload
    error = (actual - predicted) / predicted if predicted > 0 else math.inf
    jobs_rate = finished / window
    figures = dict(
        queued=len(queued),
        work=work,
        rate=rate,
        jobs_rate=jobs_rate,
        predicted=predicted,
        actual=actual,
        error=error,
    )
    # Judged one way: a queue that empties later than predicted left something behind or
    # slowed down; one that empties sooner only means the prediction was cautious (noted).
    note = "sooner than predicted by more than 25 %" if error < -TOLERANCE else ""
    return Criterion(
        title,
        f"{len(queued)} queued at the last upload ({work:.0f} s of work); in the {window:.0f} s "
        f"before it the workers did {rate:.2f} s of work per s (finished {jobs_rate:.2f} jobs/s): "
        f"predicted {predicted:.0f} s, oldest queued age back to 0 after {actual:.0f} s "
        f"({error:+.0%})",
        limit,
        actual <= predicted * (1 + TOLERANCE) + SLACK_SECONDS,
        note,
    ), figures
