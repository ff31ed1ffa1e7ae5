"""The app hosts from the service's image (`make loadtest-cluster-image`, `--image`).

Each Procfile line is a container of the image `make image` built, run by podman in its
test host's network namespace (`--network ns:`), as a pod runs on a node: its own disk
and process table, the host name `<host>-<line>` (a worker's jobs are then named
`worker2-fast:<pid>:<thread>`), and the Procfile's own command (`sh -c 'exec <line>'`).
Containers get the service's settings and nothing of this machine's environment; each
worker container serves its own counters on a port of its own (WORKER_METRICS_PORT), as
pods do. podman runs on the storage `make image` keeps under var/image/.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

from config.tooling.procfile import read_procfile
from tests.harness.netns import Host
from tests.harness.servers import ROOT, ServerProcess

STATE = ROOT / "var" / "image"
# The settings a container is told (the rest of this machine's environment stays here).
SETTINGS = ("DATABASE_", "REDIS_", "INGEST_", "OPENAI_", "DJANGO_", "WEB_", "WORKER_")
SETTINGS_TOO = {"SWEEPER_INTERVAL", "LOG_LEVEL", "PORT", "WS_PORT", "HOST"}


def unavailable(image: str) -> str | None:
    """Why the image cannot be run here, or None."""
    if not (STATE / "containers.conf").exists():
        return "no podman storage of the project's: run `make image` first"
    found = subprocess.run(
        ["podman", "image", "exists", image], env=podman_env(), capture_output=True
    )
    return None if found.returncode == 0 else f"no image {image}: run `make image` first"


def podman_env() -> dict[str, str]:
    """podman on the storage and settings `make image` wrote (config/deploy/image.sh)."""
    return {
        **os.environ,
        "CONTAINERS_CONF": str(STATE / "containers.conf"),
        "CONTAINERS_STORAGE_CONF": str(STATE / "storage.conf"),
        "DISABLE_HC_SYSTEMD": "true",
    }


def podman(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["podman", *args], env=podman_env(), capture_output=True, text=True, timeout=timeout
    )


def procfile_line(name: str) -> str:
    return read_procfile(ROOT / "Procfile")[name]


def settings_of(env: dict[str, str]) -> dict[str, str]:
    return {
        key: value for key, value in env.items() if key.startswith(SETTINGS) or key in SETTINGS_TOO
    }


def run_command(host: Host, name: str, image: str, env: dict[str, str], line: str) -> list[str]:
    """`podman run` of one Procfile line (`line`) in `host`'s network, in the foreground."""
    pairs = [f"--env={key}={value}" for key, value in sorted(settings_of(env).items())]
    return [
        "podman",
        "run",
        "--rm",
        f"--name={host.name}-{name}",
        f"--hostname={host.hostname}-{name}",
        f"--network=ns:/run/netns/{host.name}",
        *pairs,
        image,
        "sh",
        "-c",
        f"exec {line}",
    ]


class Container(ServerProcess):
    """A Procfile line as a container: started, stopped and killed through podman (a
    signal to the `podman run` client would leave the container running)."""

    def __init__(
        self,
        host: Host,
        name: str,
        image: str,
        env: dict[str, str],
        logs: Path,
        ready: Callable[[ServerProcess], bool],
    ) -> None:
        self.container = f"{host.name}-{name}"
        command = run_command(host, name, image, env, procfile_line(name))
        super().__init__(f"{host.hostname}-{name}", command, podman_env(), logs, ready)

    def start(self) -> ServerProcess:
        podman("rm", "--force", "--time=0", self.container)  # one a kill left behind
        return super().start()

    def kill(self) -> None:
        """SIGKILL the container, as a node lost would."""
        podman("kill", "--signal=KILL", self.container)
        if self.popen is not None:
            self.popen.wait(60)

    def stop(self) -> None:
        if not self.alive:
            return
        podman("stop", "--time=15", self.container, timeout=90)
        assert self.popen is not None
        self.popen.wait(60)


def release(host: Host, image: str, env: dict[str, str]) -> None:
    """The Procfile's `release` line, once, in `host`'s network."""
    done = subprocess.run(
        run_command(host, "release", image, env, procfile_line("release")),
        env=podman_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0:
        raise RuntimeError(f"release (migrate) from the image failed:\n{done.stdout}{done.stderr}")
