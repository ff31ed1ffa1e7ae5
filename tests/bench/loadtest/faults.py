"""The faults, one after the other while jobs are processing, each with its times on record.

- a worker process SIGKILLed while it holds jobs, of the fast lane, which has another
  process, so that what is measured is how soon its jobs are taken back, not how long a
  replacement takes to boot (it is started again after a second, as the Procfile runner
  does);
- Redis stopped and started on the same port;
- Postgres restarted (fast: every session is ended);
- the S3 server stopped and started on its ports (uploads answer 503 meanwhile, and a
  worker reading a file tries again);
- the embeddings provider answering 429 with `Retry-After: 2` for a while.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

import psycopg

from tests.bench.loadtest.stack import Environment, LoadStack
from tests.harness.faults import group_pids

RETRY_AFTER = 2.0  # seconds, what the provider's 429s ask for
PROCESSING_SQL = "SELECT id::text, attempts, worker FROM jobs_job WHERE status = 'processing'"


@dataclass
class Fault:
    name: str  # kill | redis | postgres | s3 | 429
    start: float  # wall clock
    end: float = 0.0  # when the fault was over (the process back, the provider answering)
    detail: str = ""
    jobs: list[tuple[str, int]] = field(default_factory=list)  # (job, attempt) a kill cut
    alone: bool = False  # the killed process was its lane's only one
    retry_after: float = 0.0  # the cool-down a 429 asked for

    def to_json(self) -> dict:
        return asdict(self)


def _worker_pid(worker: str) -> int | None:
    """The pid in Job.worker ("host:pid:thread")."""
    parts = worker.split(":")
    return int(parts[1]) if len(parts) >= 3 and parts[1].isdigit() else None


def _processing(database_url: str) -> list[tuple[str, int, int | None]]:
    with psycopg.connect(database_url, autocommit=True, connect_timeout=5) as conn:
        rows = conn.execute(PROCESSING_SQL).fetchall()
    return [(job_id, attempts, _worker_pid(worker)) for job_id, attempts, worker in rows]


class FaultInjector:
    def __init__(self, env: Environment, stack: LoadStack, database_url: str) -> None:
        self.env, self.stack, self.database_url = env, stack, database_url
        self.faults: list[Fault] = []

    def kill_worker(self, wait: float = 60.0) -> Fault:
        """SIGKILL the worker process holding the most jobs (waiting until one holds any)
        in the lane with the most processes."""
        lanes = [worker.name.rstrip("0123456789") for worker in self.stack.workers]
        lane = max(set(lanes), key=lanes.count)
        deadline = time.monotonic() + wait
        while True:
            held = {n: jobs for n, jobs in self._jobs_by_worker().items() if lanes[n] == lane}
            best = max(held, key=lambda n: len(held[n]), default=None)
            if (best is not None and held[best]) or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        worker = self.stack.workers[best if best is not None else lanes.index(lane)]
        assert worker.popen is not None
        pids = group_pids(worker.popen.pid)
        fault = Fault("kill", time.time(), detail=f"{worker.name} (pids {sorted(pids)})")
        fault.alone = lanes.count(lane) == 1
        self.stack.held.add(worker.name)  # this restart is ours, not the supervisor's
        try:
            worker.kill()
            # Read after the kill: the rows it held cannot change any more.
            fault.jobs = [(j, a) for j, a, pid in _processing(self.database_url) if pid in pids]
            fault.detail += f", held {len(fault.jobs)} jobs"
            time.sleep(1.0)  # the Procfile runner's first back-off
            worker.start()
        finally:
            self.stack.held.discard(worker.name)
        fault.end = time.time()
        self.faults.append(fault)
        return fault

    def _jobs_by_worker(self) -> dict[int, list[str]]:
        groups = {n: group_pids(w.popen.pid) for n, w in enumerate(self.stack.workers) if w.popen}
        held: dict[int, list[str]] = {n: [] for n in groups}
        for job_id, _, pid in _processing(self.database_url):
            for n, pids in groups.items():
                if pid in pids:
                    held[n].append(job_id)
        return held

    def restart_redis(self) -> Fault:
        fault = Fault("redis", time.time(), detail="stopped, started 1 s later on its port")
        self.env.restart_redis(down_seconds=1.0)
        fault.end = time.time()
        self.faults.append(fault)
        return fault

    def restart_postgres(self) -> Fault:
        fault = Fault("postgres", time.time(), detail="pg_ctl restart -m fast")
        self.env.restart_postgres()
        fault.end = time.time()
        self.faults.append(fault)
        return fault

    def restart_s3(self) -> Fault:
        fault = Fault("s3", time.time(), detail="S3 server stopped, started 1 s later on its ports")
        self.env.restart_s3(down_seconds=1.0)
        fault.end = time.time()
        self.faults.append(fault)
        return fault

    def provider_429(self, seconds: float) -> Fault:
        assert self.env.openai is not None
        fault = Fault(
            "429",
            time.time(),
            detail=f"every call 429, Retry-After: {RETRY_AFTER:g}, {seconds:g} s",
            retry_after=RETRY_AFTER,
        )
        self.env.openai.broken = f"429:{RETRY_AFTER:g}"
        try:
            time.sleep(seconds)
        finally:
            self.env.openai.broken = None
        fault.end = time.time()
        self.faults.append(fault)
        return fault
