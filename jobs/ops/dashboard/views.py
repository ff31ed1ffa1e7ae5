"""The ops dashboard, /ops/: the pipeline for staff, live. The page holds a panel that
htmx fetches again every POLL_SECONDS (ops-panel) and swaps in place; everything on it is
read from the database (and Redis, for the embedding and search figures) at each poll."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from functools import wraps

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from jobs.ops import scaling
from jobs.ops.dashboard import panels, series
from jobs.worker import heartbeat
from search import stats as search_stats
from search.retrieval.query import MODES

POLL_SECONDS = 5
SEARCH_SPAN = timedelta(hours=1)  # the search tile's figures

View = Callable[[HttpRequest], HttpResponse]


# The dashboard names every user's files: it asks what the admin's job pages ask.
JOB_PERMISSIONS = ("jobs.view_job", "jobs.change_job")


def staff_only(view: View) -> View:
    """Anonymous callers go to sign in (login_required); signed-in people who are not
    staff allowed to see jobs in the admin get 403, not the sign-in page again: signing
    in cannot help them."""

    @wraps(view)
    def check(request: HttpRequest) -> HttpResponse:
        user = request.user
        if not (user.is_staff and any(user.has_perm(name) for name in JOB_PERMISSIONS)):
            raise PermissionDenied(
                "The pipeline dashboard is for staff who may see jobs in the admin."
            )
        return view(request)

    return login_required(check)


@require_GET
@never_cache
@staff_only
def dashboard(request: HttpRequest) -> HttpResponse:
    return render(request, "ops/dashboard.html", _panel(request))


@require_GET
@never_cache
@staff_only
def panel(request: HttpRequest) -> HttpResponse:
    return render(request, "ops/_panel.html", _panel(request))


def _panel(request: HttpRequest) -> dict:
    window = series.WINDOWS.get(request.GET.get("window", ""), series.WINDOWS["1h"])
    now = timezone.now()
    lanes = scaling.lanes_now()
    history = series.load(window, now, lanes)
    return {
        "now": now,
        "window": window,
        "windows": series.WINDOWS.values(),
        "poll_seconds": POLL_SECONDS,
        "lanes": lanes.values(),
        "charts": panels.charts(history, lanes),
        "workers": panels.workers(),
        "dead_letters": panels.dead_letters(),
        "searches": search_stats.recent(MODES, now, SEARCH_SPAN),
        "workers_stale_after": heartbeat.STALE_BEATS * settings.INGEST_WORKER_BEAT_SECONDS,
    }
