"""Answers the views never have to give themselves: 400 for a query string holding a
NUL character (which no text column can store), 400 with a page that says why for a host
name the site does not answer to, and 503 + Retry-After, not 500, while the database or
the object storage cannot be reached."""

import logging
from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.request import split_domain_port
from django.shortcuts import render

from config.common.unavailable import RETRY_AFTER_SECONDS, unavailable

log = logging.getLogger(__name__)


class ServiceUnavailableMiddleware:
    """A view that could not reach the database or the object storage answers 503 with
    Retry-After: JSON with a `code` (`database_unavailable`, `storage_unavailable`)
    under /api/, a short page elsewhere. Every other error is left alone."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        answer = unavailable(exception)
        if answer is None:
            return None
        code, detail = answer
        log.warning("%s for %s %s: %s", code, request.method, request.path, exception)
        if code == "database_unavailable":
            connection.close()  # the next request opens a new connection
        if request.path.startswith("/api/"):
            response: HttpResponse = JsonResponse({"code": code, "detail": detail}, status=503)
        else:
            response = HttpResponse(detail, status=503, content_type="text/plain; charset=utf-8")
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


HOST_SETTING = "DJANGO_ALLOWED_HOSTS"


# Answered whatever the Host header says: health probes and Prometheus scrapes reach each
# process by its address, which no DJANGO_ALLOWED_HOSTS can list ahead of time.
PROBE_PATHS = frozenset({"/healthz", "/metrics"})


def _an_allowed_host() -> str | None:
    for entry in settings.ALLOWED_HOSTS:
        name = entry.lstrip(".")  # ".example.com" allows example.com itself
        if name and name != "*":
            return name
    return "localhost" if "*" in settings.ALLOWED_HOSTS else None


class DisallowedHostMiddleware:
    """A request for a host name not in ALLOWED_HOSTS gets a 400 that says so: a page in
    the site's style (JSON with a code under /api/), naming DJANGO_ALLOWED_HOSTS while
    DJANGO_DEBUG is on. Django would answer an empty 400, or with DEBUG on its debug page
    naming ALLOWED_HOSTS, a setting this project reads from the environment. Early in
    MIDDLEWARE: the first get_host() (SecurityMiddleware's, CSRF's) would raise. /healthz
    and /metrics answer any host (PROBE_PATHS)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            request.get_host()
        except DisallowedHost as exc:
            if request.path in PROBE_PATHS and (allowed := _an_allowed_host()):
                # A probe or a scrape by the pod's address (Kubernetes, Prometheus): these
                # answers name no host, so they are given one the site answers to.
                request.META["HTTP_HOST"] = allowed
                request.META.pop("HTTP_X_FORWARDED_HOST", None)
                return self.get_response(request)
            # The logger and level Django's own handling uses for it.
            logging.getLogger("django.security.DisallowedHost").error(str(exc))
            return _disallowed_host(request)
        return self.get_response(request)


def _disallowed_host(request: HttpRequest) -> HttpResponse:
    host = _raw_host(request)
    name = split_domain_port(host)[0] or host  # ALLOWED_HOSTS holds names without ports
    if request.path.startswith("/api/"):
        detail = f"This server does not answer to the host name {name!r}."
        if settings.DEBUG:
            detail += f" To serve it, add it to {HOST_SETTING} (comma-separated)."
        return JsonResponse({"code": "bad_request", "detail": detail}, status=400)
    context = {
        "name": name,
        "setting": HOST_SETTING,
        "allowed": settings.ALLOWED_HOSTS,
        "debug": settings.DEBUG,
    }
    return render(request, "400_host.html", context, status=400)


def _raw_host(request: HttpRequest) -> str:
    """The host name get_host() refused: the trusted proxy's X-Forwarded-Host, or Host."""
    meta = request.META
    if getattr(settings, "USE_X_FORWARDED_HOST", False) and "HTTP_X_FORWARDED_HOST" in meta:
        return str(meta["HTTP_X_FORWARDED_HOST"])
    return str(meta.get("HTTP_HOST") or meta.get("SERVER_NAME", ""))
