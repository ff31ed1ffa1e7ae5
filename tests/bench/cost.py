"""`python -m tests.bench.cost`: what each job costs the shared tier, and what running jobs
and idle worker threads cost it per second.

On a private stack started as the Procfile starts it (web, ws, worker lanes, the webhook
deliverer, the sweeper), with pg_stat_statements loaded in its Postgres and Redis'
command statistics reset:

1. **Per job**: `--jobs` real PDFs of the corpus (one user each) are uploaded at once and
   drained. Every Postgres statement and Redis command of the run, web and workers, is
   counted, with the server time it took, and divided by the jobs.
2. **Per second, at `--running` jobs running**: as many jobs are held in their embedding
   call (the fake provider waits) on a fast lane of that many threads, while the batch
   lane's threads sit idle; for `--window` seconds the statements and commands per second
   are counted: lease renewals (the job row's heartbeat UPDATE), the workers' own
   heartbeats in Redis, and the idle threads' polling of their queues.

Writes the `bench-cost` block of docs/working/benchmark-results.md; the capacity model in
docs/running/many-machines.md is derived from its figures.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import psycopg
import redis

from config.tooling import embedded
from tests.bench.loadtest import client, payloads
from tests.bench.loadtest.scenario import Params
from tests.bench.loadtest.stack import Environment
from tests.bench.report import RESULTS, code_version, describe_machine, write_section
from tests.bench.services import prepare_database

MARK = "/* bench-cost */"  # the bench's own queries, left out of the counts
STATEMENTS_SQL = f"""{MARK}
SELECT query, calls, total_exec_time FROM pg_stat_statements
WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND query NOT LIKE '%%bench-cost%%'
"""
UNFINISHED_SQL = f"{MARK} SELECT count(*) FROM jobs_job WHERE status IN ('queued', 'processing')"
RUNNING_SQL = f"{MARK} SELECT count(*) FROM jobs_job WHERE status = 'processing'"
CONNECTIONS_SQL = (
    f"{MARK} SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'"
)


def say(message: str) -> None:
    print(f"[cost {time.strftime('%H:%M:%S')}] {message}", flush=True)


@dataclass
class Tally:
    """Statements and commands over a stretch of the run, and their server time."""

    seconds: float
    pg_calls: int = 0
    pg_ms: float = 0.0
    redis_calls: int = 0
    redis_ms: float = 0.0
    pg_top: list[tuple[str, int, float]] = field(default_factory=list)  # (query, calls, ms)
    pg_slowest: list[tuple[str, int, float]] = field(default_factory=list)  # by server time
    redis_top: list[tuple[str, int, float]] = field(default_factory=list)


def enable_statement_statistics(database_url: str, pgdata: Path) -> None:
    """pg_stat_statements loaded (a restart) and created in the service's database; room
    for every thread's connections (a running job holds two: its thread's and its lease
    keeper's), which Postgres' default of 100 would refuse at 128 jobs running."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("ALTER SYSTEM SET max_connections = 600")
        conn.execute("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'")
        conn.execute("ALTER SYSTEM SET pg_stat_statements.track = 'top'")
    embedded.restart_postgres(pgdata)
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")


def reset(database_url: str, redis_url: str) -> float:
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(f"{MARK} SELECT pg_stat_statements_reset()")
    redis.Redis.from_url(redis_url).config_resetstat()
    return time.monotonic()


def tally(database_url: str, redis_url: str, since: float) -> Tally:
    seconds = time.monotonic() - since
    with psycopg.connect(database_url, autocommit=True) as conn:
        rows = conn.execute(STATEMENTS_SQL).fetchall()
    commands = redis.Redis.from_url(redis_url).info("commandstats")
    result = Tally(seconds=seconds)
    result.pg_calls = sum(int(calls) for _, calls, _ in rows)
    result.pg_ms = sum(float(ms) for _, _, ms in rows)
    shown = [(" ".join(query.split())[:110], int(calls), float(ms)) for query, calls, ms in rows]
    result.pg_top = sorted(shown, key=lambda row: -row[1])[:8]
    result.pg_slowest = sorted(shown, key=lambda row: -row[2])[:8]
    redis_rows = [
        (name.removeprefix("cmdstat_"), int(stats["calls"]), int(stats["usec"]) / 1000)
        for name, stats in commands.items()
        if name not in ("cmdstat_config", "cmdstat_info")  # the bench's own
    ]
    result.redis_calls = sum(calls for _, calls, _ in redis_rows)
    result.redis_ms = sum(ms for _, _, ms in redis_rows)
    result.redis_top = sorted(redis_rows, key=lambda row: -row[1])[:10]
    return result


def count(database_url: str, sql: str) -> int:
    with psycopg.connect(database_url, autocommit=True) as conn:
        row = conn.execute(sql).fetchone()
    return int(row[0]) if row else 0


def wait_for(database_url: str, sql: str, done: Callable[[int], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not done(count(database_url, sql)):
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting: {sql} = {count(database_url, sql)}")
        time.sleep(2.0)


def per_job(args: argparse.Namespace) -> tuple[Tally, dict]:
    root = Path(tempfile.mkdtemp(prefix="ingest-bench-cost-"))
    params = _params(args.jobs, workers=3, threads=4)
    env = Environment(root, params.settings(), workers=3, threads=4, ocr_workers=0)
    try:
        service_env = env.start_services()
        database_url, redis_url = service_env["DATABASE_URL"], service_env["REDIS_URL"]
        enable_statement_statistics(database_url, env.pgdata)
        tokens = prepare_database(service_env, args.jobs)
        uploads = payloads.burst(args.jobs, payloads.corpus_files(), seed=3, scans=False)
        stack = env.start_stack(service_env, sweep_every=30)
        client.warm_up(stack.web_port, tokens[-4:])
        wait_for(database_url, UNFINISHED_SQL, lambda n: n == 0, 120)
        machine = describe_machine(service_env)
        since = reset(database_url, redis_url)
        say(f"per job: {args.jobs} uploads at once, drained")
        answers = client.burst(stack.web_port, tokens, uploads, "")
        accepted = sum(1 for answer in answers if answer.accepted)
        wait_for(database_url, UNFINISHED_SQL, lambda n: n == 0, 900)
        result = tally(database_url, redis_url, since)
        say(f"  {accepted} jobs in {result.seconds:.0f} s")
        return result, {"jobs": accepted, "machine": machine}
    finally:
        env.stop()


def running(args: argparse.Namespace) -> tuple[Tally, dict]:
    root = Path(tempfile.mkdtemp(prefix="ingest-bench-cost-running-"))
    processes = 4  # fast-lane processes of running/4 threads each; as many batch ones idle
    threads = max(1, args.running // processes)
    params = _params(args.running, workers=2 * processes, threads=threads)
    settings = params.settings() | {"INGEST_LEASE_SECONDS": str(args.lease)}
    env = Environment(root, settings, workers=2 * processes, threads=threads, ocr_workers=0)
    try:
        service_env = env.start_services()
        database_url, redis_url = service_env["DATABASE_URL"], service_env["REDIS_URL"]
        enable_statement_statistics(database_url, env.pgdata)
        tokens = prepare_database(service_env, args.running)
        small = [file for file in payloads.corpus_files() if file.bytes < 512 * 1024]
        uploads = payloads.burst(args.running, small, seed=4, scans=False)
        stack = env.start_stack(service_env, sweep_every=30)
        assert env.openai is not None
        env.openai.hold()  # every embedding call waits: the jobs stay running
        client.burst(stack.web_port, tokens, uploads, "")
        wanted = int(args.running * 0.95)
        wait_for(database_url, RUNNING_SQL, lambda n: n >= wanted, 120)
        time.sleep(5.0)  # the last ones' first writes (pages read, chunks counted) done
        held = count(database_url, RUNNING_SQL)
        since = reset(database_url, redis_url)
        say(f"per second: {held} jobs running, {args.window:.0f} s")
        time.sleep(args.window)
        result = tally(database_url, redis_url, since)
        connections = count(database_url, CONNECTIONS_SQL)
        env.openai.release()
        threads_total = sum(stack.capacity.values())
        return result, {
            "running": held,
            "threads": threads_total,
            "lease": args.lease,
            "connections": connections,
        }
    finally:
        env.stop()


def _params(users: int, *, workers: int, threads: int) -> Params:
    return Params(
        users=users,
        workers=workers,
        threads=threads,
        lease=60,
        sweep_every=30,
        grace=900,
        gap=0,
        window_429=0,
        settle=0,
        drain_timeout=900,
        pushers=0,
        backlog_extra=1000,
        seed=3,
    )


def report(job: Tally, job_meta: dict, steady: Tally, steady_meta: dict) -> str:
    jobs = max(1, job_meta["jobs"])
    rate = max(steady.seconds, 1e-9)
    lines = [
        f"Machine: {job_meta['machine']}. Code: {code_version()}.",
        "",
        f"**Per job** ({jobs} jobs of the corpus, uploaded at once and drained in "
        f"{job.seconds:.0f} s; web and workers together):",
        "",
        "| | per job | server time per job |",
        "|---|---:|---:|",
        f"| Postgres statements | {job.pg_calls / jobs:.0f} | {job.pg_ms / jobs:.1f} ms |",
        f"| Redis commands | {job.redis_calls / jobs:.0f} | {job.redis_ms / jobs:.2f} ms |",
        "",
        f"**Per second at {steady_meta['running']} jobs running** (held in their embedding "
        f"call; {steady_meta['threads']} worker threads, half of them idle; lease "
        f"{steady_meta['lease']} s; {steady.seconds:.0f} s window; "
        f"{steady_meta['connections']} client connections open to Postgres):",
        "",
        "| | per second | server time per second |",
        "|---|---:|---:|",
        f"| Postgres statements | {steady.pg_calls / rate:.1f} | {steady.pg_ms / rate:.1f} ms |",
        f"| Redis commands | {steady.redis_calls / rate:.1f} | {steady.redis_ms / rate:.2f} ms |",
        "",
        "Postgres statements per job, the most frequent and then the costliest:",
        "",
        "| calls per job | ms per job | statement |",
        "|---:|---:|---|",
        *[
            f"| {calls / jobs:.1f} | {ms / jobs:.2f} | `{query.replace('|', '/')}` |"
            for query, calls, ms in job.pg_top + [r for r in job.pg_slowest if r not in job.pg_top]
        ],
        "",
        "Redis commands per job:",
        "",
        "| calls per job | ms per job | command |",
        "|---:|---:|---|",
        *[
            f"| {calls / jobs:.1f} | {ms / jobs:.3f} | `{name}` |"
            for name, calls, ms in job.redis_top
        ],
        "",
        f"Most frequent statements and commands per second at {steady_meta['running']} running:",
        "",
        "| per second | statement or command |",
        "|---:|---|",
        *[
            f"| {calls / rate:.2f} | `{query.replace('|', '/')}` |"
            for query, calls, _ in steady.pg_top[:6]
        ],
        *[f"| {calls / rate:.2f} | Redis `{name}` |" for name, calls, _ in steady.redis_top[:6]],
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.cost", description=__doc__)
    parser.add_argument("--jobs", type=int, default=200)
    parser.add_argument("--running", type=int, default=128)
    parser.add_argument("--window", type=float, default=30.0)
    parser.add_argument("--lease", type=int, default=60, help="INGEST_LEASE_SECONDS")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    job, job_meta = per_job(args)
    steady, steady_meta = running(args)
    text = report(job, job_meta, steady, steady_meta)
    print(text)
    write_section(RESULTS, "bench-cost", text, by="python -m tests.bench.cost")
    if args.json:
        figures = {"per_job": asdict(job), "running": asdict(steady)}
        args.json.write_text(json.dumps(figures | {"meta": [job_meta, steady_meta]}, indent=2))


if __name__ == "__main__":
    main()
