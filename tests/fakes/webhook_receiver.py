"""A webhook receiver for the tests: a threaded HTTP server on a free local port that keeps
every request (headers, body, when), checks its Standard Webhooks signature as an
integrator would, and answers as each path's plan says (fail N times, 429 with
Retry-After, hang, redirect, 410, an endless answer), then 200.

Also how the tests make something to deliver: a job that really ends, through the
services, so the outbox writes the event and its deliveries as in production.
"""

import contextlib
import ssl
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from django.db import transaction

from jobs import services
from jobs.models import Job
from jobs.webhooks.sending import signing
from tests.factories import make_document


@dataclass(frozen=True)
class Reply:
    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b"ok"
    hang: float = 0.0  # seconds to wait before answering (the sender gives up first)
    endless: bool = False  # a body that never ends


def failing(times: int, status: int = 500) -> list[Reply]:
    return [Reply(status, body=b"try again later")] * times


def redirect(location: str, status: int = 302) -> Reply:
    return Reply(status, headers=(("Location", location),))


TOO_MANY = Reply(429, headers=(("Retry-After", "1"),), body=b"slow down")
GONE = Reply(410, body=b"this hook is gone")


@dataclass
class Request:
    path: str
    headers: dict[str, str]  # names in lower case
    body: bytes
    status: int  # what it was answered (planned)
    at: float  # time.monotonic() when it arrived
    signature_error: str = ""  # empty: a known secret signed it, recently

    @property
    def webhook_id(self) -> str:
        return self.headers.get("webhook-id", "")


@dataclass
class Receiver:
    """`url(path)` to point a webhook at; `secrets` to check signatures with (a request
    passes if any verifies); `plan(path, ...)` the next answers there; `tls`: a server
    context, to answer over TLS."""

    secrets: list[str] = field(default_factory=list)
    requests: list[Request] = field(default_factory=list)
    tls: ssl.SSLContext | None = None

    def __post_init__(self) -> None:
        self._plans: dict[str, list[Reply]] = {}
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.server.daemon_threads = True
        if self.tls is not None:
            self.server.socket = self.tls.wrap_socket(self.server.socket, server_side=True)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def port(self) -> int:
        return self.server.server_port

    def url(self, path: str = "/hook") -> str:
        scheme = "https" if self.tls else "http"
        return f"{scheme}://127.0.0.1:{self.port}{path}"

    def plan(self, path: str, *replies: Reply | list[Reply]) -> None:
        flat: list[Reply] = []
        for reply in replies:
            flat.extend(reply if isinstance(reply, list) else [reply])
        with self._lock:
            self._plans.setdefault(path, []).extend(flat)

    def at(self, path: str) -> list[Request]:
        with self._lock:
            return [r for r in self.requests if r.path == path]

    def accepted(self, path: str | None = None) -> list[Request]:
        """What an idempotent receiver acts on: the first 2xx-answered request of each
        `webhook-id` whose signature verified, in the order they arrived."""
        seen: set[str] = set()
        kept = []
        with self._lock:
            requests = list(self.requests)
        for request in requests:
            if path is not None and request.path != path:
                continue
            if not 200 <= request.status < 300 or request.signature_error:
                continue
            if request.webhook_id not in seen:
                seen.add(request.webhook_id)
                kept.append(request)
        return kept

    def close(self) -> None:
        self._closing.set()  # hanging answers stop waiting
        self.server.shutdown()
        self.server.server_close()

    def _take(self, request: Request) -> Reply:
        with self._lock:
            plan = self._plans.get(request.path) or []
            reply = plan.pop(0) if plan else Reply()
            request.status = reply.status
            self.requests.append(request)
        return reply

    def _verify(self, headers: dict[str, str], body: bytes) -> str:
        if not self.secrets:
            return "no secret to check with"
        error = ""
        for secret in self.secrets:
            try:
                signing.verify(secret, headers, body)
            except signing.InvalidSignature as exc:
                error = str(exc)
            else:
                return ""
        return error


def _handler(receiver: Receiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            headers = {name.lower(): value for name, value in self.headers.items()}
            request = Request(
                self.path, headers, body, 0, time.monotonic(), receiver._verify(headers, body)
            )
            reply = receiver._take(request)
            if reply.hang:
                receiver._closing.wait(reply.hang)
            with contextlib.suppress(OSError):  # the sender gave up (a hang, an endless answer)
                self._answer(reply)

        def _answer(self, reply: Reply) -> None:
            self.send_response(reply.status)
            for name, value in reply.headers:
                self.send_header(name, value)
            length = 10**9 if reply.endless else len(reply.body)
            self.send_header("Content-Length", str(length))
            self.end_headers()
            if not reply.endless:
                self.wfile.write(reply.body)
                return
            chunk = b"x" * 65536
            while not receiver._closing.is_set():
                self.wfile.write(chunk)  # until the sender hangs up: BrokenPipe

        def log_message(self, *args: object) -> None:
            pass

    return Handler


# --------------------------------------------------------------------------- events


def end_job(owner, *, webhook_url: str = "", failed: bool = False, document=None) -> Job:
    """A job that ends (succeeded, or failed as `corrupt`) through the services, so the
    outbox writes its event and deliveries and sends them after commit. With `document`:
    its next version's job."""
    if document is None:
        document = make_document(owner)
        job = document.current_job
    else:
        version = Job.objects.filter(document=document).count() + 1
        job = Job.objects.create(
            document=document, owner=owner, version=version, storage_key=f"k{version}"
        )
    Job.objects.filter(id=job.id).update(webhook_url=webhook_url)
    claimed = services.claim_job(job_id=job.id, worker="w:1:t")
    assert claimed is not None
    if failed:
        services.fail_job(job=claimed, code="corrupt", detail="The PDF is damaged.")
    else:
        with transaction.atomic():
            services.complete_job(
                job=claimed, total=3, ready_version=None, embed_model="hashing::384"
            )
    return claimed
