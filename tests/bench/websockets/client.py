"""The benchmark's users and their clients: a minimal RFC 6455 websocket client on asyncio
(handshake, unmasked server frames, masked pong and close)."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
import time
from dataclasses import dataclass, field
from typing import Any

from tests.bench.websockets import GUID

# --------------------------------------------------------------------------- the clients


def _frame(opcode: int, payload: bytes = b"") -> bytes:
    """A masked client frame with a short payload (pong, close)."""
    mask = os.urandom(4)
    body = bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload[:125]))
    return bytes([0x80 | opcode, 0x80 | len(body)]) + mask + body


@dataclass
class User:
    id: int
    session: str
    documents: list[tuple[str, str]]  # (document id, job id)
    clients: list[Client] = field(default_factory=list)
    pushed: int = 0


class Client:
    """One browser tab's status socket."""

    def __init__(self, number: int, user: User) -> None:
        self.number = number
        self.user = user
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.task: asyncio.Task[None] | None = None
        self.open = False
        self.closed_why = ""

    async def connect(self, port: int, cookie: str) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=2**20)
        self.reader, self.writer = reader, writer
        key = base64.b64encode(os.urandom(16))
        writer.write(
            b"GET /ws/status/ HTTP/1.1\r\n"
            b"Host: 127.0.0.1:%d\r\n"
            b"Upgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n"
            # The socket's own origin: see config/http/ws_origin.py.
            b"Origin: http://127.0.0.1:%d\r\n"
            b"Cookie: %s=%s\r\n\r\n"
            % (port, key, port, cookie.encode(), self.user.session.encode())
        )
        head = await reader.readuntil(b"\r\n\r\n")
        status = head.split(b"\r\n", 1)[0]
        if b" 101 " not in status + b" ":
            raise ConnectionError(status.decode(errors="replace"))
        accept = base64.b64encode(hashlib.sha1(key + GUID).digest())
        if accept.lower() not in head.lower():
            raise ConnectionError("bad Sec-WebSocket-Accept")
        self.open = True

    async def listen(self, on_message: Any) -> None:
        """Read frames until the socket closes; text messages go to on_message."""
        reader, writer = self.reader, self.writer
        assert reader is not None
        assert writer is not None
        parts: list[bytes] = []
        try:
            while True:
                first, second = await reader.readexactly(2)
                opcode, length = first & 0x0F, second & 0x7F
                if length == 126:
                    length = int.from_bytes(await reader.readexactly(2), "big")
                elif length == 127:
                    length = int.from_bytes(await reader.readexactly(8), "big")
                mask = await reader.readexactly(4) if second & 0x80 else b""
                payload = await reader.readexactly(length) if length else b""
                if mask:
                    payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
                if opcode == 0x9:  # ping (daphne sends one every 20 s)
                    writer.write(_frame(0xA, payload))
                elif opcode == 0x8:
                    code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
                    self.closed_why = f"closed by the server ({code})"
                    writer.write(_frame(0x8, payload[:2]))
                    break
                elif opcode in (0x0, 0x1, 0x2):
                    parts.append(payload)
                    if first & 0x80:
                        on_message(self, b"".join(parts), time.monotonic())
                        parts = []
        except (asyncio.IncompleteReadError, ConnectionError) as exc:
            self.closed_why = self.closed_why or f"connection lost ({type(exc).__name__})"
        except asyncio.CancelledError:
            self.closed_why = self.closed_why or "stopped"
            raise
        finally:
            self.open = False
            writer.transport.abort()
