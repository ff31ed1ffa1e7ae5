"""Stopping `make run`: a signal to make or to the runner, or `make stop` from another
shell, stops every process within seconds, even one that ignores SIGTERM."""

import signal
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import psutil
import pytest

from tests.config.tooling.procfile_runs import (
    ROOT,
    alive,
    as_at_a_terminal,
    named,
    runner,
    seconds_until_gone,
    wait_for,
)

pytestmark = pytest.mark.slow  # seconds of real processes stopping

GRACE = 2.0
# A loaded 2-core box is slow to start Python and to reap, not to deliver signals: the
# margin covers make's two 0.5 s polls and the runner's own start and exit, many times.
MARGIN = 6.0
PROCFILE = (
    "quick: sleep 311\n"
    # A shell that leaves a child behind when SIGTERM ends it: the group's SIGKILL finds it.
    "family: sh -c 'sleep 312 & sleep 313; wait'\n"
    # Ignores SIGTERM, as a worker finishing a long task would: SIGKILL after the grace.
    "stubborn: python3 -c 'import signal, time; "
    "signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(314)'\n"
)
EVERY = ("sleep 311", "sleep 312", "sleep 313", "time.sleep(314)")


def started(pid: int) -> list[psutil.Process]:
    """Each of EVERY's processes under pid, once all are running and the stubborn one
    ignores SIGTERM."""
    found = [wait_for(partial(named, pid, marker))[0] for marker in EVERY]
    wait_for(lambda: ignores_sigterm(found[-1].pid))
    return found


def ignores_sigterm(pid: int) -> bool:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigIgn:"):
            return bool(int(line.split()[1], 16) & (1 << (signal.SIGTERM - 1)))
    return False


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_signal_to_the_runner_stops_everything_within_its_grace(tmp_path, signum):
    procfile = tmp_path / "Procfile"
    procfile.write_text(PROCFILE)
    process = runner(procfile, "--grace", str(GRACE))
    try:
        children = started(process.pid)

        process.send_signal(signum)
        took = seconds_until_gone(children)
    finally:
        out = process.communicate(timeout=30)[0]
    assert took < GRACE + MARGIN, out
    assert process.returncode == 0
    assert "stubborn    | did not stop within 2 s; killing it" in out


def test_a_second_signal_kills_at_once(tmp_path):
    procfile = tmp_path / "Procfile"
    procfile.write_text(PROCFILE)
    process = runner(procfile, "--grace", "60")
    try:
        children = started(process.pid)

        process.send_signal(signal.SIGINT)
        time.sleep(0.5)
        process.send_signal(signal.SIGINT)
        took = seconds_until_gone(children)
    finally:
        process.communicate(timeout=30)
    assert took < MARGIN


def make_run(tmp_path: Path) -> subprocess.Popen[bytes]:
    """`make run` of a Makefile whose recipe ends as ours does: exec the runner. make in
    a process group of its own, with SIGINT handled, as a job-control shell's `make run &`."""
    (tmp_path / "Procfile").write_text(PROCFILE)
    (tmp_path / "Makefile").write_text(
        "run:\n"
        f"\texec env PYTHONPATH={ROOT} {sys.executable} -m config.tooling.procfile -f Procfile "
        f"--pidfile var/run.pid --stop-with-parent --grace {GRACE:g}\n"
    )
    return subprocess.Popen(
        ["make", "-s", "run"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        preexec_fn=as_at_a_terminal,
    )


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_signal_to_make_stops_everything_within_seconds(tmp_path, signum):
    make = make_run(tmp_path)
    try:
        children = started(make.pid)
        [runner_process] = psutil.Process(make.pid).children()
        assert "config.tooling.procfile" in " ".join(runner_process.cmdline()), "make's only child"

        make.send_signal(signum)
        took = seconds_until_gone([runner_process, *children])
    finally:
        out = make.communicate(timeout=30)[0].decode()
    assert took < GRACE + MARGIN, out
    assert not (tmp_path / "var" / "run.pid").exists()


def test_make_stop_from_another_shell_stops_the_runner_and_waits_for_it(tmp_path):
    make = make_run(tmp_path)
    try:
        children = started(make.pid)
        pidfile = tmp_path / "var" / "run.pid"
        [runner_process] = psutil.Process(make.pid).children()
        assert pidfile.read_text().strip() == str(runner_process.pid)

        stop = subprocess.run(
            [sys.executable, "-m", "config.tooling.procfile", "--stop", "--pidfile", str(pidfile)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )

        assert stop.returncode == 0, stop.stderr
        assert f"Stopped `make run` (pid {runner_process.pid}) in " in stop.stdout
        assert not any(alive(p) for p in [runner_process, *children])
    finally:
        make.communicate(timeout=30)
    assert make.returncode == 0
    again = subprocess.run(
        [sys.executable, "-m", "config.tooling.procfile", "--stop", "--pidfile", str(pidfile)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert again.returncode == 0
    assert "Nothing to stop" in again.stdout


def test_a_second_run_beside_a_running_one_is_refused_naming_make_stop(tmp_path):
    make = make_run(tmp_path)
    try:
        started(make.pid)
        second = runner(tmp_path / "Procfile", "--pidfile", str(tmp_path / "var" / "run.pid"))
        err = second.communicate(timeout=30)[1]
    finally:
        make.send_signal(signal.SIGTERM)
        make.communicate(timeout=30)
    assert second.returncode == 1
    assert "`make run` is already running here" in err
    assert "`make stop`" in err


def test_the_makefile_checks_the_ports_first_and_execs_the_runner_last():
    # -o: the install step counts as done, whether or not requirements/ changed since.
    installed = ["-o", ".venv/.installed-base"]
    recipe = subprocess.run(
        ["make", "-s", "-n", *installed, "run"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()

    assert "config.tooling.procfile --check" in recipe[0]
    assert recipe[-1].startswith("exec env PORT=")
    assert "-m config.tooling.procfile" in recipe[-1]
    assert "--stop-with-parent" in recipe[-1]
    stop = subprocess.run(
        ["make", "-s", "-n", *installed, "stop"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "config.tooling.procfile --stop --pidfile" in stop
    assert "var}/run.pid" in stop
