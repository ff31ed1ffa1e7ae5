"""`python -m tests.bench.loadtest` (or `make loadtest`): see bench/loadtest/__init__.py."""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path

from tests.bench.loadtest.report import summary_lines, write_report
from tests.bench.loadtest.run import run, say
from tests.bench.loadtest.scenario import parse

OUT = Path(__file__).resolve().parents[3] / "var" / "loadtest"


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: list[str] | None = None) -> int:
    params = parse(argv)
    out = OUT / time.strftime("%Y%m%d-%H%M%S")
    out.mkdir(parents=True, exist_ok=True)
    # SIGTERM ends the run like Ctrl-C: the stack is stopped and its directory removed.
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        outcome = run(params, out)
    except KeyboardInterrupt:
        say("interrupted: the stack was stopped and removed")
        return 130
    report = write_report(outcome, out)
    for line in summary_lines(outcome):
        print(line)
    say(f"report: {report}")
    return 0 if outcome.passed else 1


if __name__ == "__main__":
    sys.exit(main())
