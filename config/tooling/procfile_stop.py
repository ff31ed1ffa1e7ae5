"""How a running Procfile runner is found and stopped from outside it.

`make run` execs the runner from its recipe, so the runner is make's only child and the
pid file (var/run.pid) names it: `make stop` from another shell reads it, sends SIGTERM
and waits until the runner, and so every server, is gone.

A user who backgrounds `make run` and signals make's pid reaches make, not the runner.
GNU make forwards SIGTERM to its children, but on SIGINT, SIGHUP or SIGQUIT it only waits
for them (at a terminal they got the signal too), which is forever here. Its handler has
that signal blocked while it waits, and Linux shows the blocked set in /proc/<pid>/status:
so a runner started with --stop-with-parent polls make's and stops when make is in a fatal
signal's handler, or gone. A shell without job control (a script's `make run &`) starts
make with SIGINT ignored: that signal never reaches make, and nothing can see it; SIGTERM
and `make stop` work there.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from pathlib import Path

import psutil

RUNNER = "config.tooling.procfile"
# The signals make's handler blocks while it waits for its children before dying.
FATAL = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)


def running(pidfile: Path) -> int | None:
    """The pid of the live runner the file names, or None (no file, a dead pid, a pid
    reused by another program)."""
    try:
        pid = int(pidfile.read_text().split()[0])
        command = " ".join(psutil.Process(pid).cmdline())
    except (OSError, ValueError, IndexError, psutil.Error):
        return None
    return pid if RUNNER in command else None


def write(pidfile: Path) -> None:
    pidfile.parent.mkdir(parents=True, exist_ok=True)
    pidfile.write_text(f"{os.getpid()}\n")


def remove(pidfile: Path) -> None:
    """Remove the file if it still names this process (a later runner may own it)."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        if int(pidfile.read_text().split()[0]) == os.getpid():
            pidfile.unlink()


def stop(pidfile: Path, timeout: float) -> int:
    """`make stop`: SIGTERM to the runner the pid file names, then wait until it is gone
    (it waits for its servers). 0 when it stopped or none was running, 1 if it outlived
    `timeout` seconds."""
    pid = running(pidfile)
    if pid is None:
        print(f"Nothing to stop: no `make run` is running ({pidfile} names none).")
        return 0
    began = time.monotonic()
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    try:
        psutil.Process(pid).wait(timeout)
    except psutil.NoSuchProcess:
        pass
    except psutil.TimeoutExpired:
        print(f"`make run` (pid {pid}) is still stopping after {timeout:.0f} s.", file=sys.stderr)
        return 1
    print(f"Stopped `make run` (pid {pid}) in {time.monotonic() - began:.1f} s.")
    return 0


class ParentWatch:
    """Whether the parent (make) has been told to stop: it is gone, or it sits in the
    handler of a fatal signal (seen twice in a row, so a moment's masking while make
    starts or reaps a child is not taken for one)."""

    def __init__(self) -> None:
        self.parent = os.getppid()
        self.status = Path(f"/proc/{self.parent}/status")
        self.mask = sum(1 << (int(signum) - 1) for signum in FATAL)
        self.seen = 0

    def told_to_stop(self) -> bool:
        if os.getppid() != self.parent:
            return True
        self.seen = self.seen + 1 if self._handling_a_fatal_signal() else 0
        return self.seen >= 2

    def _handling_a_fatal_signal(self) -> bool:
        try:
            text = self.status.read_text()
        except OSError:  # no /proc (not Linux), or the parent just went
            return False
        for line in text.splitlines():
            if line.startswith("SigBlk:"):
                return bool(int(line.split()[1], 16) & self.mask)
        return False
