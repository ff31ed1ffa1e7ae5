"""The search box of the pages: results as the person types, as an htmx fragment.

`GET /search/?q=...` (documents/page/views.py `search_results`, which knows whose documents are
whose) answers the fragment of results when htmx asks for it, and a whole page (the same
results under a search form) otherwise: a bookmark, a reload, a browser without
JavaScript. The search is search.retrieval.query's hybrid one, over the signed-in user's ready
documents only, or one of them (`document=`, the box on a document's page); the API
(`/api/search/`) takes the same text.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from config.common import rate_counter
from search.retrieval import query
from search.retrieval.scope import NO_FILTERS, Filters

MAX_QUERY_CHARACTERS = 1000  # as the API's query_too_long
PAGE_RESULTS = 10


def results_context(
    request: HttpRequest,
    *,
    pending: Callable[[], int] = lambda: 0,
    document_id: uuid.UUID | None = None,
    filters: Filters = NO_FILTERS,
) -> dict:
    """What the results template shows for `?q=`: nothing yet, a refusal, or the hits
    (of the one document `document_id`, when given; of the documents `filters` keep), and
    how many documents are still being processed and not searched (`pending()`)."""
    q = request.GET.get("q", "")
    context: dict = {"q": q, "answer": None, "problem": "", "pending": 0}
    if not q.strip():
        return context
    if len(q) > MAX_QUERY_CHARACTERS:
        context["problem"] = (
            f"That search is {len(q):,} characters long; search with at most "
            f"{MAX_QUERY_CHARACTERS:,}."
        )
        return context
    owner_id = request.user.pk
    assert owner_id is not None  # login_required: a signed-in user
    if (wait := rate_counter.count_search(user_id=owner_id)) is not None:
        context["problem"] = (
            f"You are searching faster than this service allows; try again in {math.ceil(wait)} s."
        )
        context["http_status"] = 429
        return context
    context["answer"] = query.search(
        owner_id=owner_id,
        q=q,
        k=PAGE_RESULTS,
        mode="hybrid",
        document_id=document_id,
        filters=filters,
    )
    context["pending"] = pending()
    return context


def render_results(request: HttpRequest, context: dict) -> HttpResponse:
    """The fragment for htmx, else the whole search page."""
    status = context.pop("http_status", 200)
    if getattr(request, "htmx", False) and not request.htmx.history_restore_request:  # type: ignore[attr-defined]
        return render(request, "search/_results.html", context, status=status)
    return render(request, "search/page.html", context, status=status)
