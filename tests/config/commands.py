"""manage.py in a subprocess, as a person runs it beside the checkout."""

import os
from pathlib import Path

from tests.harness.manage import run_manage


def manage(*args: str, data_dir: Path, **urls: str) -> str:
    """manage.py on data_dir (INGEST_DATA_DIR), with only the service URLs given here
    (DATABASE_URL, REDIS_URL): without them it uses the embedded services. Its stdout;
    fails the test when the command fails."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(urls, INGEST_DATA_DIR=str(data_dir))
    result = run_manage(*args, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout
