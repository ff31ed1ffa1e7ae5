"""One webhook POST, on the rules that keep a URL from reaching where it must not.

The connection goes to the address that `addresses.check` passed, never to a fresh
resolution of the name (which could answer differently: DNS rebinding); TLS still checks
the certificate against the URL's host name (sent as SNI), and the Host header is the
URL's. Redirects are not followed (a 3xx is a failure: following one would lead past the
check). 5 s to connect (TCP and TLS), 10 s in all, however slowly the answer drips in,
and at most 64 KB of the answer read.
"""

import contextlib
import http.client
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

from jobs.webhooks.network.addresses import Target

USER_AGENT = "ingest-webhooks/1 (Standard Webhooks)"
HEAD_BYTES = 1024  # of the answer, kept in the attempt log


@dataclass(frozen=True)
class Limits:
    connect: float = 5.0  # seconds to open the connection, TLS handshake included
    total: float = 10.0  # seconds for the whole exchange: connect, send, read
    answer_bytes: int = 64 * 1024  # of the answer's body read, at most


LIMITS = Limits()


@dataclass(frozen=True)
class Answer:
    """What one attempt met. `error` is empty only for a 2xx."""

    status_code: int | None
    latency_ms: int
    head: str = ""  # the answer's first 1 KB, as text
    retry_after: float | None = None  # seconds, from a Retry-After header
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


def host_header(target: Target) -> str:
    default = 443 if target.scheme == "https" else 80
    host = f"[{target.host}]" if ":" in target.host else target.host
    return host if target.port == default else f"{host}:{target.port}"


def post(
    target: Target,
    body: bytes,
    headers: dict,
    *,
    limits: Limits = LIMITS,
    started: float | None = None,
) -> Answer:
    """POST `body` to `target` with `headers` (and Content-Type, User-Agent, Host); never
    raises for anything the network or the receiver does. `limits.total` counts from
    `started` (a time.monotonic(); now when None): a caller that resolved the name first
    passes when it began, so that the whole attempt keeps to one budget."""
    started = time.monotonic() if started is None else started
    deadline = _Deadline(started + limits.total)
    phase = "connect"
    try:
        sock = _connect(target, deadline, min(time.monotonic() + limits.connect, deadline.at))
        with deadline.cutting(sock):
            phase = "send"
            connection = http.client.HTTPConnection(target.host, target.port)
            connection.sock = sock  # already connected: http.client never resolves the name
            _send(connection, target, body, headers, deadline)
            phase = "read"
            sock.settimeout(deadline.remaining())
            response = connection.getresponse()
            content = _read(response, sock, deadline, limits.answer_bytes)
            connection.close()
    except (OSError, http.client.HTTPException, ValueError) as exc:
        return Answer(None, elapsed_ms(started), error=_describe(exc, phase, deadline, limits))
    return _answer(response, content, elapsed_ms(started))


class _Deadline:
    """The exchange's end: each step's socket timeout is what is left of it, and a timer
    shuts the socket when it comes, so an answer dripping in a byte at a time (each read
    well inside its timeout) still ends there."""

    def __init__(self, at: float) -> None:
        self.at = at
        self.passed = False

    def remaining(self, until: float | None = None) -> float:
        left = (self.at if until is None else until) - time.monotonic()
        if left <= 0:
            self.passed = True
            raise TimeoutError("timed out")
        return left

    def cutting(self, sock: socket.socket) -> "_Cutter":
        return _Cutter(self, sock)


class _Cutter:
    def __init__(self, deadline: _Deadline, sock: socket.socket) -> None:
        self.deadline, self.sock = deadline, sock
        self.timer = threading.Timer(max(0.0, deadline.at - time.monotonic()), self._cut)
        self.timer.daemon = True

    def _cut(self) -> None:
        self.deadline.passed = True
        # The plain socket's shutdown, even under TLS: it wakes a blocked read at once.
        with contextlib.suppress(OSError):
            socket.socket.shutdown(self.sock, socket.SHUT_RDWR)

    def __enter__(self) -> None:
        self.timer.start()

    def __exit__(self, *exc: object) -> None:
        self.timer.cancel()
        self.sock.close()


def _connect(target: Target, deadline: _Deadline, connect_by: float) -> socket.socket:
    sock = socket.create_connection(
        (str(target.address), target.port), timeout=deadline.remaining(connect_by)
    )
    if target.scheme != "https":
        return sock
    try:
        sock.settimeout(deadline.remaining(connect_by))
        context = ssl.create_default_context()
        return context.wrap_socket(sock, server_hostname=target.host)
    except BaseException:
        sock.close()
        raise


def _send(
    connection: http.client.HTTPConnection,
    target: Target,
    body: bytes,
    headers: dict,
    deadline: _Deadline,
) -> None:
    connection.putrequest("POST", target.path, skip_host=True, skip_accept_encoding=True)
    connection.putheader("Host", host_header(target))
    connection.putheader("Content-Type", "application/json")
    connection.putheader("User-Agent", USER_AGENT)
    connection.putheader("Content-Length", str(len(body)))
    for name, value in headers.items():
        connection.putheader(name, value)
    assert connection.sock is not None
    connection.sock.settimeout(deadline.remaining())
    connection.endheaders(body)


def _read(
    response: http.client.HTTPResponse, sock: socket.socket, deadline: _Deadline, limit: int
) -> bytes:
    """At most `limit` bytes of the body; the rest is never read (the socket is closed).
    The status is known by now: a body cut short (by the deadline, or by the receiver
    hanging up) does not change the outcome."""
    chunks: list[bytes] = []
    size = 0
    while size < limit:
        left = deadline.at - time.monotonic()
        if left <= 0:
            break
        try:
            sock.settimeout(left)
            chunk = response.read1(limit - size)
        except (OSError, http.client.HTTPException):
            break  # cut by the deadline, or the receiver hung up: the status stands
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _answer(response: http.client.HTTPResponse, content: bytes, latency_ms: int) -> Answer:
    status = response.status
    head = content[:HEAD_BYTES].decode("utf-8", errors="replace")
    retry_after = parse_retry_after(response.getheader("Retry-After"))
    error = ""
    if 300 <= status < 400:
        location = (response.getheader("Location") or "")[:200]
        error = f"HTTP {status}: redirects are not followed (Location: {location})"
    elif not 200 <= status < 300:
        error = f"HTTP {status} {response.reason}"[:500]
    return Answer(status, latency_ms, head=head, retry_after=retry_after, error=error)


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header: a number of seconds or an HTTP date; None when
    absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - time.time())


def _describe(exc: BaseException, phase: str, deadline: _Deadline, limits: Limits) -> str:
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"TLS: the certificate was refused ({exc.verify_message})"[:500]
    if deadline.passed or isinstance(exc, TimeoutError):
        if phase == "connect":
            return f"connect: no connection within {limits.connect:g} s"
        return f"{phase}: no complete answer within {limits.total:g} s"
    return f"{phase}: {type(exc).__name__}: {exc}"[:500]


def elapsed_ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
