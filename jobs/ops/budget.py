"""The connection budget, from the process model: how many connections each process line
holds straight to Postgres, and the PgBouncer pools that keep the lines apart.

The counts follow what each process does (docs/running/many-machines.md, measured by
`python -m tests.bench.cluster.budget`):

- a web process keeps a connection per thread that has served a request (WEB_THREADS
  for uploads and WEB_SMALL_THREADS for the rest);
- a ws process, one per thread of its row-reading pool (documents/page/socket/consumer.py);
- a worker process, two per job thread (the job's and its lease keeper's, while it runs),
  and a webhook deliverer one per thread;
- the sweeper one, the release one.

Through PgBouncer in transaction pooling a client holds a server connection only inside a
transaction, so a pool is sized by the transactions a line can have open at once, not by
its clients. Two pools: `web` (the web and ws lines: transactions of milliseconds, from
threads that mostly wait on the network) and `workers` (the worker lines, the sweeper,
the release and one-off commands: a job's chunk writes hold a transaction for a whole
batch). Each has its own PgBouncer database name, so that neither can take the other's
server connections: an upload burst cannot starve the jobs, nor a backlog of jobs the
uploads.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

# Each row-reading thread of a ws process (documents.page.socket.consumer.ROW_THREADS).
WS_ROW_THREADS = 4
# A web process's threads inside a transaction at once: the one running Python and those
# waiting on Postgres mid-transaction; its other threads read bodies, talk to Redis and
# S3 or wait for the interpreter. Past this, a request waits for a server connection a
# few milliseconds, inside PgBouncer, rather than taking the workers'.
WEB_TRANSACTIONS_PER_PROCESS = 4
# Postgres keeps these for superusers (superuser_reserved_connections): an operator's psql
# and the admin console's own.
RESERVED = 3
# The Procfile's worker lines: (lane, default processes, default threads).
WORKER_LINES = (("fast", 1, 4), ("batch", 1, 4), ("ocr", 1, 1), ("webhooks", 1, 8))


@dataclass(frozen=True)
class Line:
    name: str
    processes: int  # across all hosts
    threads: int  # per process
    clients: int  # connections held straight to Postgres, at most


@dataclass(frozen=True)
class Budget:
    lines: list[Line]
    web_pool: int  # PgBouncer's pool for the web and ws lines
    workers_pool: int  # for the worker lines, the sweeper, the release and one-off commands

    @property
    def clients(self) -> int:
        return sum(line.clients for line in self.lines)

    @property
    def pooled(self) -> int:
        """Postgres' connections through PgBouncer, at most."""
        return self.web_pool + self.workers_pool

    def max_connections(self, pooled: bool) -> int:
        """Postgres' max_connections this needs, with its superuser reserve."""
        return (self.pooled if pooled else self.clients) + RESERVED


def _number(environ: Mapping[str, str], name: str, default: int) -> int:
    raw = environ.get(name, "").strip()
    return int(raw) if raw else default


def budget(
    *, web_hosts: int, worker_hosts: int, environ: Mapping[str, str] | None = None
) -> Budget:
    """The budget of `web_hosts` machines running the web and ws lines and `worker_hosts`
    running every worker line, each line sized as `environ` (os.environ) sizes it on
    every host, with the Procfile's defaults; one sweeper."""
    env = os.environ if environ is None else environ
    web_processes = web_hosts * _number(env, "WEB_CONCURRENCY", 2)
    # Uploads' threads and the small requests' (config/http/gthread.py).
    web_threads = _number(env, "WEB_THREADS", 8) + _number(env, "WEB_SMALL_THREADS", 4)
    lines = [
        Line("web", web_processes, web_threads, web_processes * web_threads),
        Line("ws", web_hosts, WS_ROW_THREADS, web_hosts * WS_ROW_THREADS),
    ]
    job_threads = worker_processes = 0
    for lane, processes, threads in WORKER_LINES:
        count = worker_hosts * _number(env, f"WORKER_{lane.upper()}_PROCESSES", processes)
        each = _number(env, f"WORKER_{lane.upper()}_THREADS", threads)
        per_thread = 1 if lane == "webhooks" else 2  # a job's thread and its lease keeper's
        lines.append(Line(f"worker-{lane}", count, each, count * each * per_thread))
        worker_processes += count
        if lane != "webhooks":
            job_threads += count * each
    lines += [Line("sweeper", 1, 1, 1), Line("release", 1, 1, 1)]
    ws_processes = web_hosts
    web_pool = (web_processes + ws_processes) * WEB_TRANSACTIONS_PER_PROCESS
    # Every job thread may be inside a chunk write at once; each worker process's other
    # transactions (lease renewals, a delivery's record) are short and share one more;
    # the sweeper's pass and a release or shell, one each.
    workers_pool = job_threads + worker_processes + 2
    clients = {line.name: line.clients for line in lines}
    return Budget(
        lines=lines,
        web_pool=min(web_pool, clients["web"] + clients["ws"]),
        workers_pool=workers_pool,
    )


def pgbouncer_databases(budget: Budget, *, postgres: str, database: str) -> str:
    """pgbouncer.ini's [databases]: a database name per pool, both the same database of
    the Postgres at `postgres` (host or host:port)."""
    host, _, port = postgres.partition(":")
    where = f"host={host}" + (f" port={port}" if port else "") + f" dbname={database}"
    return "\n".join(
        [
            "[databases]",
            f"{database}_web = {where} pool_size={budget.web_pool}",
            f"{database} = {where} pool_size={budget.workers_pool}",
        ]
    )


def render(budget: Budget, *, web_hosts: int, worker_hosts: int, postgres: str, db: str) -> str:
    """The budget as `manage.py connection_budget` prints it."""
    rows = [
        f"  {line.name:16} {line.processes:>9} {line.threads:>7} {line.clients:>11}"
        for line in budget.lines
    ]
    pooled_need, straight_need = budget.max_connections(True), budget.max_connections(False)
    return "\n".join(
        [
            f"{web_hosts} web host(s), {worker_hosts} worker host(s), one sweeper.",
            "",
            "Straight to Postgres, each line holds at most:",
            f"  {'line':16} {'processes':>9} {'threads':>7} {'connections':>11}",
            *rows,
            f"  {'all':16} {'':>9} {'':>7} {budget.clients:>11}",
            f"Postgres' max_connections must be at least {straight_need} "
            f"({budget.clients} and {RESERVED} reserved).",
            "",
            "Through PgBouncer (pool_mode = transaction), a pool per side:",
            f"  {db}_web: pool_size {budget.web_pool:>4}  (web and ws)",
            f"  {db}: {' ' * 4}pool_size {budget.workers_pool:>4}  "
            "(workers, sweeper, release, one-off commands)",
            f"Postgres' max_connections must be at least {pooled_need} "
            f"({budget.pooled} and {RESERVED} reserved).",
            "",
            "pgbouncer.ini:",
            pgbouncer_databases(budget, postgres=postgres, database=db),
            "",
            "The service's settings (the pooler's address in place of pgbouncer:6432):",
            f"  DATABASE_URL=postgresql://USER:PASSWORD@pgbouncer:6432/{db}",
            f"  WEB_DATABASE_URL=postgresql://USER:PASSWORD@pgbouncer:6432/{db}_web",
            f"  WS_DATABASE_URL=postgresql://USER:PASSWORD@pgbouncer:6432/{db}_web",
            "  DATABASE_POOL_MODE=transaction",
            "",
        ]
    )
