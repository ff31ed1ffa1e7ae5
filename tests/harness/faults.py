"""The faults the crash tests, the browser tests and the load test inject, written once:
a process group SIGKILLed (as the OOM killer would), Redis restarted without persistence,
Postgres restarted fast (every session ended)."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path
from typing import Protocol

from config.tooling import embedded


class Restartable(Protocol):
    def stop(self) -> None: ...
    def start(self) -> object: ...


def kill_group(leader: int) -> None:
    """SIGKILL every process of the process group `leader` leads (a server started in a
    session of its own); nothing happens if it is gone already."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(leader, signal.SIGKILL)


def group_pids(leader: int) -> set[int]:
    """Every live process in the process group `leader` leads."""
    pids = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError, IndexError):
            stat = (entry / "stat").read_text()
            fields = stat[stat.rindex(")") + 2 :].split()
            if int(fields[2]) == leader:  # the process group id
                pids.add(int(entry.name))
    return pids


def restart_redis(redis: Restartable, *, down_seconds: float = 1.0) -> None:
    """Stop Redis and start it again on its port after `down_seconds`. Without
    persistence, as the tests run it, every message it held is gone."""
    redis.stop()
    time.sleep(down_seconds)
    redis.start()


def restart_postgres(pgdata: Path) -> None:
    """`pg_ctl restart -m fast` of the private cluster in `pgdata`: every session ends, and
    it answers again on the same socket and port when this returns."""
    embedded.restart_postgres(pgdata)
