"""What django-axes needs from us: the client's address, and the answer to a sign-in it
refused.

The address is the connection's own unless INGEST_PROXY_COUNT proxies stand in front,
each appending what it saw to X-Forwarded-For; then it is that many entries from the
right, the one our nearest proxy wrote. Entries further left came from the client and
could be anything, so they are never used: a client cannot pick its own address to dodge
the per-address limit. (Behind a proxy with the count left at 0, every sign-in would come
from the proxy's address and one person's typos would lock everyone out.)

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

from config import humanize


def client_address(request: HttpRequest) -> str | None:
    count = settings.INGEST_PROXY_COUNT
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if count:
        hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
        if len(hops) >= count:
            return hops[-count]
    return request.META.get("REMOTE_ADDR")


def lockout_message() -> str:
    wait = humanize.duration(settings.AXES_COOLOFF_TIME.total_seconds())
    return (
        "Too many failed sign-ins from your address or for this user name. "
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
