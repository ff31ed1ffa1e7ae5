"""`python -m tests.bench.cluster` (or `make loadtest-cluster`): see bench/cluster/__init__.py."""

from __future__ import annotations

import signal
import sys
import time

from tests.bench.cluster.run import run
from tests.bench.cluster.scenario import parse
from tests.bench.loadtest.__main__ import OUT, _interrupt
from tests.bench.loadtest.report import summary_lines, write_report
from tests.bench.loadtest.run import say
from tests.harness import netns


def main(argv: list[str] | None = None) -> int:
    params = parse(argv)
    why = netns.unavailable()
    if why is not None:
        print(f"loadtest-cluster: skipped: {why}")
        return 0
    out = OUT / f"cluster-{time.strftime('%Y%m%d-%H%M%S')}"
    out.mkdir(parents=True, exist_ok=True)
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        outcome = run(params, out)
    except KeyboardInterrupt:
        say("interrupted: the hosts were stopped and removed")
        return 130
    report = write_report(outcome, out)
    for line in summary_lines(outcome):
        print(line)
    say(f"report: {report}")
    return 0 if outcome.passed else 1


if __name__ == "__main__":
    sys.exit(main())
