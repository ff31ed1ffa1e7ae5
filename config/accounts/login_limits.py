"""What django-axes needs from us: the client's address, and the answer to a sign-in it
refused.

The address is the connection's own unless it comes from a proxy named in
INGEST_TRUSTED_PROXIES; then it is what that proxy wrote in X-Forwarded-For
(config/http/proxies.py). Entries a client wrote are never believed: it cannot pick its own
address to dodge the per-address limit. (Behind a proxy left out of the setting, every
sign-in comes from the proxy's address, and one person's typos lock everyone out.)

A refused sign-in gets the page it was sent from, the site's or the admin's, with the
reason and when to try again, and status 429.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import admin
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from config.common import humanize
from config.http import proxies


def client_address(request: HttpRequest) -> str | None:
    return proxies.client_address(request.META)


def lockout_message() -> str:
    wait = humanize.duration(settings.AXES_COOLOFF_TIME.total_seconds())
    return (
        "Too many failed sign-ins from your address. "
        f"Try again in {wait}, or ask an administrator to lift the lock."
    )


def locked_out(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: Any = None
) -> HttpResponse:
    """AXES_LOCKOUT_CALLABLE: the sign-in page again, with the reason, status 429."""
    username = request.POST.get("username", "")
    context: dict[str, Any] = {
        "locked_out": lockout_message(),
        "next": request.POST.get("next", ""),
    }
    if request.path == reverse("admin:login"):
        context |= admin.site.each_context(request)
        context |= {
            "title": "Log in",
            "app_path": request.get_full_path(),
            "username": username,
            "form": AdminAuthenticationForm(request, initial={"username": username}),
        }
        return render(request, "admin/login.html", context, status=429)
    context["form"] = AuthenticationForm(request, initial={"username": username})
    return render(request, "registration/login.html", context, status=429)
