"""Two answers the views never have to give themselves: 400 for a query string holding a
NUL character (which no text column can store), and 503 + Retry-After, not 500, while the
database cannot be reached."""

import logging
from collections.abc import Callable

from django.db import InterfaceError, OperationalError, connection
from django.http import HttpRequest, HttpResponse, JsonResponse

log = logging.getLogger(__name__)

# A restart or failover of Postgres takes seconds; clients may try again after this many.
RETRY_AFTER_SECONDS = 5
DETAIL = (
    f"The database is not answering (it may be restarting); try again in "
    f"{RETRY_AFTER_SECONDS} seconds. No file of this request was kept unless it was recorded."
)


class DatabaseUnavailableMiddleware:
    """A view that could not reach the database answers 503 with Retry-After: JSON with
    a `code` under /api/, a short page elsewhere. Every other error is left alone."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, OperationalError | InterfaceError):
            return None
        log.warning("database unavailable for %s %s: %s", request.method, request.path, exception)
        connection.close()  # the next request opens a new connection
        if request.path.startswith("/api/"):
            response: HttpResponse = JsonResponse(
                {"code": "database_unavailable", "detail": DETAIL}, status=503
            )
        else:
            response = HttpResponse(DETAIL, status=503, content_type="text/plain; charset=utf-8")
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response


NUL_DETAIL = "The query string holds a NUL character (%00), which no field may contain."


class RefuseNulMiddleware:
    """A query string with a NUL (`?q=a%00b`) gets 400 `invalid` before any view runs:
    Postgres cannot store or compare such text, so every search, filter and admin lookup
    would fail with a 500 on it. (Form fields are the views' own to check: reading the
    body here would parse uploads before admission has let them in.)"""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if "%00" in request.META.get("QUERY_STRING", ""):
            if request.path.startswith("/api/"):
                return JsonResponse({"code": "invalid", "detail": NUL_DETAIL}, status=400)
            return HttpResponse(NUL_DETAIL, status=400, content_type="text/plain; charset=utf-8")
        return self.get_response(request)
