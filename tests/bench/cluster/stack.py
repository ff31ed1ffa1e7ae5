"""The scenario's machines, started in order and stopped in reverse (also after a failure).

Test hosts on one bridge (tests/harness/netns.py), each with its own network, process
table, host name and directory:

- `data`: Postgres (pgvector), PgBouncer in transaction pooling, Redis and SeaweedFS;
- `web1`, `web2`: gunicorn and daphne;
- `worker1`: the fast, batch and OCR lanes' workers, the webhook deliverer and the sweeper;
- `worker2`: the fast and batch lanes' workers and a webhook deliverer;
- `worker3`: nothing until the scale-out starts its workers (the KEDA measurement);
- `client`: the users (tests/bench/cluster/users.py).

The bridge's own address is the outside world: the fake embeddings provider and the
webhook receiver listen there, and the run reads the database and the metrics from there.
Every app host gets the same settings, the shared tier's addresses and its own data
directory, and runs the Procfile's commands from the checkout (as an image would).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

from jobs.ops import budget
from tests.bench.cluster import containers
from tests.bench.cluster.data import DataHost
from tests.bench.cluster.hosts import AppHost, manage, web_host, worker_host
from tests.bench.loadtest import webhooks
from tests.bench.loadtest.stack import supervise
from tests.bench.services import UNLIMITED
from tests.harness.netns import Cluster, Host
from tests.harness.servers import ROOT, BreakableOpenAI, ServerProcess

API_KEY = "cluster-key"
METRICS_PORT = 9100  # WORKER_METRICS_PORT on every worker host
IDLE_TRANSACTION_SECONDS = 10  # below the run's lease (20 s)
NAMES = ["data", "web1", "web2", "worker1", "worker2", "worker3", "client"]
# A worker process per lane on each worker host (threads each: the run's, OCR's one).
LANES = {
    "worker1": ["fast", "batch", "ocr"],
    "worker2": ["fast", "batch"],
    "worker3": ["fast", "batch"],  # started by the scale-out
}


class ClusterStack:
    def __init__(
        self,
        root: Path,
        settings: dict[str, str],
        *,
        threads: int,
        sweep_every: float,
        pooled: bool = True,
        ocr: bool = True,
        web_threads: int = 8,
        web_processes: int = 2,
        image: str | None = None,
    ) -> None:
        self.root, self.settings, self.threads = root, settings, threads
        self.sweep_every, self.pooled, self.ocr = sweep_every, pooled, ocr
        self.web_threads, self.web_processes = web_threads, web_processes
        self.image = image  # the app hosts' processes as containers of it
        self.cluster = Cluster(base=root / "cluster")
        self.data: DataHost | None = None
        self.openai: BreakableOpenAI | None = None
        self.receiver: webhooks.Receiver | None = None
        self.webs: list[AppHost] = []
        self.workers: dict[str, AppHost] = {}
        self.restarts: list[tuple[float, str, str]] = []  # (time, process, its last words)
        self.held: set[str] = set()  # processes the run itself stops and starts
        self._watch = threading.Event()

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    def host(self, name: str) -> Host:
        return self.cluster.hosts[name]

    @property
    def bridge_address(self) -> str:
        return f"10.{self.cluster.subnet}.0.1"

    @property
    def database_url(self) -> str:
        """Postgres itself, as the run reads it (not through PgBouncer)."""
        assert self.data is not None
        return self.data.direct_url

    def lanes(self, host: str) -> list[str]:
        return [lane for lane in LANES[host] if lane != "ocr" or self.ocr]

    def lane_threads(self, lane: str) -> int:
        return 1 if lane == "ocr" else self.threads

    def capacity(self, hosts: list[str]) -> dict[str, int]:
        """Worker threads per lane on `hosts`."""
        threads: dict[str, int] = {}
        for host in hosts:
            for lane in self.lanes(host):
                threads[lane] = threads.get(lane, 0) + self.lane_threads(lane)
        return threads

    def connection_budget(self) -> budget.Budget:
        """PgBouncer's two pools, as `manage.py connection_budget` sizes them for these
        hosts (the scale-out's included)."""
        sizes = {"WEB_CONCURRENCY": self.web_processes, "WEB_THREADS": self.web_threads}
        for lane in (*LANES["worker1"], "webhooks"):
            sizes[f"WORKER_{lane.upper()}_PROCESSES"] = 1
            sizes[f"WORKER_{lane.upper()}_THREADS"] = self.lane_threads(lane)
        environ = {name: str(value) for name, value in sizes.items()}
        return budget.budget(web_hosts=2, worker_hosts=len(LANES), environ=environ)

    def start(self) -> dict[str, str]:
        """Every host and service; the environment every app process gets."""
        self.logs.mkdir(parents=True, exist_ok=True)
        self.cluster.base.mkdir(parents=True, exist_ok=True)
        self.cluster.create(NAMES)
        data = self.host("data")
        pools = self.connection_budget()
        self.data = DataHost(
            data,
            data.root / "services",
            pool_size=pools.workers_pool,
            web_pool_size=pools.web_pool,
            idle_transaction=IDLE_TRANSACTION_SECONDS,
        ).start()
        self.openai = BreakableOpenAI(api_key=API_KEY, host=self.bridge_address).start()
        self.receiver = webhooks.Receiver(host=self.bridge_address).start()
        env = self.app_env()
        self._release(env)
        return env

    def app_env(self) -> dict[str, str]:
        assert self.data is not None
        assert self.openai is not None
        subnet = f"10.{self.cluster.subnet}.0.0/24"
        # The machine's environment, less what would point a process elsewhere.
        mine = ("WEB_", "WORKER_", "DATABASE_", "REDIS_", "INGEST_", "OPENAI_", "DJANGO_")
        env = {
            **{key: value for key, value in os.environ.items() if not key.startswith(mine)},
            **UNLIMITED,
            **self.settings,
            "DATABASE_URL": self.data.pooled_url if self.pooled else self.data.direct_url,
            # The web's pool apart from the workers' (jobs/ops/budget.py).
            **(
                {
                    "WEB_DATABASE_URL": self.data.pooled_web_url,
                    "WS_DATABASE_URL": self.data.pooled_web_url,
                }
                if self.pooled
                else {}
            ),
            "DATABASE_POOL_MODE": "transaction" if self.pooled else "session",
            # A cut-off worker's open transaction ends well within its lease, directly or
            # through PgBouncer (whose own setting the data host gives the same value).
            "DATABASE_IDLE_TRANSACTION_SECONDS": str(IDLE_TRANSACTION_SECONDS),
            "REDIS_URL": self.data.redis_url,
            **self.data.s3.variables,
            "INGEST_EMBED_PROVIDER": "openai",
            "OPENAI_BASE_URL": f"{self.openai.url}/v1",
            "OPENAI_API_KEY": API_KEY,
            "DJANGO_ALLOWED_HOSTS": "*",
            "INGEST_METRICS_ALLOW_CIDRS": subnet,
            "WEB_CONCURRENCY": str(self.web_processes),
            "WEB_THREADS": str(self.web_threads),
        }
        # Each worker process's own size, as the Procfile's lines read it; an account's
        # fair share of a lane is set to half the lane's threads on the two worker hosts,
        # as an operator sets it once workers scale out (docs/running/many-machines.md).
        for lane in LANES["worker1"]:
            env[f"WORKER_{lane.upper()}_PROCESSES"] = "1"
            env[f"WORKER_{lane.upper()}_THREADS"] = str(self.lane_threads(lane))
        env["INGEST_MAX_RUNNING_PER_USER"] = str(self.threads)
        env["WORKER_WEBHOOKS_THREADS"] = str(self.threads)
        env["SWEEPER_INTERVAL"] = f"{self.sweep_every:g}"
        return env

    def _release(self, env: dict[str, str]) -> None:
        """The Procfile's `release` line, once, from a worker host."""
        if self.image is not None:
            containers.release(self.host("worker1"), self.image, env)
            return
        done = self.host("worker1").run(
            manage("migrate", "--noinput", "--verbosity", "0"),
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if done.returncode != 0:
            raise RuntimeError(f"release (migrate) failed:\n{done.stdout}{done.stderr}")

    def start_apps(self, env: dict[str, str]) -> None:
        """Both web hosts and the two worker hosts, together; then supervised."""
        for name in ("web1", "web2"):
            host = self.host(name)
            if self.image is not None:  # the image has its static files collected
                self.webs.append(web_host(host, env, self.logs, self.image))
                continue
            # Each web host's own, on its own disk (whitenoise serves them from there).
            collected = host.run(
                manage("collectstatic", "--noinput", "--verbosity", "0"),
                env={**env, "INGEST_DATA_DIR": str(host.root / "var")},
                capture_output=True,
                text=True,
                timeout=300,
            )
            if collected.returncode != 0:
                raise RuntimeError(f"collectstatic on {name} failed: {collected.stderr}")
            self.webs.append(web_host(host, env, self.logs))
        for name in ("worker1", "worker2"):
            self.workers[name] = self._worker_host(name, env)
        processes = [p for app in [*self.webs, *self.workers.values()] for p in app.processes]
        _start_all(processes)
        self._watch.set()
        threading.Thread(target=self._supervise, name="supervisor", daemon=True).start()

    def _worker_host(self, name: str, env: dict[str, str]) -> AppHost:
        return worker_host(
            self.host(name),
            {**env, "WORKER_METRICS_PORT": str(METRICS_PORT)},
            self.logs,
            lanes=self.lanes(name),
            threads=self.threads,
            sweeper=name == "worker1",
            deliverer=name in ("worker1", "worker2"),
            sweep_every=self.sweep_every,
            metrics_port=METRICS_PORT,
            image=self.image,
        )

    def start_worker_host(self, name: str, env: dict[str, str]) -> AppHost:
        """A worker host started during the run (the scale-out), supervised from then on."""
        app = self._worker_host(name, env)
        _start_all(app.processes)
        self.workers[name] = app
        return app

    @property
    def web_addresses(self) -> list[tuple[str, int]]:
        return [(app.host.address, 8000) for app in self.webs]

    def processes(self) -> list[ServerProcess]:
        return [p for app in [*self.webs, *self.workers.values()] for p in app.processes]

    def _supervise(self) -> None:
        supervise(self.processes, self.held, self.restarts, self._watch)

    def metrics(self, host: str) -> list[str]:
        """A worker host's /metrics pages (WORKER_METRICS_PORT: one for the host, or one
        per container), read from outside."""
        import urllib.request

        pages = []
        for port in self.workers[host].metrics_ports:
            url = f"http://{self.host(host).address}:{port}/metrics"
            with urllib.request.urlopen(url, timeout=10) as answer:
                pages.append(answer.read().decode())
        return pages

    def stop_processes(self) -> None:
        self._watch.clear()
        for app in [*self.webs, *self.workers.values()]:
            with contextlib.suppress(Exception):
                app.stop()

    def stop(self) -> None:
        """Everything, whatever failed before; the hosts and their directories removed."""
        self.stop_processes()
        for step in (
            self.receiver.stop if self.receiver else None,
            self.openai.stop if self.openai else None,
            self.data.stop if self.data else None,
        ):
            if step is not None:
                with contextlib.suppress(Exception):
                    step()
        self.cluster.remove()
        shutil.rmtree(self.root, ignore_errors=True)


def _start_all(processes: list[ServerProcess]) -> None:
    threads = [threading.Thread(target=p.start, daemon=True) for p in processes]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    down = [p.name for p in processes if not p.alive]
    if down:
        raise RuntimeError(f"not started: {', '.join(down)}")


def users_command(plan: Path) -> list[str]:
    return [sys.executable, "-m", "tests.bench.cluster.users", str(plan)]


def run_in(host: Host, argv: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    """`argv` on `host`, its output in `log`, in a session of its own."""
    with open(log, "wb") as out:
        return host.popen(
            argv,
            env={**env, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"},
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
