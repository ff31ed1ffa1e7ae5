"""The `local` model is loaded as a web process starts, off the request path, so the first
search does not wait for it; `manage.py` commands, which most never embed, do not load it."""

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from config.tooling.embedded import free_port
from tests.harness.servers import ROOT, WEB, ServerProcess, answers, web_environment

pytestmark = pytest.mark.django_db

LOADED = "local embedding model loaded in"
LOAD_TIMEOUT = 90  # seconds: the int8 copy may be made first, on a loaded two-core machine
LOCAL = {
    "INGEST_EMBED_PROVIDER": "local",
    "INGEST_LOCAL_MODEL": "",  # the packaged model
    "INGEST_LOCAL_PRECISION": "int8",
    "INGEST_EMBED_DIMENSIONS": "384",
}


@pytest.fixture
def web(tmp_path: Path) -> Iterator[ServerProcess]:
    """gunicorn (the Procfile's `web`) with the local provider, answering /healthz."""
    port = free_port()
    env = {**web_environment(port), "LOG_LEVEL": "INFO", **LOCAL}
    ready = lambda _: answers(f"http://127.0.0.1:{port}/healthz")  # noqa: E731
    server = ServerProcess("web", [sys.executable, *WEB], env, tmp_path, ready).start()
    try:
        yield server
    finally:
        server.stop()


def test_a_web_process_loads_the_local_model_before_any_search(web):
    deadline = time.monotonic() + LOAD_TIMEOUT
    while LOADED not in web.output(last=200) and time.monotonic() < deadline:
        time.sleep(0.2)

    # Nothing but /healthz was asked of it: the process loaded the model by itself.
    assert LOADED in web.output(last=200), web.output(last=200)
    assert web.alive


COMMAND_LOADS_NOTHING = """
import sys
import django
django.setup()
from django.core.management import call_command
call_command("check", verbosity=0)
print("onnxruntime" in sys.modules, "tokenizers" in sys.modules)
"""


def test_a_manage_py_command_does_not_load_the_model():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", **LOCAL}

    ran = subprocess.run(
        [sys.executable, "-c", COMMAND_LOADS_NOTHING],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines()[-1] == "False False"
