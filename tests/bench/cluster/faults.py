"""The scenario's faults, one after the other while jobs are processing, each on record:

- `cut`: a worker host's link taken down while it holds jobs, for longer than a lease,
  then brought back: its jobs must be taken over elsewhere, and none of its writes land
  once it is back;
- `web`: a web host's gunicorn and daphne SIGKILLed (the machine lost), started again
  after a while: the users send to the other meanwhile, each upload with the same
  Idempotency-Key (tests/bench/cluster/users.py);
- `redis` and `s3`: the data host's Redis and S3 server stopped and started again.
"""

from __future__ import annotations

import time

import psycopg

from tests.bench.cluster.stack import ClusterStack
from tests.bench.loadtest.faults import Fault

# Job.worker is host:pid:thread, the host a test host's name or a container's of it.
HELD_SQL = """
SELECT id::text, attempts FROM jobs_job
WHERE status = 'processing' AND (worker LIKE %s OR worker LIKE %s)
"""


def _held(database_url: str, host: str) -> list[tuple[str, int]]:
    """The jobs a host's workers are processing."""
    with psycopg.connect(database_url, autocommit=True, connect_timeout=5) as conn:
        rows = conn.execute(HELD_SQL, [f"{host}:%", f"{host}-%"]).fetchall()
    return [(job, n) for job, n in rows]


class ClusterFaults:
    def __init__(self, stack: ClusterStack) -> None:
        self.stack = stack
        self.faults: list[Fault] = []

    def _record(self, fault: Fault) -> Fault:
        fault.end = time.time()
        self.faults.append(fault)
        return fault

    def cut_worker_host(self, host: str, seconds: float, wait: float = 60.0) -> Fault:
        """`host`'s link down once its workers hold jobs (waiting up to `wait`), for
        `seconds`, then up again. Its processes go on meanwhile, unaware."""
        deadline = time.monotonic() + wait
        while not (held := _held(self.stack.database_url, host)):
            if time.monotonic() > deadline:
                break
            time.sleep(0.2)
        fault = Fault("cut", time.time(), detail=f"{host} cut off for {seconds:.0f} s")
        self.stack.host(host).cut()
        try:
            # Read after the cut: what it held then, by the database's record.
            fault.jobs = _held(self.stack.database_url, host) or held
            time.sleep(seconds)
        finally:
            self.stack.host(host).mend()
        fault.detail += f", held {len(fault.jobs)} jobs"
        return self._record(fault)

    def kill_web_host(self, index: int, down: float) -> Fault:
        """Every process of a web host SIGKILLed; started again `down` seconds later."""
        app = self.stack.webs[index]
        fault = Fault("web", time.time(), detail=f"{app.host.hostname} killed for {down:.0f} s")
        names = {process.name for process in app.processes}
        self.stack.held.update(names)  # ours to start again, not the supervisor's
        try:
            for process in app.processes:
                process.kill()
            time.sleep(down)
            for process in app.processes:
                process.start()
        finally:
            self.stack.held.difference_update(names)
        return self._record(fault)

    def restart_redis(self) -> Fault:
        fault = Fault("redis", time.time(), detail="the data host's Redis stopped, 1 s down")
        assert self.stack.data is not None
        self.stack.data.restart_redis(down_seconds=1.0)
        return self._record(fault)

    def restart_s3(self) -> Fault:
        fault = Fault("s3", time.time(), detail="the data host's S3 server stopped, 1 s down")
        assert self.stack.data is not None
        self.stack.data.s3.restart(down_seconds=1.0)
        return self._record(fault)
