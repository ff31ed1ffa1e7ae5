"""The Procfile gives each lane its own workers, and every queue some worker."""

import itertools
import os
import re
import shlex
from pathlib import Path

import dramatiq

from config.tooling.procfile import read_procfile
from jobs.lanes import lane_queues
from jobs.models import Lane
from tests.conftest import declare_actors

ROOT = Path(__file__).resolve().parents[2]
ENTRIES = read_procfile(ROOT / "Procfile")


def consumed(line: str) -> list[str]:
    """The queue names after `--queues` in a Procfile command."""
    words = shlex.split(line)
    after = words[words.index("--queues") + 1 :]
    return list(itertools.takewhile(lambda word: not word.startswith("-"), after))


def defaults(line: str) -> dict[str, str]:
    """${NAME:-default} in a command: each variable's default."""
    return dict(re.findall(r"\$\{(\w+):-([^}]*)\}", line))


def test_each_lane_has_its_own_worker_line_consuming_only_its_queues():
    for lane in Lane.values:
        assert consumed(ENTRIES[f"worker-{lane}"])[:2] == lane_queues(lane)
    assert "worker" not in ENTRIES


def test_every_declared_queue_is_consumed_by_exactly_one_worker_line():
    declare_actors()
    declared = set(dramatiq.get_broker().get_declared_queues())
    lines = [line for name, line in ENTRIES.items() if name.startswith("worker-")]
    queues = [queue for line in lines for queue in consumed(line)]

    assert sorted(queues) == sorted(set(queues)), "no queue on two lines"
    assert set(queues) == declared


def test_each_worker_line_prefetches_one_message_per_thread_at_a_lower_priority(settings):
    for lane in Lane.values:
        line = ENTRIES[f"worker-{lane}"]
        threads = f"${{WORKER_{lane.upper()}_THREADS:-"
        assert f"dramatiq_queue_prefetch={threads}" in line
        assert f"--threads {threads}" in line
        assert re.search(r"\bnice -n \$\{WORKER_((BATCH|OCR)_)?NICE:-\d+\}", line)
        # The Procfile's defaults are the settings' own: each owner's share follows them.
        values = defaults(line)
        for setting in (f"WORKER_{lane.upper()}_PROCESSES", f"WORKER_{lane.upper()}_THREADS"):
            if setting not in os.environ:
                assert int(values[setting]) == getattr(settings, setting)


def niceness(line: str) -> int:
    """The default of the niceness `nice -n ${...:-N}` gives the line's command."""
    found = re.search(r"\bnice -n \$\{\w+:-(\d+)\}", line)
    assert found, line
    return int(found.group(1))


def test_scans_and_long_files_yield_the_cpu_to_uploads():
    fast = niceness(ENTRIES["worker-fast"])

    assert niceness(ENTRIES["worker-batch"]) > fast
    assert niceness(ENTRIES["worker-ocr"]) > fast


def test_make_run_starts_every_lanes_workers():
    """`make run` names the Procfile lines the runner starts (RUN_PROCESSES): all but the
    release step, every lane's worker among them."""
    found = re.search(r"^RUN_PROCESSES := (.+)$", (ROOT / "Makefile").read_text(), re.M)
    assert found, "no RUN_PROCESSES in the Makefile"
    started = found.group(1).split()

    assert sorted(started) == sorted(name for name in ENTRIES if name != "release")
    assert {f"worker-{lane}" for lane in Lane.values} <= set(started)
