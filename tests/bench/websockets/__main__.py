"""`python -m tests.bench.websockets`: the command line and the run (see the package docstring)."""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import shutil
import signal
import tempfile
import time
from pathlib import Path

from tests.bench import report, websockets
from tests.bench.services import BASE_DIR, Services, start_services
from tests.bench.websockets import CONNECT_CONCURRENCY, QUICK_STEPS, SECTION, STEPS
from tests.bench.websockets.measure import Bench
from tests.bench.websockets.setup import Daphne, prepare
from tests.bench.websockets.summary import markdown, metadata


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m tests.bench.websockets",
        description=" ".join(websockets.__doc__.split("\n\n")[0].split()),
    )
    parser.add_argument("--quick", action="store_true", help="small steps (a smoke run)")
    parser.add_argument(
        "--steps", help=f"comma list of client counts ({','.join(map(str, STEPS))})"
    )
    parser.add_argument("--per-user", type=int, default=10, help="clients per user (10)")
    parser.add_argument("--documents", type=int, default=5, help="processing documents per user")
    parser.add_argument("--rate", type=float, default=1.0, help="pushes per user per second (1)")
    parser.add_argument("--seconds", type=float, help="pushing time per step (10; quick 3)")
    parser.add_argument(
        "--connect-concurrency",
        type=int,
        default=CONNECT_CONCURRENCY,
        help=f"handshakes in flight at once ({CONNECT_CONCURRENCY})",
    )
    parser.add_argument("--section", default=SECTION, help="generated block of the results page")
    parser.add_argument("--no-write", action="store_true", help="leave the results page alone")
    args = parser.parse_args(argv)
    if args.steps:
        args.steps = sorted({int(n) for n in args.steps.split(",") if n})
    else:
        args.steps = list(QUICK_STEPS if args.quick else STEPS)
    args.seconds = args.seconds or (3.0 if args.quick else 10.0)
    args.drain = 3.0 if args.quick else 5.0  # how long stragglers may take after the pushes
    if args.per_user < 1 or args.documents < 1 or args.rate <= 0 or not args.steps:
        parser.error("--per-user, --documents, --rate and --steps must be positive")
    return args


# --------------------------------------------------------------------------- main


def _raise_fd_limit(clients: int) -> None:
    """Each client holds a socket here and one in daphne (which inherits the limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = clients + 1024
    if soft != resource.RLIM_INFINITY and soft < wanted:
        new = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))
        if new < wanted:
            print(f"Warning: only {new} file descriptors allowed; large steps will fail.")


def _stop_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    _raise_fd_limit(max(args.steps))
    root = Path(tempfile.mkdtemp(prefix="ingest-ws-bench-"))
    services = Services(root=root, postgres=None, redis=None)  # stopped: nothing to stop yet
    daphne: Daphne | None = None
    bench: Bench | None = None
    started = time.monotonic()
    load_before = "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    if os.getloadavg()[0] > 0.5:
        print(f"Warning: the machine is busy (load {load_before}); figures will be noisy.")
    try:
        print("Starting a private Postgres and Redis; migrating; signing users in...", flush=True)
        services = start_services(root)
        users = -(-max(args.steps) // args.per_user)
        cookie, made = prepare(services.env, users, args.documents)
        daphne = Daphne(services.env, root / "logs").start()
        print(f"daphne on port {daphne.port}; steps {args.steps}", flush=True)
        bench = Bench(args, services, daphne, cookie, made)
        asyncio.run(bench.run())
        meta = metadata(args, services, load_before)
    except KeyboardInterrupt:
        print("\nInterrupted: stopping daphne, Postgres and Redis of this run.", flush=True)
        return 130
    finally:
        if daphne is not None:
            daphne.stop()
        services.stop()
        logs = BASE_DIR / "var" / "bench" / "logs-websockets"
        shutil.rmtree(logs, ignore_errors=True)
        if (root / "logs").exists():
            shutil.copytree(root / "logs", logs)
        shutil.rmtree(root, ignore_errors=True)
    text = markdown(bench.results, meta)
    print("\n" + text)
    if not args.no_write:
        report.write_section(
            report.RESULTS, args.section, text, by="python -m tests.bench.websockets"
        )
    path = report.write_json(
        BASE_DIR / "var" / "bench",
        f"websockets-{meta['stamp']}",
        dict(meta=meta, results=bench.results),
    )
    print(f"Raw results: {path.relative_to(BASE_DIR)}; took {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
