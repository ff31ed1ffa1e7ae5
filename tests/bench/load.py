"""Payloads and the load generator: raw HTTP/1.1 uploads over sockets, a thread per client.

Every request is a fresh connection (`Connection: close`) to 127.0.0.1 carrying a prebuilt
multipart/form-data POST whose PDF differs only in a 32-byte nonce, so no two uploads have
the same bytes (the API gives identical bytes back as a duplicate, without storing them).

Latency runs from the connect (the client's first packet) to the last byte of the
response; on loopback the kernel answers the connect, so this is the time from sending the
first byte to having the whole answer.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
import uuid
from dataclasses import dataclass, field

BOUNDARY = f"bench-{uuid.uuid4().hex}"
NONCE_SLOT = b"%bench-nonce "  # followed by 32 bytes that each upload replaces
NONCE_SIZE = 32
TIMEOUT = 180.0  # seconds per socket operation: a stuck request is an error, never a hang
threading.stack_size(512 * 1024)  # 500 client threads need little stack each


def make_pdf(size: int) -> bytes:
    """A valid one-page PDF (fpdf2) padded to `size` bytes with comment lines before %%EOF.

    The last comment line is the nonce slot (see `Request`).
    """
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.multi_cell(0, 8, "Upload acknowledgement benchmark. " * 40)
    raw = bytes(pdf.output())
    head, eof, tail = raw.rpartition(b"%%EOF")
    slot = NONCE_SLOT + b"0" * NONCE_SIZE + b"\n"
    missing = size - len(head) - len(slot) - len(eof) - len(tail)
    line = b"%" + b"p" * 1022 + b"\n"
    count, rest = divmod(max(missing, 0), len(line))
    padding = line * count
    if rest:
        padding += b"%" + b"p" * (rest - 2) + b"\n" if rest >= 2 else b"\n"
    return head + padding + slot + eof + tail


@dataclass(frozen=True)
class Request:
    """A whole POST (headers and multipart body) around the PDF's nonce slot."""

    head: bytes  # the request line and headers, but the Authorization header
    before: bytes  # the body up to the nonce
    after: bytes  # the body after it
    tokens: tuple[str, ...]  # client i authenticates with tokens[i % len(tokens)]

    def send(self, sock: socket.socket, client: int) -> None:
        token = self.tokens[client % len(self.tokens)]
        sock.sendall(self.head + f"Authorization: Token {token}\r\n\r\n".encode())
        sock.sendall(memoryview(self.before))
        sock.sendall(uuid.uuid4().hex.encode() + self.after)


def build_request(
    port: int, tokens: list[str], pdf: bytes, path: str = "/api/documents/"
) -> Request:
    """The POST of `pdf` in the multipart field `file`; client i sends tokens[i]."""
    part = (
        f"--{BOUNDARY}\r\n"
        'Content-Disposition: form-data; name="file"; filename="bench.pdf"\r\n'
        "Content-Type: application/pdf\r\n\r\n"
    ).encode()
    closing = f"\r\n--{BOUNDARY}--\r\n".encode()
    head = (
        f"POST {path} HTTP/1.1\r\n"
        f"Host: 127.0.0.1:{port}\r\n"
        f"Content-Type: multipart/form-data; boundary={BOUNDARY}\r\n"
        f"Content-Length: {len(part) + len(pdf) + len(closing)}\r\n"
        "Connection: close\r\n"
    ).encode()
    body = part + pdf + closing
    slot = body.rindex(NONCE_SLOT) + len(NONCE_SLOT)
    return Request(head, body[:slot], body[slot + NONCE_SIZE :], tuple(tokens))


@dataclass
class Sample:
    start: float  # perf_counter at connect
    end: float  # perf_counter at the last byte of the answer (or the failure)
    status: int  # HTTP status; 0 when the connection failed
    deliberate: bool = False  # a 503 that says backlog_full

    @property
    def ms(self) -> float:
        return (self.end - self.start) * 1000.0


@dataclass
class Run:
    samples: list[Sample] = field(default_factory=list)
    wall: float = 0.0  # seconds from the first start to the last end
    errors: list[str] = field(default_factory=list)  # first few connection errors


def read_response(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """Status, headers (lower-case names) and body of one HTTP/1.1 answer."""
    buffer = b""
    while b"\r\n\r\n" not in buffer:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("connection closed before the response headers")
        buffer += chunk
    head, _, body = buffer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", -1))
    while length < 0 or len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            if length < 0:
                break
            raise ConnectionError("connection closed inside the response body")
        body += chunk
    return status, headers, body


def upload(port: int, request: Request, client: int, errors: list[str]) -> Sample:
    """One upload on a new connection; never raises."""
    start = time.perf_counter()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as sock:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            # The server may answer (e.g. 4xx) before it has read the whole body.
            with contextlib.suppress(OSError):
                request.send(sock, client)
            status, _, body = read_response(sock)
    except (OSError, ValueError, IndexError) as exc:
        if len(errors) < 5:
            errors.append(f"{type(exc).__name__}: {exc}")
        return Sample(start, time.perf_counter(), 0)
    sample = Sample(start, time.perf_counter(), status, status == 503 and b"backlog_full" in body)
    if status >= 500 and not sample.deliberate and len(errors) < 5:
        errors.append(f"HTTP {status}: {body[:300].decode(errors='replace')}")
    return sample


def _finish(run: Run) -> Run:
    if run.samples:
        run.wall = max(s.end for s in run.samples) - min(s.start for s in run.samples)
    return run


def sequential(port: int, request: Request, count: int, max_seconds: float) -> Run:
    """One client, one upload after the other: `count` uploads or `max_seconds`."""
    run = Run()
    deadline = time.monotonic() + max_seconds
    for _ in range(count):
        if time.monotonic() > deadline:
            break
        run.samples.append(upload(port, request, 0, run.errors))
    return _finish(run)


def concurrent(port: int, request: Request, clients: int, per_client: int, seconds: float) -> Run:
    """`clients` threads, each uploading in a loop until `per_client` or `seconds` is reached."""
    run = Run()
    lock = threading.Lock()
    barrier = threading.Barrier(clients)

    def client(number: int) -> None:
        mine: list[Sample] = []
        barrier.wait(timeout=60)
        deadline = time.monotonic() + seconds
        while len(mine) < per_client and time.monotonic() < deadline:
            mine.append(upload(port, request, number, run.errors))
        with lock:
            run.samples.extend(mine)

    _join(
        [threading.Thread(target=client, args=(i,), daemon=True) for i in range(clients)], seconds
    )
    return _finish(run)


def burst(port: int, request: Request, clients: int) -> Run:
    """`clients` uploads started at the same instant (a barrier), one each."""
    run = Run()
    lock = threading.Lock()
    barrier = threading.Barrier(clients)

    def client(number: int) -> None:
        barrier.wait(timeout=60)
        sample = upload(port, request, number, run.errors)
        with lock:
            run.samples.append(sample)

    _join([threading.Thread(target=client, args=(i,), daemon=True) for i in range(clients)], 0.0)
    return _finish(run)


def _join(threads: list[threading.Thread], seconds: float) -> None:
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + seconds + 60 + 2 * TIMEOUT
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
