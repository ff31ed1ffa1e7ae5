"""Under the Procfile runner, a killed worker pool comes back and the web stays up."""

import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import psutil
import pytest

from config.tooling.embedded import free_port
from tests.chaos.conftest import ROOT
from tests.conftest import eventually, pdf_upload, wait_until_terminal
from tests.factories import make_pdf

pytestmark = pytest.mark.django_db(transaction=True)


def healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as answer:
            return answer.status == 200
    except OSError:
        return False


def refused_or_failed(port: int) -> str | None:
    """Why the web did not answer, or None when it did.

    A new worker pool importing Django shares two cores with the web, so an answer can be
    slow; only a refused connection, a reset or an error status means the web went down.
    """
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=30) as answer:
            return None if answer.status == 200 else f"status {answer.status}"
    except OSError as error:
        return repr(error)


def dramatiq_workers(runner: subprocess.Popen) -> list[psutil.Process]:
    """Dramatiq's worker processes (children of its master) under the runner."""
    found = []
    for proc in psutil.Process(runner.pid).children(recursive=True):
        try:
            parent = proc.parent()
            if (
                parent
                and "dramatiq" in " ".join(parent.cmdline())
                and "dramatiq" in " ".join(proc.cmdline())
            ):
                found.append(proc)
        except psutil.NoSuchProcess:
            pass
    return found


def ready_workers(log: Path) -> int:
    """How many Dramatiq worker processes have said they are ready, in the runner's log."""
    return log.read_text().count("Worker process is ready for action")


def test_a_sigkilled_worker_pool_comes_back_and_web_never_goes_down(
    alice_client, broker, worker_env, tmp_path
):
    port = free_port()
    env = {
        **worker_env,
        "PORT": str(port),
        "WORKER_FAST_PROCESSES": "1",
        "WORKER_FAST_THREADS": "2",
        "PATH": f"{os.path.dirname(sys.executable)}:{os.environ['PATH']}",
    }
    log_path = tmp_path / "procfile.log"
    with open(log_path, "wb") as log:  # the child keeps its own copy
        runner = subprocess.Popen(
            [sys.executable, "-m", "config.tooling.procfile", "web", "worker-fast"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        eventually(lambda: healthy(port), timeout=60)
        # Killed while it boots, a worker leaves Dramatiq's master waiting out its fork
        # timeout (30 s) before it notices; the OOM killer meets a worker at work.
        eventually(lambda: ready_workers(log_path) == 1, timeout=90)
        [first] = dramatiq_workers(runner)

        first.kill()  # the OOM killer; Dramatiq's master then stops and exits
        down_seen = []
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if failure := refused_or_failed(port):
                down_seen.append(failure)
            workers = [w for w in dramatiq_workers(runner) if w.pid != first.pid]
            if workers:
                break
            time.sleep(0.2)
        else:
            raise AssertionError(log_path.read_text())

        assert not down_seen, f"the web stopped answering while the pool came back: {down_seen}"
        job_id = alice_client.post("/api/documents/", {"file": pdf_upload(make_pdf())}).json()[
            "results"
        ][0]["job_id"]
        [job] = wait_until_terminal([job_id], timeout=60)
        assert job.status == "succeeded", "the new pool works"
    finally:
        runner.send_signal(signal.SIGTERM)
        runner.wait(60)
    assert "exited with code" in log_path.read_text()
