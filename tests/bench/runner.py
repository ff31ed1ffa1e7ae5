"""`python -m tests.bench`: the floor, the Django floor and the real app, same uploads, in turn."""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import signal
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psutil
import psycopg
import redis

from tests.bench import load, report
from tests.bench.services import (
    BASE_DIR,
    Server,
    Services,
    Setup,
    drain_jobs,
    prepare_database,
    start_services,
)

SIZES = {"100KB": 100 * 1024, "5MB": 5 * 1024 * 1024}
SCENARIOS = ("single", "clients", "burst")
# Per size: single-client count; per-client count cap and seconds for the clients run.
FULL = {"100KB": (200, 200, 10.0), "5MB": (50, 40, 15.0)}
QUICK = {"100KB": (30, 30, 3.0), "5MB": (10, 5, 3.0)}
# Measured in this order (rotated from one scenario to the next); `--apps` picks some.
APPS = {
    "floor": "tests.bench.floor:application",
    "django": "tests.bench.django_floor:application",
    "real": "config.wsgi",
}
# Under `asgi:` setups; the floor is missing here, it keeps gthread (see Setup).
ASGI_APPS = {"django": "tests.bench.django_floor:asgi_application", "real": "config.asgi"}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tests.bench", description=__doc__)
    default_setup = f"{os.environ.get('WEB_CONCURRENCY', '2')}x{os.environ.get('WEB_THREADS', '8')}"
    parser.add_argument("--quick", action="store_true", help="small counts (a smoke run)")
    parser.add_argument("--sizes", default=",".join(SIZES), help="comma list of 100KB,5MB")
    parser.add_argument("--scenarios", default=",".join(SCENARIOS), help="single,clients,burst")
    parser.add_argument("--setups", default=default_setup, help="e.g. 2x8,4x4,sync:4x1,asgi:2x1")
    parser.add_argument("--apps", default=",".join(APPS), help="comma list of floor,django,real")
    parser.add_argument("--clients", type=int, default=50, help="clients of the clients run")
    parser.add_argument("--burst", type=int, default=None, help="uploads in the burst (500)")
    parser.add_argument("--section", default="bench", help="generated block of the results page")
    parser.add_argument("--no-write", action="store_true", help="leave the results page alone")
    args = parser.parse_args(argv)
    args.sizes = [_size(name) for name in args.sizes.split(",") if name]
    args.scenarios = [s for s in args.scenarios.split(",") if s]
    if unknown := set(args.scenarios) - set(SCENARIOS):
        parser.error(f"unknown scenarios: {', '.join(sorted(unknown))}")
    apps = [a for a in args.apps.split(",") if a]
    if unknown := set(apps) - set(APPS):
        parser.error(f"unknown apps: {', '.join(sorted(unknown))}")
    if not apps:
        parser.error("--apps names no app")
    args.apps = [label for label in APPS if label in apps]
    args.setups = [Setup.parse(text) for text in args.setups.split(",") if text]
    args.burst = args.burst or (100 if args.quick else 500)
    return args


def _size(name: str) -> str:
    for known in SIZES:
        if known.lower().rstrip("b") == name.lower().rstrip("b"):
            return known
    raise SystemExit(f"unknown size {name!r}: use {', '.join(SIZES)}")


def _cpu_seconds(pids: list[int]) -> dict[int, float]:
    seconds = {}
    for pid in pids:
        try:
            times = psutil.Process(pid).cpu_times()
        except psutil.Error:
            continue
        seconds[pid] = times.user + times.system
    return seconds


def _tree(pid: int) -> list[int]:
    try:
        return [pid] + [child.pid for child in psutil.Process(pid).children(recursive=True)]
    except psutil.Error:
        return []


class Bench:
    def __init__(self, args: argparse.Namespace, services: Services, tokens: list[str]) -> None:
        self.args = args
        self.services = services
        self.tokens = tokens
        self.results: list[report.Result] = []
        self.payloads = {size: load.make_pdf(SIZES[size]) for size in args.sizes}
        self.turn = 0
        self.drain_failed = False

    def service_pids(self) -> list[int]:
        pg = self.services.postgres.get_postmaster_info().pid  # type: ignore[union-attr]
        redis = self.services.redis.process.pid  # type: ignore[union-attr]
        return [*_tree(pg), redis]

    def reset(self) -> None:
        """Start each run as if workers had kept up: no queued jobs, an empty Redis, no
        stored files (the rows stay). Then let the disk settle."""
        try:
            drain_jobs(self.services.env)
        except (RuntimeError, ValueError, IndexError) as exc:
            if not self.drain_failed:
                print(f"  (could not empty the job backlog, it will grow: {exc})", flush=True)
            self.drain_failed = True
        redis.Redis.from_url(self.services.env["REDIS_URL"]).flushall()
        with psycopg.connect(self.services.env["DATABASE_URL"], autocommit=True) as conn:
            conn.execute("ANALYZE")  # fresh tables: give the planner the statistics it has in use
        shutil.rmtree(self.services.data_dir / "media", ignore_errors=True)
        for path in (self.services.data_dir / "floor").glob("*.pdf"):
            path.unlink(missing_ok=True)
        os.sync()

    def measure(self, server: Server, setup: Setup, size: str, scenario: str) -> None:
        single, per_client, seconds = (QUICK if self.args.quick else FULL)[size]
        request = load.build_request(server.port, self.tokens, self.payloads[size])
        self.reset()
        app_pids = server.pids()
        before = _cpu_seconds(app_pids), _cpu_seconds(self.service_pids()), _client_cpu()
        if scenario == "single":
            clients, run = 1, load.sequential(server.port, request, single, 120.0)
        elif scenario == "clients":
            clients = self.args.clients
            run = load.concurrent(server.port, request, clients, per_client, seconds)
        else:
            clients, run = self.args.burst, load.burst(server.port, request, self.args.burst)
        after = _cpu_seconds(app_pids), _cpu_seconds(self.service_pids()), _client_cpu()
        result = report.summarize(
            run, setup=setup.name, size=size, scenario=scenario, app=server.label, clients=clients
        )
        result["cpu_app_s"] = sum(v - before[0].get(p, 0.0) for p, v in after[0].items())
        result["cpu_services_s"] = sum(v - before[1].get(p, 0.0) for p, v in after[1].items())
        result["cpu_client_s"] = after[2] - before[2]
        self.results.append(result)
        print(
            f"  {setup.name:>10} {size:>5} {scenario:>7} {server.label:>6}: "
            f"p50 {result['p50']:8.1f}  p95 {result['p95']:8.1f}  p99 {result['p99']:8.1f} ms  "
            f"{result['throughput']:7.1f} req/s  2xx/4xx/5xx/err {report.counts_text(result)}"
            + (f"  first error: {run.errors[0][:200]!r}" if run.errors else ""),
            flush=True,
        )

    def warm_up(self, server: Server, setup: Setup) -> None:
        request = load.build_request(server.port, self.tokens, self.payloads[self.args.sizes[0]])
        first = load.sequential(server.port, request, 10, 30.0)
        load.concurrent(server.port, request, 2 * setup.workers * setup.threads, 2, 20.0)
        failed = [s.status for s in first.samples if not 200 <= s.status < 300]
        if failed:
            detail = f"{first.errors[:1]}; see var/bench/logs/"
            print(f"  warning: {server.label} answered {failed[:5]} warming up; {detail}")

    def run_setup(self, setup: Setup, logs: Path) -> None:
        apps = ASGI_APPS if setup.worker_class == "asgi" else {}
        servers = [
            Server(label, apps.get(label, APPS[label]), setup, self.services.env, logs)
            for label in self.args.apps
        ]
        try:
            for server in servers:
                server.start()
                self.warm_up(server, setup)
            for size in self.args.sizes:
                for scenario in self.args.scenarios:
                    # Each app goes first in turn, so none always runs on a machine the
                    # others just warmed up (or left busy).
                    first = self.turn % len(servers)
                    order = servers[first:] + servers[:first]
                    self.turn += 1
                    for server in order:
                        self.measure(server, setup, size, scenario)
        finally:
            for server in servers:
                server.stop()


def _client_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _load() -> str:
    return "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def _stop_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    root = Path(tempfile.mkdtemp(prefix="ingest-bench-"))
    services = Services(root=root, postgres=None, redis=None)  # stopped: nothing to stop yet
    started = time.monotonic()
    load_before = _load()
    if os.getloadavg()[0] > 0.5:
        print(f"Warning: the machine is busy (load {load_before}); figures will be noisy.")
    try:
        print("Starting a private Postgres and Redis; migrating...", flush=True)
        services = start_services(root)
        # One user per concurrent client, as many integrators uploading at once: the
        # upload throttle keeps a per-user history that one user at full speed would bloat.
        tokens = prepare_database(services.env, max(args.clients, args.burst))
        bench = Bench(args, services, tokens)
        for setup in args.setups:
            print(f"Setup {setup.name}: {setup.description}", flush=True)
            bench.run_setup(setup, root / "logs")
        meta = metadata(args, services, load_before)
    except KeyboardInterrupt:
        print("\nInterrupted: stopping the servers, Postgres and Redis of this run.", flush=True)
        return 130
    finally:
        services.stop()
        logs = BASE_DIR / "var" / "bench" / "logs"  # the servers' logs of the last run
        shutil.rmtree(logs, ignore_errors=True)
        if (root / "logs").exists():
            shutil.copytree(root / "logs", logs)
        shutil.rmtree(root, ignore_errors=True)
    text = report.markdown(bench.results, meta)
    print("\n" + text)
    if not args.no_write:
        report.write_section(report.RESULTS, args.section, text, by="python -m tests.bench")
    path = report.write_json(
        BASE_DIR / "var" / "bench", meta["stamp"], dict(meta=meta, results=bench.results)
    )
    print(f"Raw results: {path.relative_to(BASE_DIR)}; took {time.monotonic() - started:.0f} s")
    return 0


def metadata(args: argparse.Namespace, services: Services, load_before: str) -> dict[str, Any]:
    now = datetime.now(UTC)
    counts = QUICK if args.quick else FULL
    described = "; ".join(
        f"{size}: 1 client x {counts[size][0]}, {args.clients} clients x up to {counts[size][1]} "
        f"each for up to {counts[size][2]:g} s, burst of {args.burst}"
        for size in args.sizes
    )
    return dict(
        load=f"{load_before} at the start, {_load()} at the end",
        date=now.strftime("%Y-%m-%d %H:%M UTC"),
        stamp=now.strftime("%Y%m%d-%H%M%S"),
        command=" ".join(["python -m tests.bench", *sys.argv[1:]])
        if sys.argv[1:]
        else "make bench",
        machine=report.describe_machine(services.env),
        code=report.code_version(),
        counts=described,
        setups={setup.name: setup.description for setup in args.setups},
    )
