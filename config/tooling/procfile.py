"""Run the Procfile's processes and restart any that exits: `python -m config.tooling.procfile`.

Unlike a runner that stops everything when one process exits, a crashed worker pool
(Dramatiq's master stops all its children when one is killed, e.g. by the OOM killer)
comes back by itself and the web process is never taken down with it. Restarts back off
from 1 s to 30 s while a process keeps dying young, each exit reported with the process's
last line of output (why it died, usually).

Before anything starts, the ports the servers bind are checked (config/tooling/procfile_ports.py):
one in use stops the runner at once, naming the variable that moves it. `--check` does
only that, for `make run` to call before it starts anything.

SIGINT, SIGTERM, SIGHUP or SIGQUIT stops them all: SIGTERM to each process, SIGKILL to
whatever is left of it after `--grace` seconds (at once on a second signal). With
`--pidfile` the runner's pid is written there for `--stop` (`make stop`) to find; with
`--stop-with-parent` it also stops when its parent, make, is signalled or gone
(config/tooling/procfile_stop.py says why make needs that).
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
from types import FrameType

from config.tooling import procfile_ports, procfile_stop

MIN_BACKOFF, MAX_BACKOFF = 1.0, 30.0
HEALTHY_AFTER = 60.0  # a process up this long has its backoff reset
YOUNG = 10.0  # an exit this soon after starting counts as dying young
STOP_GRACE = 5.0  # seconds from SIGTERM to SIGKILL when stopping
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)


@dataclass
class Proc:
    name: str
    command: str
    popen: subprocess.Popen[bytes] | None = None  # set by start(), before anything reads it
    started: float = 0.0
    backoff: float = MIN_BACKOFF
    restart_at: float | None = None
    restarts: int = 0
    young_exits: int = 0  # exits in a row within YOUNG seconds of starting
    last_line: str = ""
    output: threading.Thread | None = field(default=None, repr=False)

    @property
    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None


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
        line = raw.decode(errors="replace").rstrip()
        if line.strip():
            proc.last_line = line.strip()
        say(proc.name, line)


def start(proc: Proc) -> None:
    # Its own session: a Ctrl-C at the terminal reaches the runner only, which stops each
    # process in order, and a SIGKILL to the group reaches whatever the process started.
    proc.popen = subprocess.Popen(
        ["/bin/sh", "-c", f"exec {proc.command}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    proc.started = time.monotonic()
    proc.restart_at = None
    proc.last_line = ""
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
    _report_exit(proc, code, now - proc.started)
    proc.restart_at = now + proc.backoff
    proc.backoff = min(MAX_BACKOFF, proc.backoff * 2)


def _report_exit(proc: Proc, code: int, age: float) -> None:
    if proc.output is not None:
        proc.output.join(1)  # its last lines, before the verdict
    proc.young_exits = proc.young_exits + 1 if age < YOUNG else 0
    why = f"; its last output: {proc.last_line}" if proc.last_line else ""
    say(
        proc.name,
        f"exited with code {code} after {age:.1f} s; restarting in {proc.backoff:.0f} s{why}",
    )
    if proc.young_exits >= 3:
        say(
            proc.name,
            f"has exited {proc.young_exits} times in a row within {YOUNG:.0f} s of starting: "
            "it cannot run as configured (see its last output)",
        )


def stop_all(procs: list[Proc], grace: float, hurry: threading.Event) -> None:
    """SIGTERM to each running process (its leader only: gunicorn and Dramatiq pass it
    on to their children, and a second SIGTERM makes Dramatiq's worker drop its work),
    SIGKILL to the group of any still running after `grace` seconds or once `hurry` is
    set, then to every group, for anything a process left behind."""
    running = [proc for proc in procs if proc.alive]
    for proc in running:
        assert proc.popen is not None  # alive
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.popen.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while any(proc.alive for proc in running) and time.monotonic() < deadline:
        if hurry.wait(0.05):
            break
    for proc in running:
        assert proc.popen is not None
        if proc.alive:
            say(proc.name, f"did not stop within {grace:g} s; killing it")
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.popen.pid, signal.SIGKILL)
        proc.popen.wait()
    for proc in running:
        if proc.output is not None:
            proc.output.join(1)


def refusals(names: list[str], pidfile: Path | None) -> list[str]:
    """Why the processes cannot start here, one sentence each (none: they can)."""
    if pidfile is not None:
        other = procfile_stop.running(pidfile)
        if other is not None and other != os.getpid():
            return [
                f"`make run` is already running here (pid {other}, {pidfile}): `make stop` "
                "stops it (a second one needs its own INGEST_DATA_DIR and ports)"
            ]
    return procfile_ports.problems(names)


class Runner:
    def __init__(self, procs: list[Proc], *, grace: float, watch: procfile_stop.ParentWatch | None):
        self.procs = procs
        self.grace = grace
        self.watch = watch
        self.stopping = threading.Event()
        self.hurry = threading.Event()  # a second signal: no grace

    def run(self) -> int:
        ignored = signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        for signum in STOP_SIGNALS:
            signal.signal(signum, self._signalled)
        say("system", f"runner pid {os.getpid()}; Ctrl-C or `make stop` stops everything")
        if ignored:
            say(
                "system",
                "started with SIGINT ignored (in the background of a shell without job "
                "control): `kill -INT` of make reaches nothing there; `make stop`, or "
                f"kill -TERM {os.getpid()} or make's pid, stops everything",
            )
        for proc in self.procs:
            start(proc)
        while not self.stopping.wait(0.5):
            if self.watch is not None and self.watch.told_to_stop():
                say("system", "make was signalled or is gone")
                break
            now = time.monotonic()
            for proc in self.procs:
                check(proc, now)
        say("system", "stopping")
        began = time.monotonic()
        stop_all(self.procs, self.grace, self.hurry)
        say("system", f"stopped in {time.monotonic() - began:.1f} s")
        return 0

    def _signalled(self, signum: int, frame: FrameType | None) -> None:
        if self.stopping.is_set():
            self.hurry.set()
        self.stopping.set()


def _arguments(argv: list[str] | None) -> tuple[argparse.ArgumentParser, argparse.Namespace]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="process types to run (default: all but release)")
    parser.add_argument("-f", "--procfile", default="Procfile", type=Path)
    parser.add_argument("--check", action="store_true", help="only check the ports, then exit")
    parser.add_argument("--pidfile", type=Path, help="write the runner's pid here")
    parser.add_argument("--stop", action="store_true", help="stop the runner --pidfile names")
    parser.add_argument(
        "--stop-with-parent", action="store_true", help="stop when the parent (make) is signalled"
    )
    parser.add_argument("--grace", type=float, default=STOP_GRACE, help="seconds to SIGKILL")
    return parser, parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    parser, args = _arguments(argv)
    if args.stop:
        if args.pidfile is None:
            parser.error("--stop needs --pidfile")
        return procfile_stop.stop(args.pidfile, timeout=args.grace + 10)
    entries = read_procfile(args.procfile)
    names = args.names or [name for name in entries if name != "release"]
    unknown = [name for name in names if name not in entries]
    if unknown:
        parser.error(f"not in {args.procfile}: {', '.join(unknown)}")
    refused = refusals(names, args.pidfile)
    for sentence in refused:
        print(f"make run: {sentence}", file=sys.stderr)
    if refused or args.check:
        return 1 if refused else 0
    if args.pidfile is not None:
        procfile_stop.write(args.pidfile)
    watch = procfile_stop.ParentWatch() if args.stop_with_parent else None
    try:
        return Runner([Proc(n, entries[n]) for n in names], grace=args.grace, watch=watch).run()
    finally:
        if args.pidfile is not None:
            procfile_stop.remove(args.pidfile)


if __name__ == "__main__":
    sys.exit(main())
