"""The README's quick start works as written, and `make run` prints the same commands."""

import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings

from tests.chaos.conftest import database_url

ROOT = Path(__file__).resolve().parents[2]
TERMINAL = {"succeeded", "failed", "cancelled"}


def readme_quick_start() -> list[str]:
    """The command lines of the first sh block after "make run prints the URL"."""
    readme = (ROOT / "README.md").read_text()
    after = readme[readme.index("`make run` prints the URL") :]
    block = re.search(r"```sh\n(.*?)```", after, re.DOTALL).group(1)
    return [line.split("   #")[0].rstrip() for line in block.splitlines() if line.strip()]


def make_run_banner() -> str:
    """What `make run` prints before it starts the servers (its echo lines, run by sh)."""
    dry = subprocess.run(
        ["make", "-s", "-n", "run"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    echoes = "\n".join(line for line in dry.splitlines() if line.startswith("echo"))
    return subprocess.run(["sh", "-c", echoes], capture_output=True, text=True).stdout


def test_the_make_run_banner_shows_the_readme_quick_start_and_how_to_stop():
    banner = make_run_banner()

    for command in readme_quick_start():
        assert command in banner, f"`make run` does not print: {command}"
    assert "Ctrl-C" in banner
    assert "make stop-services" in banner


def get_json(url: str, token: str) -> dict:
    request = urllib.request.Request(url, headers={"Authorization": f"Token {token}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


@pytest.mark.django_db(transaction=True)
def test_the_readme_quick_start_runs_as_written(live_server, worker):
    script = "\n".join(readme_quick_start())
    script = script.replace(".venv/bin/python", sys.executable)
    script = script.replace("http://127.0.0.1:8000", live_server.url)
    env = {**os.environ, "DATABASE_URL": database_url(), "REDIS_URL": settings.REDIS_URL}

    ran = subprocess.run(
        ["bash", "-ec", script + '\necho\necho "TOKEN=$TOKEN"'],  # curl ends no line
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert ran.returncode == 0, ran.stderr
    *_, answer, token_line = ran.stdout.strip().splitlines()
    [result] = json.loads(answer)["results"]
    assert result["status"] == "queued"
    token = token_line.removeprefix("TOKEN=")
    deadline = time.monotonic() + 60
    job = get_json(result["status_url"], token)
    while job["status"] not in TERMINAL and time.monotonic() < deadline:
        time.sleep(0.5)
        job = get_json(result["status_url"], token)
    assert job["status"] == "succeeded", job
    assert job["progress"]["done"] == job["progress"]["total"] > 0
    assert job["error"] is None
