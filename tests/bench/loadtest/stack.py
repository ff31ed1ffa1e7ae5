"""The load test's private stack: what the Procfile runs, on services nobody else uses.

Postgres, Redis and the data directory come from tests.bench.services (a temporary directory),
the uploads are stored on a real S3 server of the run's own (SeaweedFS, config/tooling/s3.py);
the server processes are tests/harness/servers.py's, each in its own session, plus more
Dramatiq workers (the OCR lane's when asked for) and the sweeper; the embeddings provider
is the fake OpenAI server that the browser tests switch between answers. Nothing is
shared with `make run`.
"""

from __future__ import annotations

import contextlib
import shutil
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from config.tooling.s3 import S3Server
from jobs.lanes import lane_queues
from tests.bench.services import Services, start_services
from tests.harness import faults
from tests.harness.servers import BreakableOpenAI, ServerProcess, Stack

API_KEY = "loadtest-key"
# The Procfile's CPU priorities (WORKER_NICE, WORKER_BATCH_NICE, WORKER_OCR_NICE): uploads
# come first.
NICE = {"fast": 10, "batch": 15, "ocr": 15}
# The Procfile's OCR lane: processes of one thread (WORKER_OCR_THREADS' default), as
# Tesseract reads a page on one core. They come on top of the text lanes' `workers`.
OCR_THREADS = 1


def supervise(
    processes: Callable[[], list[ServerProcess]],
    held: set[str],
    restarts: list[tuple[float, str, str]],
    watch: threading.Event,
) -> None:
    """While `watch` is set: start again, a second later, any of `processes` that exited
    and is not `held` (the run's own to stop and start), as the Procfile runner
    (config/tooling/procfile.py) does on a machine; each restart on record in `restarts`."""
    while watch.is_set():
        for process in processes():
            if process.name in held or process.alive or not watch.is_set():
                continue
            last = process.output(3).replace("\n", " | ")[-300:]
            restarts.append((time.time(), process.name, last))
            time.sleep(1.0)
            with contextlib.suppress(RuntimeError):
                process.start()
        time.sleep(0.5)


def lane_split(workers: int) -> dict[str, int]:
    """Worker processes per lane: `workers` shared out, the fast lane first, at least one
    each (the Procfile's default is one each)."""
    return {"fast": max(1, (workers + 1) // 2), "batch": max(1, workers // 2)}


def worker_command(lane: str, threads: int, nice: int | None = None) -> list[str]:
    """The Procfile's `worker-<lane>` line, one process (at `nice`, else the Procfile's)."""
    queues = lane_queues(lane) + (["alerts"] if lane == "fast" else [])
    return _rundramatiq(queues, threads, NICE[lane] if nice is None else nice)


def deliverer_command(threads: int) -> list[str]:
    """The Procfile's `worker-webhooks` line: webhook deliveries, on no job's threads."""
    return _rundramatiq(["webhooks"], threads, NICE["fast"])


def _rundramatiq(queues: list[str], threads: int, nice: int) -> list[str]:
    return [
        "nice",
        "-n",
        str(nice),
        sys.executable,
        "manage.py",
        "rundramatiq",
        "--processes=1",
        f"--threads={threads}",
        "--queues",
        *queues,
        "--worker-shutdown-timeout=5000",
    ]


class LoadStack(Stack):
    """gunicorn, daphne, `workers` rundramatiq processes, the webhook deliverer and the
    looping sweeper.

    As the Procfile runs them: each lane has its own worker processes (`lane_split`, and
    `ocr_workers` of one thread for the OCR lane), each consuming only its lane's queues
    (the fast lane's also the alerts), at the Procfile's lower CPU priority, prefetching
    one message per thread. The workers are told the pools' sizes
    (WORKER_<LANE>_PROCESSES, _THREADS), from which each owner's share of a lane follows
    (jobs/fairness.py).
    """

    def __init__(
        self,
        env: dict[str, str],
        logs: Path,
        *,
        workers: int,
        threads: int,
        sweep_every: float,
        nice: int | None = None,
        ocr_workers: int = 0,
    ) -> None:
        pools = lane_split(workers) | ({"ocr": ocr_workers} if ocr_workers else {})
        lane_threads = {lane: OCR_THREADS if lane == "ocr" else threads for lane in pools}
        sizes = {f"WORKER_{lane.upper()}_PROCESSES": str(n) for lane, n in pools.items()}
        sizes |= {f"WORKER_{lane.upper()}_THREADS": str(n) for lane, n in lane_threads.items()}
        super().__init__({**env, **sizes}, logs)
        self.threads = threads
        # Jobs each lane's workers can hold at once.
        self.capacity = {lane: n * lane_threads[lane] for lane, n in pools.items()}

        def ready(process: ServerProcess) -> bool:
            return "Worker process is ready for action" in process.output(400)

        self.workers = [
            ServerProcess(
                f"worker-{lane}{n}",
                worker_command(lane, lane_threads[lane], nice),
                self.worker_env | {"dramatiq_queue_prefetch": str(lane_threads[lane])},
                logs,
                ready,
            )
            for lane, count in pools.items()
            for n in range(count)
        ]
        self.deliverer = ServerProcess(
            "worker-webhooks", deliverer_command(threads), self.worker_env, logs, ready
        )
        sweeper = [sys.executable, "manage.py", "requeue_stuck", "--loop", str(sweep_every)]
        self.sweeper = ServerProcess("sweeper", sweeper, self.env, logs, lambda _: True)
        self.worker = self.workers[0]
        self.processes = [self.web, self.ws, *self.workers, self.deliverer, self.sweeper]

        self.restarts: list[tuple[float, str, str]] = []  # (time, process, its last words)
        self.held: set[str] = set()  # processes the run itself is stopping and starting
        self._watch = threading.Event()

    @property
    def worker_env(self) -> dict[str, str]:
        # As the Procfile: one message prefetched per thread.
        return {**self.env, "dramatiq_queue_prefetch": str(self.threads)}

    def supervise(self) -> None:
        """Start again any process that exits, a second later, as the Procfile runner
        (config/tooling/procfile.py) does in production; each restart is on record."""
        self._watch.set()
        threading.Thread(target=self._supervise, name="supervisor", daemon=True).start()

    def _supervise(self) -> None:
        supervise(lambda: self.processes, self.held, self.restarts, self._watch)

    def stop(self) -> None:
        self._watch.clear()
        super().stop()


class Environment:
    """Everything the run starts, in order, and stops in reverse (also after a failure)."""

    def __init__(
        self,
        root: Path,
        settings: dict[str, str],
        *,
        workers: int,
        threads: int,
        nice: int | None = None,
        ocr_workers: int = 0,
    ):
        self.root = root
        self.ocr_workers = ocr_workers
        self.nice = nice
        self.settings = settings
        self.workers, self.threads = workers, threads
        self.services: Services | None = None
        self.openai: BreakableOpenAI | None = None
        self.s3: S3Server | None = None
        self.stack: LoadStack | None = None

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    @property
    def pgdata(self) -> Path:
        return self.root / "pg"

    def start_services(self) -> dict[str, str]:
        """Postgres, Redis, the S3 server and the fake provider; the env every process of
        the run gets."""
        self.services = start_services(self.root)
        self.s3 = S3Server(self.root / "s3", bucket="loadtest-uploads").start()
        self.openai = BreakableOpenAI(api_key=API_KEY).start()
        env = dict(self.services.env)
        env.update(self.s3.variables)
        env.update(
            INGEST_EMBED_PROVIDER="openai",
            OPENAI_BASE_URL=f"{self.openai.url}/v1",
            OPENAI_API_KEY=API_KEY,
        )
        # The run's limits replace tests.bench.services' "unlimited" ones.
        env.update(self.settings)
        return env

    def start_stack(self, env: dict[str, str], sweep_every: float) -> LoadStack:
        self.logs.mkdir(parents=True, exist_ok=True)
        self.stack = LoadStack(
            env,
            self.logs,
            workers=self.workers,
            threads=self.threads,
            sweep_every=sweep_every,
            nice=self.nice,
            ocr_workers=self.ocr_workers,
        )
        self.stack.ensure_running()
        self.stack.supervise()
        return self.stack

    def restart_redis(self, down_seconds: float = 1.0) -> None:
        """Stop Redis and start it again on the same port (tests/harness/faults.py)."""
        assert self.services is not None
        assert self.services.redis is not None
        faults.restart_redis(self.services.redis, down_seconds=down_seconds)

    def restart_postgres(self) -> None:
        """A fast restart (sessions are ended), on the same socket and port."""
        faults.restart_postgres(self.pgdata)

    def restart_s3(self, down_seconds: float = 1.0) -> None:
        """Stop the S3 server and start it again on its ports, its objects kept."""
        assert self.s3 is not None
        self.s3.restart(down_seconds=down_seconds)

    def stop_processes(self) -> None:
        """Stop the servers (their logs are then complete)."""
        if self.stack is not None:
            with contextlib.suppress(Exception):
                self.stack.stop()

    def stop(self) -> None:
        """Stop everything that was started, whatever failed before, and remove it all."""
        steps = [
            self.stack.stop if self.stack else None,
            self.openai.stop if self.openai else None,
            self.s3.stop if self.s3 else None,
            self.services.stop if self.services else None,
        ]
        for step in steps:
            if step is not None:
                with contextlib.suppress(Exception):
                    step()
        shutil.rmtree(self.root, ignore_errors=True)
