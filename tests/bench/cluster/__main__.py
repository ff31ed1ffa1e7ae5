"""`python -m tests.bench.cluster` (or `make loadtest-cluster`): see bench/cluster/__init__.py."""

from __future__ import annotations

import sys
import time

from tests.bench.cluster import containers
from tests.bench.cluster.run import run
from tests.bench.cluster.scenario import parse
from tests.bench.loadtest.__main__ import OUT
from tests.bench.loadtest.report import run_and_report
from tests.harness import netns


def main(argv: list[str] | None = None) -> int:
    params = parse(argv)
    why = netns.unavailable()
    if why is not None:
        print(f"loadtest-cluster: skipped: {why}")
        return 0
    if params.image and (why := containers.unavailable(params.image)) is not None:
        print(f"loadtest-cluster: {why}")
        return 1
    return run_and_report(run, params, OUT / f"cluster-{time.strftime('%Y%m%d-%H%M%S')}")


if __name__ == "__main__":
    sys.exit(main())
