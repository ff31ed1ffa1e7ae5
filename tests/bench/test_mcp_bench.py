"""`python -m tests.bench.mcp`, small, runs end to end (its own Postgres, Redis and gunicorn,
as `make bench` runs it): the API, a plain tools/call POST and the SDK's client answer the
same hits every time (the run stops with a traceback otherwise), and its table is printed.
A sample this small says nothing of the ratio, so missing the target is allowed here. The
results page is left alone. About 30 s."""

import hashlib
import subprocess
import sys

from django.conf import settings

from tests.bench.report import RESULTS


def test_the_mcp_benchmark_runs_and_the_three_ways_agree():
    before = hashlib.sha256(RESULTS.read_bytes()).hexdigest()
    command = ["--documents", "3", "--chunks", "5", "--warm", "3", "--calls", "12", "--no-write"]
    result = subprocess.run(
        [sys.executable, "-m", "tests.bench.mcp", *command],
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
        timeout=300,
    )

    output = result.stdout + result.stderr
    assert "Traceback" not in output, output[-4000:]
    assert result.returncode == 0 or "over 1.2 x" in result.stderr, output[-4000:]
    assert "| MCP `search` tool through the SDK's client | 12 |" in result.stdout
    assert hashlib.sha256(RESULTS.read_bytes()).hexdigest() == before
