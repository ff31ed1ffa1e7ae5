"""The cluster run's judgement of the cut host's jobs, over attempt rows as the database
would hold them: taken over by another host, claimed afresh by the cut host once back,
or never claimed again."""

from __future__ import annotations

import pytest

from tests.bench.cluster.judge import cut_jobs_back
from tests.bench.loadtest.collect import AttemptRow, Final, JobRow
from tests.bench.loadtest.faults import Fault

CUT = Fault("cut", start=1000.0, end=1030.0)
LEASE, SWEEP = 20.0, 2.0


def _job(job: str, status: str, *attempts: tuple[str, float, float | None, str]) -> Final:
    final = Final()
    final.jobs[job] = JobRow(job, "doc", 1, "fast", status, len(attempts), 2, "", 0, 0, 0, 0)
    final.attempts[job] = [
        AttemptRow(job, number, worker, started, finished, outcome, "", "fast")
        for number, (worker, started, finished, outcome) in enumerate(attempts, start=1)
    ]
    return final


def _judge(final: Final) -> tuple[bool, str]:
    criterion = cut_jobs_back([CUT], final, "worker2", lease=LEASE, sweep_every=SWEEP)
    return criterion.passed, criterion.figure


@pytest.mark.parametrize(
    ("again_on", "afresh"), [("worker1:9:2", 0), ("worker2:7:3", 1)], ids=["other", "cut"]
)
def test_a_job_claimed_again_and_finished_passes_whichever_host_claimed_it(
    again_on: str, afresh: int
) -> None:
    """Another host's claim, or the cut host's own fresh claim once it is back (counted)."""
    passed, figure = _judge(
        _job(
            "j",
            "succeeded",
            ("worker2:7:1", 990.0, 1021.0, "lost"),
            (again_on, 1031.0, 1036.0, "succeeded"),
        )
    )
    assert passed, figure
    assert f"{afresh} of them claimed afresh by worker2" in figure


def test_a_job_taken_back_too_late_or_never_claimed_again_fails() -> None:
    late = _job(
        "j",
        "succeeded",
        ("worker2:7:1", 990.0, 1040.0, "lost"),
        ("worker1:9:2", 1041.0, 1045.0, "succeeded"),
    )
    never = _job("j", "queued", ("worker2:7:1", 990.0, 1021.0, "lost"))
    assert not _judge(late)[0]
    passed, figure = _judge(never)
    assert not passed
    assert "claimed again max inf s" in figure
