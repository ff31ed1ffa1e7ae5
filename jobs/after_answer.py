"""Work a request leaves for after its answer, so the client does not wait for it.

`AfterAnswer` (middleware, first in settings.MIDDLEWARE) gives each request a place to
hold work: jobs.queue holds the job ids it would send after commit there, and they are
sent once the server has written the response. Django runs a response's closers when
the WSGI or ASGI server closes it, after the last byte went out and before
`request_finished`. Work held by several calls with the same `flush` runs as one call
with all their items, in the order they were held (one UPDATE for a request's files).

Only work that may be lost is held here: a process that dies between the answer and
the flush loses it. For a job id that is the message alone, and the sweeper sends it
(jobs.sweeper bounds the delay). Outside a request (workers, the sweeper, commands)
`hold` says no and the caller does the work at once.
"""

from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from django.http import HttpRequest, HttpResponseBase

Flush = Callable[[list[Any]], object]

_held: ContextVar[dict[Flush, list[Any]] | None] = ContextVar("held_after_answer", default=None)


def hold(flush: Flush, item: object) -> bool:
    """Have `flush([item, ...])` run after the current request's answer. False outside
    a request: nothing was held and the caller must do the work itself."""
    held = _held.get()
    if held is None:
        return False
    held.setdefault(flush, []).append(item)
    return True


def _run(held: dict[Flush, list[Any]]) -> None:
    for flush, items in held.items():
        flush(items)
    held.clear()


class AfterAnswer:
    """Runs the work a request held once its response is closed (sent)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        held: dict[Flush, list[Any]] = {}
        token = _held.set(held)
        try:
            response = self.get_response(request)
        except BaseException:
            _run(held)  # no answer to wait for: what was committed is sent now
            raise
        finally:
            _held.reset(token)
        if held:
            # The list FileResponse uses to close its file; run by response.close().
            response._resource_closers.append(lambda: _run(held))  # type: ignore[attr-defined]
        return response
