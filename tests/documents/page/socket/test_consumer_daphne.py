"""The status socket as the Procfile's `ws` line serves it: daphne, with its own limit on
incoming messages, and the origin check in front of the consumer."""

import base64
import os
import socket
import struct
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client

from config.tooling.embedded import free_port
from tests.harness.servers import ROOT, ServerProcess, answers
from tests.harness.services import database_url

pytestmark = pytest.mark.django_db(transaction=True)

MAX_BYTES = 1000


def procfile_line(name: str) -> str:
    for line in (ROOT / "Procfile").read_text().splitlines():
        if line.startswith(f"{name}:"):
            return line.split(":", 1)[1].strip()
    raise AssertionError(f"no {name} line")


@pytest.fixture
def ws_port(tmp_path: Path) -> Iterator[int]:
    port = free_port()
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "DATABASE_URL": database_url(connection.settings_dict),
        "REDIS_URL": settings.REDIS_URL,
        "HOST": "127.0.0.1",
        "WS_PORT": str(port),
        "PORT": "8000",
        "INGEST_WS_MAX_MESSAGE_BYTES": str(MAX_BYTES),
    }
    daphne = ServerProcess(
        "ws",
        ["bash", "-c", f"exec {procfile_line('ws')}"],
        env,
        tmp_path,
        lambda _: answers(f"http://127.0.0.1:{port}/ws/status/", status=426),  # socket only
    ).start()
    try:
        yield port
    finally:
        daphne.stop()


def cookie_of(user) -> str:
    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


def handshake(port: int, origin: str, cookie: str) -> tuple[socket.socket, bytes]:
    """A browser's websocket handshake by hand: the socket and the status line."""
    conn = socket.create_connection(("127.0.0.1", port), timeout=5)
    key = base64.b64encode(os.urandom(16)).decode()
    conn.sendall(
        (
            f"GET /ws/status/ HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Origin: {origin}\r\nCookie: {cookie}\r\n\r\n"
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = conn.recv(4096)
        if not chunk:
            break
        head += chunk
    return conn, head.split(b"\r\n", 1)[0]


def send_text(conn: socket.socket, payload: bytes) -> None:
    """One masked text frame, as a client must send it."""
    mask = os.urandom(4)
    length = len(payload)
    if length < 126:
        header = struct.pack("!BB", 0x81, 0x80 | length)
    elif length < 65536:
        header = struct.pack("!BBH", 0x81, 0x80 | 126, length)
    else:
        header = struct.pack("!BBQ", 0x81, 0x80 | 127, length)
    masked = bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload))
    conn.sendall(header + mask + masked)


def close_code(conn: socket.socket) -> int | None:
    """The code of the close frame the server sends next (None: the connection ended)."""
    data = b""
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        data += chunk
        while len(data) >= 2:
            opcode, length = data[0] & 0x0F, data[1] & 0x7F
            start = 2
            if length == 126:
                length, start = struct.unpack("!H", data[2:4])[0], 4
            elif length == 127:
                length, start = struct.unpack("!Q", data[2:10])[0], 10
            if len(data) < start + length:
                break
            body, data = data[start : start + length], data[start + length :]
            if opcode == 0x8:
                return struct.unpack("!H", body[:2])[0] if len(body) >= 2 else None


def dropped(conn: socket.socket, within: float = 2.0) -> bool:
    """Whether the server ends the connection within `within` seconds, by a close frame,
    an end of stream or a reset (autobahn, under daphne, drops a connection that breaks a
    limit without a closing handshake)."""
    conn.settimeout(within)
    try:
        close_code(conn)
    except TimeoutError:
        return False
    except ConnectionResetError:
        pass
    return True


def test_daphne_drops_a_message_over_the_limit(alice, ws_port):
    cookie = cookie_of(alice)
    big, big_status = handshake(ws_port, f"http://127.0.0.1:{ws_port}", cookie)
    small, small_status = handshake(ws_port, f"http://127.0.0.1:{ws_port}", cookie)
    try:
        assert b" 101 " in big_status
        assert b" 101 " in small_status
        send_text(small, b"x" * MAX_BYTES)
        send_text(big, b"x" * (MAX_BYTES + 1))

        assert not dropped(small)
        assert dropped(big)
    finally:
        big.close()
        small.close()


def test_daphne_refuses_another_port_of_the_same_host(alice, ws_port):
    cookie = cookie_of(alice)
    page, page_status = handshake(ws_port, "http://127.0.0.1:8000", cookie)
    other, other_status = handshake(ws_port, "http://127.0.0.1:5173", cookie)
    page.close()
    other.close()

    assert b" 101 " in page_status  # the page on PORT (8000 by default)
    assert b" 403 " in other_status
