"""`python -m tests.bench.loadtest` (or `make loadtest`): see bench/loadtest/__init__.py."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from tests.bench.loadtest.report import run_and_report
from tests.bench.loadtest.run import run
from tests.bench.loadtest.scenario import parse

OUT = Path(__file__).resolve().parents[3] / "var" / "loadtest"


def main(argv: list[str] | None = None) -> int:
    return run_and_report(run, parse(argv), OUT / time.strftime("%Y%m%d-%H%M%S"))


if __name__ == "__main__":
    sys.exit(main())
