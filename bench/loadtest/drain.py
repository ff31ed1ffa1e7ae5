"""After the last upload, does the queue empty when its measured rate says it will?

Documents differ a hundredfold in work (a one-page letter against a 117-page thesis), so
"jobs per second" measured over one minute mispredicts a queue whose mix differs (long
documents retried after the 429 window all end up at its back). The prediction counts
work instead: each document weighs what reading it took when the corpus was built (the
manifest's `seconds`) plus a fixed cost per job (the sandbox's start, embedding,
storing). The rate is the work finished per second in the clean window before the last
upload (after the last fault); the prediction is the work queued at the last upload over
that rate. Jobs per second are reported beside it.
"""

from __future__ import annotations

import math

from bench.loadtest.client import Answer
from bench.loadtest.collect import Final
from bench.loadtest.criteria import Criterion
from bench.loadtest.payloads import corpus_files
from bench.loadtest.sampler import Sample

TOLERANCE = 0.25
PER_JOB_SECONDS = 0.3  # a job's cost besides reading the PDF (bench.pipeline: about this)


def _costs(answers: list[Answer]) -> dict[str, float]:
    """Job id to its expected work, in seconds of one worker thread."""
    seconds = {f.name: f.seconds for f in corpus_files()}
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
    limit = f"<= predicted + {TOLERANCE:.0%}"
    costs = _costs(answers)
    done = [
        job
        for job in final.jobs.values()
        if job.finished is not None and last_upload - window < job.finished <= last_upload
    ]
    queued = _queued_at(final, last_upload)
    empty = next((s for s in samples if s.t >= last_upload and s.queued == 0), None)
    if not done or empty is None:
        figure = (
            "not measured (nothing finished before the last upload, or the queue never emptied)"
        )
        return Criterion(title, figure, limit, False), {}
    rate = sum(costs.get(job.id, PER_JOB_SECONDS) for job in done) / window
    work = sum(costs.get(job_id, PER_JOB_SECONDS) for job_id in queued)
    predicted = work / rate
    actual = empty.t - last_upload
    error = (actual - predicted) / predicted if predicted > 0 else math.inf
    jobs_rate = len(done) / window
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
        f"before it {rate:.2f} s of work per s ({jobs_rate:.2f} jobs/s) were finished: "
        f"predicted {predicted:.0f} s, oldest queued age back to 0 after {actual:.0f} s "
        f"({error:+.0%})",
        limit,
        error <= TOLERANCE,
        note,
    ), figures
