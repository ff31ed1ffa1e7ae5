"""The service's hosts: web hosts (gunicorn and daphne) and worker hosts (a lane's workers,
the webhook deliverer, the sweeper), each process run inside its test host, with the
host's own data directory (INGEST_DATA_DIR in the host's directory, which no other host
sees) and the shared tier's addresses. With an image, each Procfile line is a container
of it instead (tests/bench/cluster/containers.py).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from tests.bench.cluster.containers import Container
from tests.bench.loadtest.stack import deliverer_command, worker_command
from tests.harness.netns import Host
from tests.harness.servers import ROOT, ServerProcess, answers

WEB_PORT, WS_PORT = 8000, 8001


def _ready_log(process: ServerProcess) -> bool:
    return "Worker process is ready for action" in process.output(400)


class AppHost:
    """One test host running some of the Procfile's lines, from the checkout or, with
    `image`, as containers of it."""

    def __init__(
        self, host: Host, env: dict[str, str], logs: Path, image: str | None = None
    ) -> None:
        self.host, self.logs, self.image = host, logs, image
        self.metrics_ports: list[int] = []
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

    def add(
        self,
        name: str,
        argv: list[str],
        ready: Callable[[ServerProcess], bool],
        env: dict[str, str] | None = None,
    ) -> ServerProcess:
        """A process of this host (not yet started): the Procfile line `name`, run as
        `argv` inside the host, or as a container of the image."""
        process: ServerProcess
        if self.image is None:
            process = ServerProcess(
                f"{self.host.hostname}-{name}",
                self.host.command(argv),
                {**self.env, **(env or {})},
                self.logs,
                ready,
            )
        else:
            # The image's own data directory; every address of the host's network.
            settings = {**self.env, **(env or {}), "HOST": "0.0.0.0"}
            settings.pop("INGEST_DATA_DIR")
            process = Container(self.host, name, self.image, settings, self.logs, ready)
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


def web_host(host: Host, env: dict[str, str], logs: Path, image: str | None = None) -> AppHost:
    """gunicorn (the `web` line) and daphne (the `ws` line) on the host's address."""
    app = AppHost(host, env, logs, image)
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
    lanes: list[str],
    threads: int,
    sweeper: bool = False,
    deliverer: bool = False,
    sweep_every: float = 5.0,
    metrics_port: int = 9100,
    image: str | None = None,
) -> AppHost:
    """A worker process for each of `lanes` (`threads` threads; the OCR lane's one), and
    the sweeper and the webhook deliverer where asked. From the checkout, one process of
    the host serves the host's counters on `metrics_port`; from the image, each container
    serves its own, on `metrics_port` and the ports after it."""
    app = AppHost(host, env, logs, image)

    def metrics(env: dict[str, str]) -> dict[str, str]:
        if image is None:
            app.metrics_ports[:] = [metrics_port]
            return env
        app.metrics_ports.append(metrics_port + len(app.metrics_ports))
        return {**env, "WORKER_METRICS_PORT": str(app.metrics_ports[-1])}

    for lane in lanes:
        lane_threads = 1 if lane == "ocr" else threads
        app.add(
            f"worker-{lane}",
            _anywhere(worker_command(lane, lane_threads)),
            _ready_log,
            metrics({"dramatiq_queue_prefetch": str(lane_threads)}),
        )
    if deliverer:
        app.add("worker-webhooks", _anywhere(deliverer_command(threads)), _ready_log, metrics({}))
    if sweeper:
        app.add("sweeper", manage("requeue_stuck", "--loop", str(sweep_every)), lambda _: True, {})
    return app
