"""The connection budget, measured: `python -m tests.bench.cluster.budget`.

Two web hosts of 2 gunicorn processes (8 upload threads and 4 for small requests each),
two worker hosts of 8 job threads each (a fast and a batch process of 4), the webhook
deliverers and the sweeper, on the test hosts (tests/bench/cluster/stack.py), under the
load test's burst and its pushers; once straight to Postgres, once through PgBouncer in
transaction pooling with the web side's pool and the workers' (jobs/ops/budget.py). Twice
a second it counts Postgres' client connections by `application_name` (each process
names itself: config/common/roles.py) and, through PgBouncer, its clients by the same names and
its server connections; the peaks are the budget (docs/running/many-machines.md).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import psycopg

from jobs.ops import budget
from tests.bench.cluster.scenario import parse as parse_scenario
from tests.bench.cluster.stack import ClusterStack, run_in, users_command
from tests.bench.cluster.users import plan_json
from tests.bench.cluster.users import stop as stop_users
from tests.bench.report import RESULTS, code_version, write_section
from tests.bench.services import TOKEN_SCRIPT, manage
from tests.harness import netns

OUT = Path(__file__).resolve().parents[3] / "var" / "bench"
# The hosts' processes: 4 job threads each, no OCR lane, web hosts of 2 x 8 (+ small).
STACK_SHAPE: dict = {"threads": 4, "ocr": False, "web_threads": 8, "web_processes": 2}
PROBE = "ingest budget probe"
UNNAMED = "(no application_name)"
ACTIVITY_SQL = """
SELECT coalesce(nullif(application_name, ''), '(no application_name)'), count(*)
FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()
GROUP BY 1
"""


class Peaks:
    """Twice a second: Postgres' connections by name, and PgBouncer's clients by name."""

    def __init__(self, database_url: str, admin_url: str | None) -> None:
        self.database_url, self.admin_url = database_url, admin_url
        self.server: Counter[str] = Counter()  # peak per name, at Postgres
        self.server_total = 0
        self.clients: Counter[str] = Counter()  # peak per name, at PgBouncer
        self.clients_total = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> Peaks:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(10)

    def _run(self) -> None:
        with psycopg.connect(self.database_url, autocommit=True) as conn:
            admin = (
                psycopg.connect(
                    self.admin_url, autocommit=True, cursor_factory=psycopg.ClientCursor
                )
                if self.admin_url
                else None
            )
            try:
                while not self._stop.wait(0.5):
                    now: Counter[str] = Counter(dict(conn.execute(ACTIVITY_SQL).fetchall()))
                    self.server |= now
                    self.server_total = max(self.server_total, sum(now.values()))
                    if admin is not None:
                        self._clients(admin)
            finally:
                if admin is not None:
                    admin.close()

    def _clients(self, admin: psycopg.Connection) -> None:
        cursor = admin.cursor()
        cursor.execute("SHOW CLIENTS")
        names = [column.name for column in cursor.description or []]
        rows = [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
        # Not the admin console's clients (this probe's own connection among them).
        service = [row for row in rows if row.get("database") != "pgbouncer"]
        now = Counter(str(row.get("application_name") or UNNAMED) for row in service)
        self.clients |= now
        self.clients_total = max(self.clients_total, sum(now.values()))


def measure(pooled: bool, users: int, seconds: float) -> dict:
    params = parse_scenario(["--users", str(users), "--ocr-workers", "0"])
    stack = ClusterStack(
        Path(tempfile.mkdtemp(prefix="ingest-budget-")),
        params.settings(),
        **STACK_SHAPE,
        sweep_every=params.sweep_every,
        pooled=pooled,
    )
    try:
        env = stack.start()
        direct = {**env, "DATABASE_URL": stack.database_url, "DATABASE_POOL_MODE": "session"}
        tokens = manage(direct, "shell", "-c", TOKEN_SCRIPT.format(users=users)).split()
        stack.start_apps(env)
        assert stack.data is not None
        admin = stack.data.pgbouncer.url("pgbouncer") if pooled else None
        peaks = Peaks(stack.database_url, admin).start()
        client = stack.host("client")
        plan = client.root / "plan.json"
        assert stack.receiver is not None
        plan.write_text(
            plan_json(
                servers=stack.web_addresses,
                tokens=tokens[-users:],
                seed=9,
                scans=False,
                webhook_url=stack.receiver.url,
                pushers=8,
            )
        )
        users_process = run_in(client, users_command(plan), env, stack.root / "users.log")
        time.sleep(seconds)
        stop_users(users_process, client.root)
        peaks.stop()
        return {
            "pooled": pooled,
            "postgres_connections_peak": peaks.server_total,
            "postgres_by_name": dict(peaks.server),
            "pgbouncer_clients_peak": peaks.clients_total if pooled else None,
            "pgbouncer_clients_by_name": dict(peaks.clients) if pooled else None,
        }
    finally:
        stack.stop()


def pool_sizes() -> budget.Budget:
    """The pools the pooled measurement runs through, as its stack sizes them."""
    stack = ClusterStack(Path(tempfile.gettempdir()), {}, **STACK_SHAPE, sweep_every=1.0)
    return stack.connection_budget()


def markdown(results: list[dict], args: argparse.Namespace) -> str:
    """The peaks as the results page shows them."""
    direct, pooled = results
    names = sorted(set(direct["postgres_by_name"]) | set(pooled["pgbouncer_clients_by_name"]))
    pools = pool_sizes()
    lines = [
        f"{args.users} users' burst and 8 clients uploading for {args.seconds:.0f} s; two web "
        "hosts of 2 processes of 8 upload threads and 4 for small requests, two worker hosts "
        "of a fast and a batch process of 4 threads and a webhook deliverer each, the "
        f"sweeper. Through PgBouncer, two pools: the web side's of {pools.web_pool} and the "
        f"workers' of {pools.workers_pool} (`manage.py connection_budget`). Code: "
        f"{code_version()}.",
        "",
        "| application_name | straight to Postgres | PgBouncer's clients | Postgres, "
        "through PgBouncer |",
        "|---|---:|---:|---:|",
    ]
    for name in names:
        lines.append(
            f"| {name} | {direct['postgres_by_name'].get(name, 0)} | "
            f"{pooled['pgbouncer_clients_by_name'].get(name, 0)} | "
            f"{pooled['postgres_by_name'].get(name, 0)} |"
        )
    lines.append(
        f"| **all at once** | **{direct['postgres_connections_peak']}** | "
        f"**{pooled['pgbouncer_clients_peak']}** | **{pooled['postgres_connections_peak']}** |"
    )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.cluster.budget")
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60.0, help="load per measurement")
    args = parser.parse_args(argv)
    why = netns.unavailable()
    if why is not None:
        print(f"connection budget: skipped: {why}")
        return 0
    results = [measure(pooled, args.users, args.seconds) for pooled in (False, True)]
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "connection-budget.json").write_text(json.dumps(results, indent=1))
    write_section(
        RESULTS, "bench-connection-budget", markdown(results, args), by=f"python -m {__spec__.name}"
    )
    for result in results:
        how = "through PgBouncer" if result["pooled"] else "straight to Postgres"
        print(f"\n{how}: Postgres connections, peak {result['postgres_connections_peak']}")
        for name, count in sorted(result["postgres_by_name"].items()):
            print(f"  {name:24} {count}")
        if result["pooled"]:
            print(f"  PgBouncer clients, peak {result['pgbouncer_clients_peak']}")
            for name, count in sorted(result["pgbouncer_clients_by_name"].items()):
                print(f"    {name:22} {count}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
