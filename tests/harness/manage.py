"""manage.py in a subprocess beside the checkout, as a person or a Procfile line runs it."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_manage(
    *args: str, env: dict[str, str], timeout: float = 300
) -> subprocess.CompletedProcess:
    """`python manage.py *args` with exactly `env`; its output captured as text. The
    caller decides what a failure means (a test fails, a benchmark stops)."""
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
