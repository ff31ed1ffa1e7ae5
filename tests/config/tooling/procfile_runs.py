"""The Procfile runner in a subprocess, on a small Procfile of sleep-like commands."""

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import psutil

ROOT = Path(__file__).resolve().parents[3]
T = TypeVar("T")


def as_at_a_terminal() -> None:
    """For a child's preexec_fn: no signal blocked, and SIGINT and SIGHUP not ignored, as
    at a terminal, whatever started the test run (`nohup` ignores SIGHUP, a thread of the
    test run may block a signal, and make inherits both and keeps them)."""
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    for signum in (signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)


def runner(
    procfile: Path, *args: str, log: Path | None = None, **env: str
) -> subprocess.Popen[str]:
    """The runner on `procfile`; its stdout to `log` when given (to read while it runs)."""
    return subprocess.Popen(
        [sys.executable, "-m", "config.tooling.procfile", "-f", str(procfile), *args],
        cwd=ROOT,
        env={**os.environ, **env},
        stdout=subprocess.PIPE if log is None else log.open("w"),
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=as_at_a_terminal,
    )


def wait_for(probe: Callable[[], T], timeout: float = 20) -> T:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = probe()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("timed out")


def descendants(pid: int) -> list[psutil.Process]:
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def named(pid: int, marker: str) -> list[psutil.Process]:
    found = []
    for child in descendants(pid):
        try:
            if marker in " ".join(child.cmdline()):
                found.append(child)
        except psutil.NoSuchProcess:
            pass
    return found


def alive(process: psutil.Process) -> bool:
    try:
        return process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def seconds_until_gone(processes: list[psutil.Process], timeout: float = 60) -> float:
    """From now until none of the processes runs (a zombie counts as gone)."""
    began = time.monotonic()
    wait_for(lambda: not any(alive(p) for p in processes), timeout)
    return time.monotonic() - began
