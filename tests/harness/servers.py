"""The service as its processes: real servers on the test database, for the browser
tests, the crash and process tests, and the benchmarks and load tests.

`Stack` runs what the Procfile runs, small: gunicorn (`web`, the WSGI app), daphne (`ws`,
the status socket on WS_PORT) and `rundramatiq` (`worker`), each in its own session so a
test can SIGKILL one, all on the run's private Postgres (the test database) and Redis, with
the `openai` embedding provider pointed at a fake server the tests can break and fix.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connection

from config.tooling.embedded import free_port
from tests.fakes.openai_server import FakeOpenAI
from tests.harness.faults import kill_group
from tests.harness.services import database_url

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 90  # seconds; generous, other test runs may share the two cores
HOLD_LIMIT = 60  # seconds a held embedding request waits at most
# The Procfile's commands, small. gunicorn without its control socket: the default path
# is per user, shared with any other gunicorn of this user (`make run`, another test run).
WEB = ["-m", "config.web", "--no-control-socket"]
WS = ["-m", "daphne", "--bind", "127.0.0.1"]
WORKER = [
    "manage.py",
    "rundramatiq",
    "--processes=1",
    "--threads=3",
    "--worker-shutdown-timeout=5000",
]


class BreakableOpenAI(FakeOpenAI):
    """The fake embeddings API with two switches. While `broken` is a behaviour ("500",
    "429:1", ...) every request gets it; None answers normally again. Between hold() and
    release() requests wait (so jobs stay `processing` as long as a test needs)."""

    broken: str | None = None

    def __init__(self, *, api_key: str | None = None, host: str = "127.0.0.1") -> None:
        super().__init__(api_key=api_key, host=host)
        self._open = threading.Event()
        self._open.set()

    def hold(self) -> None:
        self._open.clear()

    def release(self) -> None:
        self._open.set()

    def _next_behaviour(self, body: dict[str, Any]) -> str:
        behaviour = super()._next_behaviour(body)
        self._open.wait(timeout=HOLD_LIMIT)
        return self.broken or behaviour

    def reset(self) -> None:
        self.broken = None
        self.delay = 0.0
        self.release()

    def stop(self) -> None:
        self.release()
        super().stop()


def answers(url: str, status: int = 200) -> bool:
    """Whether `url` answers a GET with `status` (a server that is up and ready)."""
    try:
        with urllib.request.urlopen(url, timeout=2) as answer:
            return answer.status == status
    except urllib.error.HTTPError as error:
        return error.code == status
    except OSError:
        return False


def web_environment(
    port: int, *, processes: int = 1, threads: int = 2, base: dict[str, str] | None = None
) -> dict[str, str]:
    """What a `web` process (gunicorn) of this test run is started with: `base` (this
    process's environment by default), the run's test database and Redis, 127.0.0.1:`port`,
    and `processes` x `threads`."""
    return {
        **(dict(os.environ) if base is None else base),
        "DATABASE_URL": database_url(connection.settings_dict),
        "REDIS_URL": settings.REDIS_URL,
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "WEB_CONCURRENCY": str(processes),
        "WEB_THREADS": str(threads),
    }


class ServerProcess:
    """One command in its own session, logging to a file; `ready` says when it serves."""

    def __init__(
        self,
        name: str,
        command: list[str],
        env: dict[str, str],
        logs: Path,
        ready: Callable[[ServerProcess], bool],
    ) -> None:
        self.name, self.command, self.env, self.logs, self.ready = name, command, env, logs, ready
        self.popen: subprocess.Popen | None = None
        self.starts = 0
        self.log_path = logs / f"{name}.log"

    def start(self) -> ServerProcess:
        self.starts += 1
        # A new file per start, so a restart's readiness is not read from the old output.
        self.log_path = self.logs / f"{self.name}-{self.starts}.log"
        with open(self.log_path, "wb") as log:  # the child keeps its own copy
            self.popen = subprocess.Popen(
                self.command,
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        deadline = time.monotonic() + START_TIMEOUT
        while not self.ready(self):
            if self.popen.poll() is not None:
                raise RuntimeError(f"{self.name} exited at start:\n{self.output()}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"{self.name} not ready in {START_TIMEOUT} s:\n{self.output()}")
            time.sleep(0.1)
        return self

    @property
    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def output(self, last: int = 60) -> str:
        try:
            lines = self.log_path.read_text(errors="replace").splitlines()
        except FileNotFoundError:
            return ""
        return "\n".join(lines[-last:])

    def kill(self) -> None:
        """SIGKILL the whole process group, as the OOM killer or a crash would."""
        if self.popen is None:
            return
        kill_group(self.popen.pid)
        self.popen.wait(10)

    def stop(self) -> None:
        popen = self.popen
        if popen is None or popen.poll() is not None:  # not alive
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(popen.pid, signal.SIGTERM)
        try:
            popen.wait(15)
        except subprocess.TimeoutExpired:
            self.kill()


class Stack:
    """gunicorn + daphne + a Dramatiq worker on one database and Redis."""

    def __init__(self, env: dict[str, str], logs: Path) -> None:
        self.web_port, self.ws_port = free_port(), free_port()
        env = {
            **env,
            "HOST": "127.0.0.1",
            "PORT": str(self.web_port),
            "WS_PORT": str(self.ws_port),
            "PYTHONUNBUFFERED": "1",
        }
        self.env = env
        self.base_url = f"http://127.0.0.1:{self.web_port}"
        python = sys.executable
        self.web = ServerProcess(
            "web", [python, *WEB], env, logs, lambda _: answers(f"{self.base_url}/healthz")
        )
        self.ws = ServerProcess(
            "ws",
            [python, *WS, "--port", str(self.ws_port), "config.ws_app:application"],
            {**env, "DATABASE_CONN_HEALTH_CHECKS": "false"},  # as the Procfile's `ws` line
            logs,
            # The socket's port answers nothing but the socket: 426 says it is up.
            lambda _: answers(f"http://127.0.0.1:{self.ws_port}/ws/status/", status=426),
        )
        self.worker = ServerProcess(
            "worker",
            [python, *WORKER],
            env,
            logs,
            lambda process: "Worker process is ready for action" in process.output(),
        )
        self.processes = [self.web, self.ws, self.worker]

    def collectstatic(self) -> None:
        """Static files into STATIC_ROOT (INGEST_DATA_DIR/static, private to the run):
        whitenoise serves what is collected there, as in production."""
        subprocess.run(
            [sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
            cwd=ROOT,
            env=self.env,
            check=True,
        )

    def ensure_running(self) -> None:
        """Start whatever is not running (at first, or after a test killed it), together."""
        down = [process for process in self.processes if not process.alive]
        if not down:
            return
        with ThreadPoolExecutor(len(down)) as pool:
            for future in [pool.submit(process.start) for process in down]:
                future.result()

    def stop(self) -> None:
        for process in self.processes:
            process.stop()

    def logs(self) -> str:
        return "\n\n".join(
            f"----- {process.name} ({process.log_path.name}) -----\n{process.output()}"
            for process in self.processes
        )
