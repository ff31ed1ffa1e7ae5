"""An ASGI application answered from inside a Django view, on the web process's threads.

The `web` process is gunicorn's gthread workers serving WSGI (docs/running/serving.md), and
/mcp is an ASGI application (the MCP SDK's). Rather than a second server on another port,
or a WSGI-to-ASGI adapter in front of Django, a view hands the request to the application
here: each worker process keeps one asyncio loop on a thread of its own, where the
application's lifespan is entered once (the first time a request needs it) and each
request runs as a task; the request's thread waits for the answer.

While it waits, that thread runs what the application hands back to it
(`in_request_thread`): the Django work of a request (the ORM, Redis) runs on the thread
Django gave the request, with its own database connection, closed or kept by Django at
the request's end as for any view. Run on the loop's thread pool instead, each of its
threads would hold a connection of its own past the web process's share of the
connection budget (docs/running/many-machines.md).

Only whole answers: a body is read whole (Django's limits apply), and the answer is
collected whole before Django sends it. That is what an MCP endpoint in JSON-response mode
gives; a streamed answer (server-sent events) would wait until its end.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import queue
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, TypeVar

from django.http import HttpRequest, HttpResponse

T = TypeVar("T")
Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
AsgiApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CALLS = "ingest.request_thread"  # the scope key of the request's _Calls
ANSWER_SECONDS = 120.0  # a request whose answer takes longer is answered 504
START_SECONDS = 30.0  # the loop and the application's lifespan, started
# Hop-by-hop, or set again by Django from the body.
_DROPPED = {b"content-length", b"connection", b"transfer-encoding"}


@dataclass(frozen=True)
class Served:
    """What the bridge serves: the ASGI app, and what must run around it (its lifespan)."""

    app: AsgiApp
    running: Callable[[], AbstractAsyncContextManager[object]]


class Bridge:
    """One loop per process, running `build()`'s application; `serve` answers a request."""

    def __init__(self, build: Callable[[], Served]) -> None:
        self._build = build
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._served: Served | None = None
        self._thread: threading.Thread | None = None
        self._pid = 0

    def serve(self, request: HttpRequest, extra: dict[str, Any]) -> HttpResponse:
        """The application's answer to `request`; `extra` joins the ASGI scope."""
        loop, served = self._running()
        calls = _Calls()
        scope = _scope(request, {**extra, CALLS: calls})
        exchange = _Exchange(request.body)
        future = asyncio.run_coroutine_threadsafe(exchange.run(served.app, scope), loop)
        if not calls.serve_until(future, ANSWER_SECONDS):
            future.cancel()
            return HttpResponse(
                b'{"code": "timeout", "detail": "No answer in time."}',
                status=504,
                content_type="application/json",
            )
        future.result()  # an exception of the application's is the view's
        response = HttpResponse(b"".join(exchange.body), status=exchange.status)
        for name, value in exchange.headers:
            if name.lower() not in _DROPPED:
                response[name.decode("latin-1")] = value.decode("latin-1")
        return response

    def _running(self) -> tuple[asyncio.AbstractEventLoop, Served]:
        with self._lock:
            alive = self._thread is not None and self._thread.is_alive()
            if not alive or self._pid != os.getpid():  # first use, or a forked child
                self._start()
            assert self._loop is not None
            assert self._served is not None
            return self._loop, self._served

    def _start(self) -> None:
        served = self._build()
        loop = asyncio.new_event_loop()
        started: concurrent.futures.Future[None] = concurrent.futures.Future()

        async def live() -> None:
            async with served.running():
                started.set_result(None)
                await asyncio.Event().wait()  # until the process ends

        def run() -> None:
            asyncio.set_event_loop(loop)
            try:
                loop.run_until_complete(live())
            except BaseException as exc:
                if not started.done():
                    started.set_exception(exc)
                raise

        thread = threading.Thread(target=run, name="asgi-bridge", daemon=True)
        thread.start()
        started.result(timeout=START_SECONDS)
        self._loop, self._served, self._thread, self._pid = loop, served, thread, os.getpid()


async def in_request_thread(scope: Scope, call: Callable[[], T]) -> T:
    """`call()`'s result, run on the thread of the request that `scope` belongs to."""
    calls: _Calls = scope[CALLS]
    return await calls.submit(call)


class _Calls:
    """Work handed from the loop to the request's thread, which runs it while it waits."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()

    async def submit(self, call: Callable[[], T]) -> T:
        loop = asyncio.get_running_loop()
        outcome: asyncio.Future[T] = loop.create_future()

        def settle(result: T | None, error: BaseException | None) -> None:
            if outcome.done():  # the request was given up meanwhile
                return
            if error is not None:
                outcome.set_exception(error)
            else:
                outcome.set_result(result)  # type: ignore[arg-type]

        def run() -> None:
            try:
                result = call()
            except BaseException as exc:  # handed to the task, raised there
                loop.call_soon_threadsafe(settle, None, exc)
            else:
                loop.call_soon_threadsafe(settle, result, None)

        self._queue.put(run)
        return await outcome

    def serve_until(self, done: concurrent.futures.Future[Any], seconds: float) -> bool:
        """Run the work handed over until `done` is; False when `seconds` pass first."""
        done.add_done_callback(lambda _: self._queue.put(None))
        deadline = time.monotonic() + seconds
        while True:
            try:
                work = self._queue.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                return False
            if work is None:
                return True
            work()


class _Exchange:
    """One request's body in, and its answer collected whole."""

    def __init__(self, body: bytes) -> None:
        self._request_body: bytes | None = body
        self._finished = asyncio.Event()
        self.status = 500
        self.headers: list[tuple[bytes, bytes]] = []
        self.body: list[bytes] = []

    async def run(self, app: AsgiApp, scope: Scope) -> None:
        await app(scope, self._receive, self._send)

    async def _receive(self) -> Message:
        if self._request_body is not None:
            body, self._request_body = self._request_body, None
            return {"type": "http.request", "body": body, "more_body": False}
        await self._finished.wait()  # the client is gone once its answer is sent
        return {"type": "http.disconnect"}

    async def _send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            self.headers = list(message.get("headers", []))
        elif message["type"] == "http.response.body":
            self.body.append(message.get("body", b""))
            if not message.get("more_body", False):
                self._finished.set()


def _scope(request: HttpRequest, extra: dict[str, Any]) -> Scope:
    """The ASGI scope of a Django request (its headers as the client sent them)."""
    host, _, port = request.get_host().rpartition(":")
    server = (host, int(port)) if port.isdigit() else (request.get_host(), None)
    client = request.META.get("REMOTE_ADDR") or None
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": request.method,
        "scheme": request.scheme,
        "path": request.path,
        "raw_path": request.path.encode(),
        "query_string": request.META.get("QUERY_STRING", "").encode("latin-1"),
        "root_path": "",
        "headers": list(_headers(request.META)),
        "server": server,
        "client": (client, 0) if client else None,
        "state": {},
        **extra,
    }


def _headers(meta: dict[str, Any]) -> Iterable[tuple[bytes, bytes]]:
    for key, value in meta.items():
        if key.startswith("HTTP_"):
            name = key[5:].replace("_", "-").lower()
        elif key in ("CONTENT_TYPE", "CONTENT_LENGTH"):
            name = key.replace("_", "-").lower()
        else:
            continue
        if value:
            yield name.encode("latin-1"), str(value).encode("latin-1")
