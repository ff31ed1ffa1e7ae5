"""The users: raw HTTP/1.1 uploads on fresh connections, one thread each.

Every answer is recorded with its status, `Retry-After`, refusal code and job id; a
connection error or a timeout is recorded as status 0 with what happened.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import cast

from tests.bench.load import read_response
from tests.bench.loadtest.payloads import Upload

TIMEOUT = 120.0  # seconds per socket operation: a stuck request is a timeout, never a hang
BOUNDARY = f"loadtest-{uuid.uuid4().hex}"
threading.stack_size(512 * 1024)  # 500 client threads need little stack each


@dataclass
class Answer:
    phase: str  # "burst" or "push"
    kind: str  # the upload's class (payloads)
    source: str
    bytes: int
    pages: int
    start: float  # wall clock (time.time()) at connect
    seconds: float  # connect to the last byte of the answer
    status: int = 0  # 0: no answer (connection error or timeout)
    retry_after: str | None = None
    code: str = ""  # the refusal's error code
    job_id: str | None = None
    error: str = ""  # what went wrong without an answer
    # Sent again elsewhere after no answer (a web host lost: `upload_anywhere`), each time
    # with the same Idempotency-Key; what the first try met.
    resent: int = 0
    first_error: str = ""
    # "endpoint" (POST /api/documents/) or "direct" (tests/bench/loadtest/direct_client.py,
    # whose two acknowledgements, start and completion, are timed apart).
    path: str = "endpoint"
    start_ms: float = 0.0
    complete_ms: float = 0.0

    @property
    def accepted(self) -> bool:
        return 200 <= self.status < 300 and self.job_id is not None

    def to_json(self) -> dict:
        return asdict(self)


def _field(name: str, value: str) -> bytes:
    return (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'
    ).encode()


# How one user uploads: (server, token, upload, phase, webhook_url) -> Answer.
Send = Callable[..., "Answer"]

# Where a client sends: a port on 127.0.0.1 (one machine), or (host, port); several of
# them (web hosts) share the users out in turn.
Address = tuple[str, int]
Server = int | Address


def address_of(server: Server) -> Address:
    return ("127.0.0.1", server) if isinstance(server, int) else server


def addresses(servers: Server | Sequence[Address]) -> list[Address]:
    if isinstance(servers, int):
        return [address_of(servers)]
    if isinstance(servers[0], str):  # one (host, port)
        return [cast(Address, servers)]
    return list(cast(Sequence[Address], servers))


def _request(
    server: Address, token: str, upload: Upload, webhook_url: str = "", key: str = ""
) -> bytes:
    # The webhook's field first: the server checks it before it stores the file.
    fields = _field("webhook_url", webhook_url) if webhook_url else b""
    part = (
        fields
        + (
            f"--{BOUNDARY}\r\n"
            f'Content-Disposition: form-data; name="file"; filename="{upload.source}"\r\n'
            "Content-Type: application/pdf\r\n\r\n"
        ).encode()
    )
    closing = f"\r\n--{BOUNDARY}--\r\n".encode()
    head = (
        "POST /api/documents/ HTTP/1.1\r\n"
        f"Host: {server[0]}:{server[1]}\r\n"
        f"Authorization: Token {token}\r\n"
        + (f"Idempotency-Key: {key}\r\n" if key else "")
        + f"Content-Type: multipart/form-data; boundary={BOUNDARY}\r\n"
        f"Content-Length: {len(part) + upload.bytes + len(closing)}\r\n"
        "Connection: close\r\n\r\n"
    ).encode()
    return head + part + upload.body + closing


def upload(
    server: Server, token: str, item: Upload, phase: str, webhook_url: str = "", key: str = ""
) -> Answer:
    """One upload on a new connection (naming `webhook_url`, if any; with `key` as its
    Idempotency-Key); never raises."""
    answer = Answer(phase, item.kind, item.source, item.bytes, item.pages, time.time(), 0.0)
    began = time.perf_counter()
    target = address_of(server)
    try:
        with socket.create_connection(target, timeout=TIMEOUT) as sock:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            # The server may refuse before reading the whole body: read its answer anyway.
            with contextlib.suppress(OSError):
                sock.sendall(_request(target, token, item, webhook_url, key))
            status, headers, body = read_response(sock)
    except (OSError, ValueError, IndexError) as exc:
        answer.seconds = time.perf_counter() - began
        answer.error = f"{type(exc).__name__}: {exc}"[:300]
        return answer
    answer.seconds = time.perf_counter() - began
    answer.status = status
    answer.retry_after = headers.get("retry-after")
    parse_body(answer, body)
    return answer


def upload_anywhere(
    targets: Sequence[Address],
    first: int,
    token: str,
    item: Upload,
    phase: str,
    webhook_url: str = "",
    rounds: int = 3,
) -> Answer:
    """One upload to `targets[first]`, sent to the next target, and the next, with the
    same Idempotency-Key while none answers (a load balancer's retry of a lost web host):
    a repeat the service already took gets its first answer again and creates nothing.
    Up to `rounds` times round the targets, a second apart after each round."""
    key = f"{BOUNDARY}-{uuid.uuid4().hex}"
    answer = upload(targets[first % len(targets)], token, item, phase, webhook_url, key)
    began, first_error, resent = answer.start, answer.error, 0
    for attempt in range(1, rounds * len(targets)):
        if answer.status:
            break
        if attempt % len(targets) == 0:
            time.sleep(1.0)
        resent += 1
        answer = upload(targets[(first + attempt) % len(targets)], token, item, phase,
                        webhook_url, key)  # fmt: skip
    if resent:
        answer.seconds += answer.start - began
        answer.start, answer.resent, answer.first_error = began, resent, first_error
    return answer


def parse_body(answer: Answer, body: bytes) -> None:
    try:
        payload = json.loads(body)
    except ValueError:
        answer.error = body[:300].decode(errors="replace")
        return
    results = payload.get("results") if isinstance(payload, dict) else None
    first = results[0] if results else payload
    if not isinstance(first, dict):
        return
    answer.job_id = first.get("job_id")
    error = first.get("error") or payload.get("error")
    # Refusals before the body is read are {"code", "detail"}; per-file ones sit in results.
    answer.code = error.get("code", "") if isinstance(error, dict) else payload.get("code", "")


def warm_up(
    servers: Server | Sequence[Address], tokens: list[str], clients: int = 16, rounds: int = 3
) -> None:
    """Authenticated reads on every server thread first: a running service is warm (its
    threads have connections and loaded code); the burst then measures uploads only."""
    targets = addresses(servers)

    def read(token: str, target: Address) -> None:
        with (
            contextlib.suppress(OSError),
            socket.create_connection(target, 30) as sock,
        ):
            sock.sendall(
                f"GET /api/documents/ HTTP/1.1\r\nHost: {target[0]}:{target[1]}\r\n"
                f"Authorization: Token {token}\r\nConnection: close\r\n\r\n".encode()
            )
            read_response(sock)

    for _ in range(rounds):
        threads = [
            threading.Thread(
                target=read,
                args=(tokens[n % len(tokens)], targets[n % len(targets)]),
                daemon=True,
            )
            for n in range(clients * len(targets))
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)


def burst(
    servers: Server | Sequence[Address],
    tokens: list[str],
    uploads: list[Upload],
    webhook_url: str = "",
    failover: bool = False,
    send: Callable[[int], Send] | None = None,
) -> list[Answer]:
    """Every user's upload, released together by a barrier (user n to the n-th server, in
    turn; with `failover`, to the next one while none answers: `upload_anywhere`). `send`
    picks how user n uploads (default: `upload`, through the upload endpoint)."""
    targets = addresses(servers)
    answers: list[Answer] = []
    lock = threading.Lock()
    barrier = threading.Barrier(len(uploads))

    def user(number: int) -> None:
        barrier.wait(timeout=120)
        args = (tokens[number], uploads[number], "burst", webhook_url)
        if failover:
            answer = upload_anywhere(targets, number, *args)
        else:
            sender = send(number) if send is not None else upload
            answer = sender(targets[number % len(targets)], *args)
        with lock:
            answers.append(answer)

    threads = [threading.Thread(target=user, args=(n,), daemon=True) for n in range(len(uploads))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(TIMEOUT * 3)
    return answers


class Pushers:
    """A few clients that keep uploading after the burst with the users' tokens in turn:
    straight on until the backlog limit answers 503, then once a second each, through the
    faults, so the backlog stays full and every answer of the accept path is on record."""

    def __init__(
        self,
        servers: Server | Sequence[Address],
        tokens: list[str],
        make_upload: Callable[[int], Upload],
        clients: int = 4,
        webhook_url: str = "",
        failover: bool = False,
        send: Callable[[int], Send] | None = None,
    ) -> None:
        self.targets, self.tokens, self.make_upload = addresses(servers), tokens, make_upload
        self.webhook_url, self.failover, self.send = webhook_url, failover, send
        self.answers: list[Answer] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._count = 0
        self._threads = [
            threading.Thread(target=self._run, args=(n,), daemon=True) for n in range(clients)
        ]

    def start(self) -> Pushers:
        for thread in self._threads:
            thread.start()
        return self

    def _next(self) -> int:
        with self._lock:
            self._count += 1
            return self._count

    def _run(self, client: int) -> None:
        while not self._stop.is_set():
            number = self._next()
            token = self.tokens[number % len(self.tokens)]
            args = (token, self.make_upload(number), "push", self.webhook_url)
            if self.failover:
                answer = upload_anywhere(self.targets, number, *args)
            else:
                sender = self.send(number) if self.send is not None else upload
                answer = sender(self.targets[number % len(self.targets)], *args)
            with self._lock:
                self.answers.append(answer)
            # Straight on while accepted, so the backlog reaches its limit and stays there;
            # once refused, once a second (not Retry-After: every refusal is the record).
            if not answer.accepted:
                self._stop.wait(1.0)

    def stop(self) -> list[Answer]:
        self._stop.set()
        for thread in self._threads:
            thread.join(TIMEOUT + 5)
        return self.answers
