"""Workers and extractor children give their session's autogroup their nice value, so that
the web process comes first where the kernel shares the CPU between sessions."""

import subprocess
import sys
from pathlib import Path

import pytest

from config.common import priority

PROJECT_ROOT = Path(__file__).resolve().parents[3]
AUTOGROUP = Path("/proc/self/autogroup")

pytestmark = pytest.mark.skipif(
    not AUTOGROUP.exists(), reason="the kernel has no autogroup scheduling"
)

# Calls nice_autogroup() and prints what it returned and the autogroup's line after.
PROGRAM = (
    "import os; from pathlib import Path; from jobs.worker.priority import YieldToWeb; "
    "from config.common.priority import session_led_by_dramatiq; "
    "ours = session_led_by_dramatiq(os.getsid(0)); YieldToWeb().after_process_boot(None); "
    "print(ours); print(Path('/proc/self/autogroup').read_text().strip())"
)


def run(nice: int, *, own_session: bool, name: str) -> list[str]:
    # [whether the session counts as the worker's own, the autogroup's line after boot]
    """The program under `nice`, as a worker command line named `name` would run it."""
    # The program on stdin: its command line is then `python - <name>` and nothing else.
    done = subprocess.run(
        ["nice", "-n", str(nice), sys.executable, "-", name],
        input=PROGRAM,
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        check=True,
        start_new_session=own_session,
        timeout=60,
    )
    return done.stdout.splitlines()


def test_a_worker_in_its_own_session_gives_the_session_its_nice_value():
    ours, autogroup = run(10, own_session=True, name="rundramatiq")

    assert ours == "True"
    assert autogroup.endswith("nice 10")


def test_a_session_that_is_not_a_workers_is_left_alone():
    before = AUTOGROUP.read_text()

    ours, autogroup = run(10, own_session=False, name="rundramatiq")

    assert ours == "False"
    assert AUTOGROUP.read_text() == before
    assert autogroup.strip() == before.strip(), "the test's own session is not touched"


def test_a_process_at_normal_priority_changes_nothing():
    ours, autogroup = run(0, own_session=True, name="rundramatiq")

    assert ours == "True"
    assert autogroup.endswith("nice 0")


def test_only_a_dramatiq_session_leader_counts_as_the_workers_own():
    assert priority.session_led_by_dramatiq(0) is False  # no such process
    ours, autogroup = run(10, own_session=True, name="some-other-program")
    assert ours == "False"
    assert autogroup.endswith("nice 0")


# A worker process at nice 10 reads one PDF in an extractor child, then prints the child's
# autogroup line (the child is the leader of a session of its own).
SANDBOX_PROGRAM = """
import sys
from pathlib import Path
from search.pipeline.sandbox.process import Sandbox
from tests.factories import make_pdf
pdf = Path(sys.argv[1])
pdf.write_bytes(make_pdf())
sandbox = Sandbox(memory_mb=256)
sandbox.read(pdf, max_pages=5, timeout=30)
print(Path(f"/proc/{sandbox.pid}/autogroup").read_text().strip())
sandbox.stop()
"""


def test_an_extractor_child_runs_at_its_workers_priority(tmp_path):
    done = subprocess.run(
        ["nice", "-n", "10", sys.executable, "-c", SANDBOX_PROGRAM, str(tmp_path / "a.pdf")],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )

    assert done.stdout.strip().endswith("nice 10"), done.stdout + done.stderr
