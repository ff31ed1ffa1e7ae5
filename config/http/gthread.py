"""gunicorn's gthread worker with uploads apart: the `web` process's worker class.

gthread hands each connection to one pool of threads, first come first served, and a
thread reads a request's body itself. In a burst of 500 uploads every thread reads an
upload, and a request of a few hundred bytes (a direct upload's start or completion, a
job's status, a search) waits behind all of them. Here the uploads, the requests that
carry a file (`POST /api/documents/` and `POST /api/documents/<id>/versions/`), keep
gunicorn's pool of WEB_THREADS, and every other request has a pool of its own,
WEB_SMALL_THREADS: a small request waits only for other small ones.

Which pool a request goes to is read from its request line, peeked at on the socket
(MSG_PEEK: nothing is consumed, gunicorn's parser reads it as ever) when the connection
first has bytes to read. A new connection therefore waits for its first bytes on the
worker's poller, as gthread's own connections that are slow to send do, instead of on a
thread. Over TLS (gunicorn's own, which this service leaves to its proxy) the line cannot
be peeked, and every request goes to the one pool, as in gthread.
"""

from __future__ import annotations

import errno
import re
import selectors
import socket
import time
from concurrent import futures
from functools import partial
from types import FrameType

from gunicorn.workers.gthread import DEFAULT_WORKER_DATA_TIMEOUT, TConn, ThreadWorker

from config.common.env import env_int

# Enough for any request line of ours; a line not in it goes to the uploads' pool.
PEEK_BYTES = 1024
UPLOAD = re.compile(rb"POST /api/documents/(?:[0-9a-fA-F-]{36}/versions/)?(?:\?\S*)? HTTP/")


def small_threads() -> int:
    """WEB_SMALL_THREADS: each web process's threads for requests that are not uploads
    (0: one pool for everything, as gthread)."""
    return env_int("WEB_SMALL_THREADS", 4, minimum=0)


def carries_upload(head: bytes) -> bool:
    """Whether a request that starts with `head` is an upload (or cannot be told yet)."""
    line, found, _ = head.partition(b"\r\n")
    if not found:  # not a whole line yet: the general pool, as gthread would
        return True
    return UPLOAD.match(line) is not None


class UploadsApartWorker(ThreadWorker):
    """gthread, with a second pool of threads for every request that is not an upload."""

    def init_process(self) -> None:
        size = small_threads()
        self.small_pool = (
            futures.ThreadPoolExecutor(max_workers=size, thread_name_prefix="small")
            if size and not self.cfg.is_ssl
            else None
        )
        super().init_process()

    def accept(self, listener: socket.socket) -> None:
        """A new connection waits on the poller for its first bytes (gthread's waits on a
        thread), so that its request line chooses the pool it is served by."""
        if self.small_pool is None:
            super().accept(listener)
            return
        try:
            client, address = listener.accept()
        except OSError as error:
            if error.errno not in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                raise
            return
        self.nr_conns += 1
        conn = TConn(self.cfg, client, address, listener.getsockname())  # non-blocking
        # As long as gthread gives a new connection to send its first bytes: a thread's
        # wait, then the poller's.
        conn.timeout = time.monotonic() + DEFAULT_WORKER_DATA_TIMEOUT + self.cfg.keepalive
        self.pending_conns.append(conn)
        self.poller.register(
            client, selectors.EVENT_READ, partial(self.on_pending_socket_readable, conn)
        )

    def enqueue_req(self, conn: TConn) -> None:
        pool = self.tpool
        if self.small_pool is not None and not carries_upload(_head(conn)):
            pool = self.small_pool
        done = pool.submit(self.handle, conn)
        done.add_done_callback(
            lambda future: self.method_queue.defer(self.finish_request, conn, future)
        )

    def handle_quit(self, sig: int, frame: FrameType | None) -> None:
        if self.small_pool is not None:
            self.small_pool.shutdown(wait=False)
        super().handle_quit(sig, frame)

    def run(self) -> None:
        try:
            super().run()
        finally:
            if self.small_pool is not None:
                self.small_pool.shutdown(wait=False)


def _head(conn: TConn) -> bytes:
    """The first bytes of the connection's next request, without consuming them: what
    gunicorn's parser has read ahead, else a peek at the socket (b"" when none came)."""
    unreader = getattr(conn.parser, "unreader", None)
    if unreader is not None:
        buffered = unreader.buf.getvalue()
        if buffered:
            return buffered[:PEEK_BYTES]
    try:
        return conn.sock.recv(PEEK_BYTES, socket.MSG_PEEK | socket.MSG_DONTWAIT)
    except OSError:  # nothing to read yet, or the peer has gone: gunicorn will see
        return b""
