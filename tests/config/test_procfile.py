"""The Procfile runner restarts what dies and leaves the rest running."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[2]


def children_named(runner: subprocess.Popen, marker: str) -> list[psutil.Process]:
    found = []
    for child in psutil.Process(runner.pid).children(recursive=True):
        try:
            if marker in " ".join(child.cmdline()):
                found.append(child)
        except psutil.NoSuchProcess:
            pass
    return found


def wait_for(probe, timeout: float = 15):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = probe()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("timed out")


def test_a_killed_process_is_restarted_and_the_others_keep_running(tmp_path):
    procfile = tmp_path / "Procfile"
    procfile.write_text("release: echo never started\nweb: sleep 301\nworker: sleep 302\n")
    runner = subprocess.Popen(
        [sys.executable, "-m", "config.procfile", "-f", str(procfile)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        [web] = wait_for(lambda: children_named(runner, "sleep 301"))
        [worker] = wait_for(lambda: children_named(runner, "sleep 302"))

        worker.kill()  # as the OOM killer would

        [again] = wait_for(
            lambda: [p for p in children_named(runner, "sleep 302") if p.pid != worker.pid]
        )
        assert again.pid != worker.pid
        assert web.is_running(), "the web process was not taken down with the worker"
        assert not children_named(runner, "never started")
    finally:
        runner.send_signal(signal.SIGTERM)
        output = runner.communicate(timeout=30)[0].decode()
    assert runner.returncode == 0
    assert "exited with code -9; restarting in 1 s" in output
    assert not children_named_after_exit(web.pid)


def children_named_after_exit(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
