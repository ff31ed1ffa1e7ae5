"""A small request is not queued behind upload bodies (config/http/gthread.py).

A real gunicorn (the Procfile's `web`) of one upload thread: an upload that has sent its
headers and part of its body holds that thread, reading. A job's status asked meanwhile
is answered at once on the small requests' own thread; with WEB_SMALL_THREADS=0 (one
pool, as gthread) it waits until the upload lets the thread go.
"""

import socket
import sys
import time
import urllib.error
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.contrib.auth.models import User

from config.accounts.tokens import issue_token
from config.tooling.embedded import free_port
from tests.harness.servers import WEB, ServerProcess, answers, web_environment

pytestmark = pytest.mark.django_db(transaction=True)

# The small request's answer, with the upload held (it comes in well under a second; the
# margin is for two loaded cores).
ANSWERED_WITHIN = 20.0
# How long the small request is seen waiting when it shares the upload's thread.
SEEN_WAITING = 3.0


def start_web(tmp_path: Path, small_threads: int) -> tuple[ServerProcess, int]:
    port = free_port()
    env = {**web_environment(port, threads=1), "WEB_SMALL_THREADS": str(small_threads)}
    base_url = f"http://127.0.0.1:{port}"
    ready = lambda _: answers(f"{base_url}/healthz")  # noqa: E731
    logs = tmp_path / f"web-{small_threads}"
    logs.mkdir()
    return ServerProcess("web", [sys.executable, *WEB], env, logs, ready).start(), port


def hold_an_upload(port: int, token: str) -> socket.socket:
    """An upload's headers and the start of its body; the rest never comes (until closed)."""
    head = (
        "POST /api/documents/ HTTP/1.1\r\n"
        f"Host: 127.0.0.1:{port}\r\n"
        f"Authorization: Bearer {token}\r\n"
        "Content-Type: multipart/form-data; boundary=held\r\n"
        "Content-Length: 1000000\r\n\r\n"
        "--held\r\n"
        'Content-Disposition: form-data; name="file"; filename="held.pdf"\r\n'
        "Content-Type: application/pdf\r\n\r\n"
        "%PDF-1.4\n"
    )
    upload = socket.create_connection(("127.0.0.1", port), timeout=30)
    upload.sendall(head.encode())
    return upload


def status_of_a_job(port: int, token: str) -> int:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/jobs/{uuid.uuid4()}/",
        headers={"Authorization": f"Bearer {token}"},
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


def upload_is_reading(upload: socket.socket) -> bool:
    """The upload got no answer yet: its thread is still reading the body."""
    upload.setblocking(False)
    try:
        upload.recv(1)  # an answer's first byte, or the end of the connection
        return False
    except BlockingIOError:
        return True
    finally:
        upload.setblocking(True)


@pytest.fixture
def token() -> str:
    return issue_token(User.objects.create_user("uploader")).key


def test_a_status_read_is_answered_while_an_upload_holds_the_upload_thread(tmp_path, token):
    server, port = start_web(tmp_path, small_threads=1)
    try:
        upload = hold_an_upload(port, token)
        time.sleep(0.5)  # the upload's thread has taken it
        began = time.monotonic()

        status = status_of_a_job(port, token)

        assert status == 404  # no such job: an answer from the view
        assert time.monotonic() - began < ANSWERED_WITHIN
        assert upload_is_reading(upload)
        upload.close()
    finally:
        server.stop()


def test_with_one_pool_the_status_read_waits_for_the_upload(tmp_path, token):
    """The same, with WEB_SMALL_THREADS=0: what the small requests' pool is for."""
    server, port = start_web(tmp_path, small_threads=0)
    try:
        upload = hold_an_upload(port, token)
        time.sleep(0.5)
        with ThreadPoolExecutor(1) as pool:
            asked = pool.submit(status_of_a_job, port, token)
            time.sleep(SEEN_WAITING)
            assert not asked.done()  # behind the upload
            upload.close()  # the upload's thread reads the end of its body, and is free
            assert asked.result(timeout=60) == 404
    finally:
        server.stop()
