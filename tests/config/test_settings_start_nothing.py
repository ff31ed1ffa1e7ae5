"""Loading the settings starts nothing and writes nothing; `manage.py embedded start` does.

Each test runs a fresh process on an empty data directory with nothing configured (no
DATABASE_URL, REDIS_URL or DJANGO_SECRET_KEY), as on a checkout where `make run` never ran.
"""

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def data_dir() -> Iterator[Path]:
    """A data directory that does not exist yet (its parent does)."""
    # Not under pytest's basetemp: another pytest run on the machine may prune it.
    parent = Path(tempfile.mkdtemp(prefix="ingest-nothing-"))
    yield parent / "data"
    subprocess.run(["rm", "-rf", str(parent)], check=False)


def unconfigured(data_dir: Path, **extra: str) -> dict[str, str]:
    """This environment without the project's variables (the test run's URLs, key and
    directories), on data_dir."""
    ours = ("INGEST_", "DJANGO_", "PROMETHEUS_", "DATABASE_", "REDIS_")
    env = {name: value for name, value in os.environ.items() if not name.startswith(ours)}
    return {**env, "INGEST_DATA_DIR": str(data_dir), **extra}


def run(env: dict[str, str], *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )


def processes_on(path: Path) -> list[str]:
    """Command lines of running processes that name path (a Postgres or Redis on it)."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        cmdline = " ".join(process.info["cmdline"] or [])
        if str(path) in cmdline:
            found.append(cmdline)
    return found


SHOW_URLS = """
import config.settings as s
print(s.DATABASE_URL)
print(s.REDIS_URL)
"""


def test_importing_the_settings_with_nothing_running_starts_no_process_and_writes_no_file(
    data_dir,
):
    shown = run(unconfigured(data_dir), "-c", SHOW_URLS)

    assert shown.returncode == 0, shown.stderr
    assert not data_dir.exists(), sorted(data_dir.rglob("*"))
    assert processes_on(data_dir.parent) == []
    database_url, redis_url = shown.stdout.split()
    assert "ingest" in database_url  # where the embedded Postgres will listen, in var/pg
    assert redis_url == f"unix://{data_dir / 'redis' / 'not-started.sock'}?db=0", "never 6379"


def test_manage_py_check_with_no_services_answers_promptly_and_starts_none(data_dir):
    started = time.monotonic()
    checked = run(unconfigured(data_dir), "manage.py", "check", timeout=60)
    elapsed = time.monotonic() - started

    assert checked.returncode == 0, checked.stderr
    # Its one finding: no key is shared yet (`embedded start` or DJANGO_SECRET_KEY gives one).
    assert "System check identified 1 issue" in checked.stderr
    assert "(accounts.W001) No secret key is shared between processes" in checked.stderr
    assert elapsed < 30, f"check took {elapsed:.0f} s"
    assert processes_on(data_dir.parent) == []
    for started_by_start in ("pg", "redis", "secret_key"):
        assert not (data_dir / started_by_start).exists()


def test_embedded_start_keeps_the_secret_key_that_the_settings_then_read(data_dir):
    # The test run's own services, so `start` only writes the key and starts nothing.
    env = unconfigured(
        data_dir, DATABASE_URL=os.environ["DATABASE_URL"], REDIS_URL=settings.REDIS_URL
    )

    started = run(env, "manage.py", "embedded", "start")
    shown = run(env, "-c", "import config.settings as s; print(s.SECRET_KEY)")
    again = run(env, "manage.py", "embedded", "start")

    assert started.returncode == 0, started.stderr
    assert again.returncode == 0, again.stderr
    kept = (data_dir / "secret_key").read_text().strip()
    assert len(kept) >= 50
    assert os.stat(data_dir / "secret_key").st_mode & 0o777 == 0o600
    assert shown.stdout.strip() == kept
    assert (data_dir / "secret_key").read_text().strip() == kept, "the second start kept it"


def test_check_is_silent_about_the_key_once_one_is_set(data_dir):
    checked = run(unconfigured(data_dir, DJANGO_SECRET_KEY="k" * 50), "manage.py", "check")

    assert checked.returncode == 0, checked.stderr
    assert "System check identified no issues" in checked.stdout


def test_without_a_kept_key_each_process_signs_with_its_own(data_dir):
    first = run(unconfigured(data_dir), "-c", "import config.settings as s; print(s.SECRET_KEY)")
    second = run(unconfigured(data_dir), "-c", "import config.settings as s; print(s.SECRET_KEY)")

    assert first.returncode == second.returncode == 0
    assert len(first.stdout.strip()) >= 50
    assert first.stdout != second.stdout
    assert not data_dir.exists()
