"""A user who uploads straight to the bucket: `POST /api/uploads/`, the file to the
presigned POST, then `POST /api/uploads/{id}/complete/` (docs/using/api.md, "Direct
uploads"). Each call on a new connection, as the upload endpoint's clients do, so that the
two acknowledgements are timed like theirs.

A refused start is recorded as a refused upload. Sending the bytes and completing are
retried as a client of the documented API would: the bucket's POST after a connection
error (the S3 server restarts during the run), the completion after a 503 or 429, once its
Retry-After has passed. The answer's `seconds` run from the start's connect to the
completion's last byte, bytes sent included, so they are not compared with the endpoint's.
"""

from __future__ import annotations

import hashlib
import time
import uuid
from collections.abc import Callable
from typing import Any

import requests

from tests.bench.loadtest.client import (
    TIMEOUT,
    Answer,
    Send,
    Server,
    address_of,
    parse_body,
    upload,
)
from tests.bench.loadtest.payloads import Upload

# Sending to the bucket and completing give up after this long: past the S3 restart's
# outage with room, short of the run's patience with a stuck client.
PATIENCE_SECONDS = 60.0
LONGEST_WAIT = 5.0  # the longest Retry-After honoured between completions


def sender(share: float) -> Callable[[int], Send]:
    """How user n uploads: directly for `share` of the users, spread evenly; else through
    the upload endpoint."""

    def pick(number: int) -> Send:
        return upload_direct if int((number + 1) * share) > int(number * share) else upload

    return pick


def upload_direct(
    server: Server, token: str, item: Upload, phase: str, webhook_url: str = ""
) -> Answer:
    """One direct upload, started, sent and completed; never raises."""
    answer = Answer(phase, item.kind, item.source, item.bytes, item.pages, time.time(), 0.0)
    answer.path = "direct"
    host, port = address_of(server)
    headers = {
        "Authorization": f"Token {token}",
        "Idempotency-Key": f"direct-{uuid.uuid4().hex}",
        "Connection": "close",
    }
    began = time.perf_counter()
    try:
        body = {
            "filename": item.source,
            "size": item.bytes,
            "sha256": hashlib.sha256(item.body).hexdigest(),
            **({"webhook_url": webhook_url} if webhook_url else {}),
        }
        started, answer.start_ms = _timed(f"http://{host}:{port}/api/uploads/", headers, json=body)
        if started.status_code != 201:
            _record(answer, started)
        else:
            form = started.json()
            _send_to_bucket(form, item)
            _record(answer, _complete(form["complete_url"], headers, answer))
    except (requests.RequestException, ValueError, KeyError) as exc:
        answer.error = f"{type(exc).__name__}: {exc}"[:300]
    answer.seconds = time.perf_counter() - began
    return answer


def _timed(url: str, headers: dict[str, str], **kwargs: Any) -> tuple[requests.Response, float]:
    """The POST's response, and the milliseconds from its connect to its last byte."""
    began = time.perf_counter()
    response = requests.post(url, headers=headers, timeout=TIMEOUT, **kwargs)
    return response, (time.perf_counter() - began) * 1000


def _send_to_bucket(form: dict, item: Upload) -> None:
    deadline = time.monotonic() + PATIENCE_SECONDS
    while True:
        try:
            sent = requests.post(
                form["url"],
                data=form["fields"],
                files={"file": (item.source, item.body, "application/pdf")},
                timeout=TIMEOUT,
            )
        except requests.ConnectionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(1.0)
            continue
        if sent.status_code < 300 or time.monotonic() > deadline:
            sent.raise_for_status()
            return
        time.sleep(1.0)  # the S3 server answering 5xx while it starts


def _complete(url: str, headers: dict[str, str], answer: Answer) -> requests.Response:
    deadline = time.monotonic() + PATIENCE_SECONDS
    while True:
        done, answer.complete_ms = _timed(url, headers)
        wait = done.headers.get("Retry-After")
        if done.status_code not in (429, 503) or not wait or time.monotonic() > deadline:
            return done
        answer.resent += 1
        answer.first_error = answer.first_error or f"{done.status_code} on completion"
        time.sleep(min(float(wait), LONGEST_WAIT))


def _record(answer: Answer, response: requests.Response) -> None:
    answer.status = response.status_code
    answer.retry_after = response.headers.get("Retry-After")
    parse_body(answer, response.content)
