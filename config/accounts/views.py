"""/accounts/tokens/: a signed-in user makes, names, lists and revokes their own API tokens.

A new key is shown once, in the answer to the POST that made it (never stored, never
redirected through the session, and marked no-store so no cache keeps it). The list shows
what identifies a token without its key: name, first characters, when it was made and
when it expires. Revoking asks first (a page of its own), then takes a POST with the CSRF
token. Another user's token id is a 404, as an unknown one.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, cast

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from config.accounts import tokens
from config.accounts.models import ApiToken

if TYPE_CHECKING:
    from django.contrib.auth.models import User

EXPIRY_CHOICES = [
    ("", "Never"),
    ("30", "In 30 days"),
    ("90", "In 90 days"),
    ("365", "In a year"),
]


class NewTokenForm(forms.Form):
    name = forms.CharField(
        max_length=ApiToken._meta.get_field("name").max_length,
        strip=True,
        error_messages={"required": "Give the token a name, to tell it from your others."},
        help_text="What it is for, to tell your tokens apart: laptop, ci, backup script.",
    )
    expires_in_days = forms.TypedChoiceField(
        choices=EXPIRY_CHOICES,
        coerce=int,
        empty_value=None,
        required=False,
        label="Expires",
    )


def _user(request: HttpRequest) -> User:
    # login_required let only a signed-in user in.
    return cast("User", request.user)


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def token_list(request: HttpRequest) -> HttpResponse:
    """GET: the user's tokens and the form for a new one. POST: make one, and show its
    key this once."""
    user = _user(request)
    form = NewTokenForm(request.POST if request.method == "POST" else None)
    issued = None
    status = 200
    if form.is_valid():
        days = form.cleaned_data["expires_in_days"]
        expires_at = timezone.now() + timedelta(days=days) if days else None
        issued = tokens.issue_token(user, name=form.cleaned_data["name"], expires_at=expires_at)
        form = NewTokenForm()
    elif form.is_bound:
        status = 400
    context = {
        "form": form,
        "issued": issued,
        "tokens": tokens.owned_tokens(user),
        "now": timezone.now(),
        "cache_seconds": settings.INGEST_TOKEN_CACHE_SECONDS,
    }
    return render(request, "accounts/tokens.html", context, status=status)


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    """GET: ask whether to revoke the token. POST: revoke it, back to the list."""
    user = _user(request)
    try:
        if request.method == "POST":
            token = tokens.revoke_token(user=user, token_id=token_id)
        else:
            token = tokens.owned_token(user, token_id)
    except ApiToken.DoesNotExist:
        raise Http404("No such token of yours.") from None
    if request.method == "POST":
        messages.success(request, f"Revoked the token {_label(token)}.")
        return redirect("api-tokens")
    context = {"token": token, "cache_seconds": settings.INGEST_TOKEN_CACHE_SECONDS}
    return render(request, "accounts/revoke.html", context)


def _label(token: ApiToken) -> str:
    return f"“{token.name}” ({token.prefix}…)" if token.name else f"{token.prefix}…"
