"""The service's hosts: web hosts (gunicorn and daphne) and worker hosts (a lane's workers,
the webhook deliverer, the sweeper), each process run inside its test host, with the
host's own data directory (INGEST_DATA_DIR in the host's directory, which no other host
sees) and the shared tier's addresses.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.bench.loadtest.stack import deliverer_command, worker_command
from tests.browser.servers import ROOT, ServerProcess, answers
from tests.harness.netns import Host

WEB_PORT, WS_PORT = 8000, 8001


def _ready_log(process: ServerProcess) -> bool:
    return "Worker process is ready for action" in process.output(400)


class AppHost:
    """One test host running some of the Procfile's lines."""

    def __init__(self, host: Host, env: dict[str, str], logs: Path) -> None:
        self.host, self.logs = host, logs
        data_dir = host.root / "var"  # made inside the host: only it sees it
        self.env = {
            **env,
            "HOST": host.address,
            "PORT": str(WEB_PORT),
            "WS_PORT": str(WS_PORT),
            "INGEST_DATA_DIR": str(data_dir),
            # The code is the repository's (as an image's would be); run from anywhere.
            "PYTHONPATH": str(ROOT),
            "PYTHONUNBUFFERED": "1",
        }
        self.processes: list[ServerProcess] = []

    def add(self, name: str, argv: list[str], ready, env: dict[str, str] | None = None):
        """A process of this host, its command run inside it (not yet started)."""
        process = ServerProcess(
            f"{self.host.name.split('-', 1)[1]}-{name}",
            self.host.command(argv),
            {**self.env, **(env or {})},
            self.logs,
            ready,
        )
        self.processes.append(process)
        return process

    def stop(self) -> None:
        for process in self.processes:
            process.stop()


def manage(*args: str) -> list[str]:
    return [sys.executable, str(ROOT / "manage.py"), *args]


def _anywhere(command: list[str]) -> list[str]:
    """A Procfile command whose `manage.py` is named by its path, to run from any directory."""
    return [str(ROOT / "manage.py") if arg == "manage.py" else arg for arg in command]


def web_host(host: Host, env: dict[str, str], logs: Path) -> AppHost:
    """gunicorn (the `web` line) and daphne (the `ws` line) on the host's address."""
    app = AppHost(host, env, logs)
    base = f"http://{host.address}:{WEB_PORT}"
    app.add(
        "web",
        [sys.executable, "-m", "config.web", "--no-control-socket"],
        lambda _: answers(f"{base}/healthz"),
    )
    app.add(
        "ws",
        [
            sys.executable,
            "-m",
            "daphne",
            "--bind",
            host.address,
            "--port",
            str(WS_PORT),
            "config.ws_app:application",
        ],
        lambda _: answers(f"http://{host.address}:{WS_PORT}/ws/status/", status=426),
        {"DATABASE_CONN_HEALTH_CHECKS": "false"},
    )
    return app


def worker_host(
    host: Host,
    env: dict[str, str],
    logs: Path,
    *,
    lanes: dict[str, int],
    threads: int,
    sweeper: bool = False,
    deliverer: bool = False,
    sweep_every: float = 5.0,
) -> AppHost:
    """Worker processes of each lane (`lanes`: processes per lane, of `threads` threads;
    the OCR lane's of one), and the sweeper and the webhook deliverer where asked."""
    app = AppHost(host, env, logs)
    for lane, count in lanes.items():
        lane_threads = 1 if lane == "ocr" else threads
        for number in range(count):
            command = worker_command(lane, lane_threads)
            app.add(
                f"worker-{lane}{number}",
                _anywhere(command),
                _ready_log,
                {"dramatiq_queue_prefetch": str(lane_threads)},
            )
    if deliverer:
        command = [
            arg if arg != "manage.py" else str(ROOT / "manage.py")
            for arg in deliverer_command(threads)
        ]
        app.add("worker-webhooks", command, _ready_log)
    if sweeper:
        app.add("sweeper", manage("requeue_stuck", "--loop", str(sweep_every)), lambda _: True)
    return app
