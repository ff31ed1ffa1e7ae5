"""What the fake HTTP services share: a threaded server on a free port, told by a script how
to answer its next requests, keeping each request, stopped at once."""

import threading
from collections import deque
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self


class ScriptedServer:
    """`handler` answers; it reaches this object as `self.server.fake`."""

    def __init__(self, handler: type[BaseHTTPRequestHandler], host: str = "127.0.0.1") -> None:
        self.delay = 0.0
        self.requests: list[dict[str, Any]] = []
        self._script: deque[str] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = ThreadingHTTPServer((host, 0), handler)
        self._httpd.fake = self  # type: ignore[attr-defined]
        # A short poll interval, so stop() returns at once.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        # The bound socket's own name: a str for AF_INET (typeshed allows bytes in general).
        assert isinstance(host, str)
        return f"http://{host}:{port}"

    @property
    def calls(self) -> int:
        """Requests received so far."""
        return len(self.requests)

    def script(self, behaviours: Iterable[str]) -> None:
        """Answer the next requests with these behaviours, one each, then "ok"."""
        with self._lock:
            self._script.extend(behaviours)

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes handlers sleeping through `delay`
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def _next_behaviour(self, request: dict[str, Any]) -> str:
        with self._lock:
            self.requests.append(request)
            return self._script.popleft() if self._script else "ok"
