"""Who may read the API's schema and its docs pages: anyone (INGEST_API_DOCS_PUBLIC, the
default: they describe the API the docs already publish, and hold no one's data), or
only signed-in users. Then the schema wants a session or an API token like any endpoint
(401 `not_authenticated` otherwise), and the docs pages send a browser to the sign-in page.

Read on each request, not when the URLs load, so a test or a settings change applies at
once. The schema also names the page's session (config/http/session_auth.py, DRF's with a
deferred CSRF check) as DRF's, which drf-spectacular would otherwise warn it cannot
describe (`manage.py check --deploy` runs it).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from drf_spectacular.authentication import SessionScheme
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.views import APIView


class PageSessionScheme(SessionScheme):
    target_class = "config.http.session_auth.SessionAuthentication"


class SchemaPermission(BasePermission):
    def has_permission(self, request: Request, view: APIView) -> bool:
        return settings.INGEST_API_DOCS_PUBLIC or bool(request.user.is_authenticated)


def docs_page(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """`view`, or the sign-in page for a visitor when the docs are not public."""

    @wraps(view)
    def page(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not settings.INGEST_API_DOCS_PUBLIC and not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        return view(request, *args, **kwargs)

    return page
