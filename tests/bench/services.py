"""What the benchmark runs on: a private Postgres and Redis, and gunicorn servers.

Postgres and Redis come from tests.harness.services (a temporary directory), as the test
run's do; the checkout's var/ and the machine's shared services are never touched. Each
gunicorn server runs in its own process group, so stopping it stops all its workers.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Self

from config.tooling import embedded
from tests.harness import services as harness
from tests.harness.manage import run_manage

BASE_DIR = Path(__file__).resolve().parents[2]
# Env for the servers: no throttling, no backpressure refusals, no access log.
UNLIMITED = {
    "DJANGO_SECRET_KEY": "bench",
    "INGEST_UPLOAD_THROTTLE_RATE": "1000000/min",
    "INGEST_MAX_BACKLOG": "1000000",
    "INGEST_MAX_INFLIGHT_PER_USER": "1000000",
    "INGEST_MAX_QUEUE_AGE_SECONDS": "1000000",
    "HOST": "127.0.0.1",
}

# The benchmark's services are the harness's, with the benchmark's env (below).
Services = harness.PrivateServices


def start_services(root: Path) -> Services:
    """Postgres (pgvector) and Redis in root; env for every child process."""
    services = harness.start(root)
    env = {key: value for key, value in os.environ.items() if not key.startswith("WEB_")}
    services.env = {**env, **UNLIMITED, **services.variables}
    return services


@contextlib.contextmanager
def django_on_private_services(prefix: str) -> Iterator[Services]:
    """Private Postgres and Redis in a temporary directory, migrated, and this process's
    environment pointed at them (Django set up by the caller); all removed after."""
    root = Path(tempfile.mkdtemp(prefix=prefix))
    services = start_services(root)
    try:
        manage(services.env, "migrate", "--noinput", "--verbosity", "0")
        os.environ.update(services.env, DJANGO_SETTINGS_MODULE="config.settings")
        yield services
    finally:
        services.stop()
        shutil.rmtree(root, ignore_errors=True)


def manage(env: dict[str, str], *args: str) -> str:
    """Run manage.py with env; its stdout, or an error with its output."""
    result = run_manage(*args, env=env)
    if result.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{result.stdout}{result.stderr}")
    return result.stdout


TOKEN_SCRIPT = """
from django.contrib.auth import get_user_model
from config.accounts.tokens import issue_token
for number in range({users}):
    user, _ = get_user_model().objects.get_or_create(username=f"bench{{number}}")
    print(issue_token(user, name='bench').key)
"""


# No workers run, so the backlog only grows; between runs it is emptied as workers would.
DRAIN_SCRIPT = """
from jobs.models import Job, JobStatus
stuck = Job.objects.filter(status__in=[JobStatus.QUEUED, JobStatus.PROCESSING])
print(stuck.update(status=JobStatus.CANCELLED))
"""


def drain_jobs(env: dict[str, str]) -> int:
    """Mark every queued job of the benchmark cancelled; how many were."""
    return int(manage(env, "shell", "-c", DRAIN_SCRIPT).strip().splitlines()[-1])


def prepare_database(env: dict[str, str], users: int) -> list[str]:
    """Migrate; the API tokens of `users` users bench0, bench1, ..."""
    manage(env, "migrate", "--noinput", "--verbosity", "0")
    tokens = manage(env, "shell", "-c", TOKEN_SCRIPT.format(users=users)).split()
    return tokens[-users:]


@dataclass(frozen=True)
class Setup:
    """How gunicorn serves the apps: worker class, processes and threads."""

    workers: int = 2
    threads: int = 8
    # gthread | sync | asgi (the real app as config.asgi, the Django floor as its ASGI app)
    worker_class: str = "gthread"

    @property
    def name(self) -> str:
        kind = "" if self.worker_class == "gthread" else f"{self.worker_class}:"
        return f"{kind}{self.workers}x{self.threads}"

    @classmethod
    def parse(cls, text: str) -> Setup:
        """`2x8`, `sync:4x1` or `asgi:2x8` (for asgi the raw floor keeps gthread, 2 x 8 here)."""
        kind, _, shape = text.rpartition(":")
        workers, _, threads = shape.partition("x")
        return cls(int(workers), int(threads or 1), kind or "gthread")

    @property
    def description(self) -> str:
        if self.worker_class == "asgi":
            return (
                f"real app and Django floor: ASGI on gunicorn's asgi worker, {self.workers} "
                "processes, DATABASE_CONN_MAX_AGE=0; "
                f"floor: gthread {self.workers} x {self.threads}"
            )
        return (
            f"gunicorn {self.worker_class}, {self.workers} processes x {self.threads} threads "
            f"(WEB_CONCURRENCY={self.workers}, WEB_THREADS={self.threads}), every app"
        )


class Server:
    """One gunicorn, started with the project's config/gunicorn.py."""

    def __init__(self, label: str, app: str, setup: Setup, env: dict[str, str], logs: Path):
        self.label = label
        self.port = embedded.free_port()
        worker_class = setup.worker_class
        if label == "floor" and worker_class == "asgi":
            worker_class = "gthread"
        self.command = [sys.executable, "-m", "gunicorn", app, "-c", "config/gunicorn.py"]
        self.command += ["--worker-class", worker_class]
        self.env = dict(env, PORT=str(self.port))
        self.env.update(WEB_CONCURRENCY=str(setup.workers), WEB_THREADS=str(setup.threads))
        if worker_class == "asgi":
            # Under ASGI each request may run its sync code on another thread, and persistent
            # connections pile up until Postgres refuses more (Django's advice: age 0).
            self.env["DATABASE_CONN_MAX_AGE"] = "0"
        self.log = logs / f"{label}-{setup.name.replace(':', '-')}.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 60.0) -> Self:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                self.command,
                cwd=BASE_DIR,
                env=self.env,
                stdout=log,
                stderr=log,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            if self._answers():
                return self
            time.sleep(0.2)
        tail = self.log.read_text(errors="replace")[-3000:]
        self.stop()
        raise RuntimeError(f"{self.label} did not start on port {self.port}:\n{tail}")

    # What a GET answers once the server is up: the floor answers any GET; the Django
    # floor serves the real app's /healthz; daphne's socket port answers 426 on /ws/.
    ready_path, ready_status = "/healthz", 200

    def _answers(self) -> bool:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
            conn.request("GET", self.ready_path if self.label != "floor" else "/")
            status = conn.getresponse().status
            conn.close()
        except OSError:
            return False
        return status == self.ready_status

    def pids(self) -> list[int]:
        """The master and its workers (for CPU accounting)."""
        if self.process is None:
            return []
        import psutil

        try:
            master = psutil.Process(self.process.pid)
            return [master.pid] + [child.pid for child in master.children(recursive=True)]
        except psutil.NoSuchProcess:
            return []

    def stop(self) -> None:
        if self.process is None:
            return
        for sig, wait in ((signal.SIGTERM, 15), (signal.SIGKILL, 5)):
            try:
                os.killpg(self.process.pid, sig)
            except ProcessLookupError:
                break
            try:
                self.process.wait(wait)
                break
            except subprocess.TimeoutExpired:
                continue
        with contextlib.suppress(ProcessLookupError):  # workers that outlived their master
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process = None
