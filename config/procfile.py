"""Run the Procfile's processes and restart any that exits: `python -m config.procfile`.

Unlike a runner that stops everything when one process exits, a crashed worker pool
(Dramatiq's master stops all its children when one is killed, e.g. by the OOM killer)
comes back by itself and the web process is never taken down with it. Restarts back off
from 1 s to 30 s while a process keeps dying young. Ctrl-C or SIGTERM stops them all.
"""

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

MIN_BACKOFF, MAX_BACKOFF = 1.0, 30.0
HEALTHY_AFTER = 60.0  # a process up this long has its backoff reset
STOP_TIMEOUT = 20.0


@dataclass
class Proc:
    name: str
    command: str
    popen: subprocess.Popen[bytes] | None = None  # set by start(), before anything reads it
    started: float = 0.0
    backoff: float = MIN_BACKOFF
    restart_at: float | None = None
    restarts: int = 0
    output: threading.Thread | None = field(default=None, repr=False)


def read_procfile(path: Path) -> dict[str, str]:
    entries = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#") and ":" in line:
            name, command = line.split(":", 1)
            entries[name.strip()] = command.strip()
    return entries


def say(name: str, text: str) -> None:
    sys.stdout.write(f"{time.strftime('%H:%M:%S')} {name:<12}| {text}\n")
    sys.stdout.flush()


def _pipe(proc: Proc) -> None:
    # start() sets popen, with stdout=PIPE, before it starts this thread.
    assert proc.popen is not None
    assert proc.popen.stdout is not None
    for raw in proc.popen.stdout:
        say(proc.name, raw.decode(errors="replace").rstrip())


def start(proc: Proc) -> None:
    # Its own session, so a signal reaches the shell and everything it started.
    proc.popen = subprocess.Popen(
        ["/bin/sh", "-c", f"exec {proc.command}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    proc.started = time.monotonic()
    proc.restart_at = None
    proc.output = threading.Thread(target=_pipe, args=(proc,), daemon=True)
    proc.output.start()
    say(proc.name, f"started (pid {proc.popen.pid})")


def check(proc: Proc, now: float) -> None:
    """Restart a process that exited, after its backoff."""
    if proc.restart_at is not None:
        if now >= proc.restart_at:
            proc.restarts += 1
            start(proc)
        return
    assert proc.popen is not None  # main() starts every process before checking any
    code = proc.popen.poll()
    if code is None:
        if now - proc.started > HEALTHY_AFTER:
            proc.backoff = MIN_BACKOFF
        return
    say(proc.name, f"exited with code {code}; restarting in {proc.backoff:.0f} s")
    proc.restart_at = now + proc.backoff
    proc.backoff = min(MAX_BACKOFF, proc.backoff * 2)


def stop_all(procs: list[Proc]) -> None:
    running = [p for p in procs if p.popen is not None and p.popen.poll() is None]
    for proc in running:
        _signal(proc, signal.SIGTERM)
    deadline = time.monotonic() + STOP_TIMEOUT
    for proc in running:
        assert proc.popen is not None  # `running` has only started processes
        try:
            proc.popen.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            say(proc.name, "did not stop in time; killing it")
            _signal(proc, signal.SIGKILL)
            proc.popen.wait()


def _signal(proc: Proc, signum: int) -> None:
    assert proc.popen is not None  # only started processes are signalled
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.popen.pid, signum)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="process types to run (default: all but release)")
    parser.add_argument("-f", "--procfile", default="Procfile", type=Path)
    args = parser.parse_args(argv)
    entries = read_procfile(args.procfile)
    names = args.names or [name for name in entries if name != "release"]
    unknown = [name for name in names if name not in entries]
    if unknown:
        parser.error(f"not in {args.procfile}: {', '.join(unknown)}")
    procs = [Proc(name, entries[name]) for name in names]
    stopping = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stopping.set())
    for proc in procs:
        start(proc)
    while not stopping.wait(0.5):
        now = time.monotonic()
        for proc in procs:
            check(proc, now)
    say("system", "stopping")
    stop_all(procs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
