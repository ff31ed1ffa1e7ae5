"""The upload page and its HTMX fragments. Uploads themselves go to the API
(POST /api/documents/, session-authenticated) so the page and integrators share one path.

Every view is for a signed-in user and reads only that user's documents (404 otherwise);
every state change is a POST under Django's CSRF protection.
"""

from __future__ import annotations

import uuid
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import trigger_client_event
from django_htmx.middleware import HtmxDetails
from rest_framework.exceptions import ValidationError

from config.accounts.authentication import signed_in_user
from documents import downloads, labels
from documents.direct import bucket
from documents.front_door import intake
from documents.front_door.refusal import Refusal
from documents.models import Document
from documents.page import attempts as page_attempts
from documents.page import rows, structure, viewer
from documents.page.socket.url import status_socket_url
from documents.pending import pending_documents
from documents.services import deletion, labelling, retries
from jobs import failures
from jobs.models import JobAttempt, JobStatus
from search import file_types, search_box
from search.models import Chunk
from search.retrieval import passage as passages
from search.retrieval.scope import NO_FILTERS, Filters
from search.sources import ocr_pages


class HtmxHttpRequest(HttpRequest):
    """A request that went through django-htmx's middleware, which sets `htmx`."""

    htmx: HtmxDetails


PAGE_SIZE = 25
PREVIEW_CHARACTERS = 3000


def _tag_filter(request: HttpRequest) -> tuple[Filters, list[str], str]:
    """The page's tag filter: `tags=` (the box: tags separated by commas) and `tag=` (a
    tag's link: one, exactly); the filters, the tags, and what was wrong ("" if nothing)."""
    wanted = request.GET.getlist("tag")
    wanted += [t for sent in request.GET.getlist("tags") for t in sent.split(",") if t.strip()]
    try:
        tags = list(dict.fromkeys(labels.clean_tag(t, "tags") for t in wanted))
    except ValidationError as exc:
        return NO_FILTERS, [], labels.said(exc)
    return Filters(tags=tuple(tags)), tags, ""


def _listing(request: HttpRequest) -> dict:
    """The filtered, paged rows the page and its polling fragment show."""
    wanted = request.GET.get("status", "")
    documents = rows.owned_documents(signed_in_user(request).pk)
    if wanted in JobStatus.values:
        documents = documents.filter(current_job__status=wanted)
    else:
        wanted = ""
    filters, tags, problem = _tag_filter(request)
    if filters:
        documents = documents.filter(labels.as_q(filters))
    page = Paginator(documents, PAGE_SIZE).get_page(request.GET.get("page"))
    return {
        "page": page,
        "rows": rows.rows_for(list(page.object_list)),
        "status": wanted,
        "statuses": JobStatus.values,
        "tags": tags,
        "tags_text": ", ".join(tags),
        "tag_problem": problem,
        # The filter, as the pager's and the polling's links carry it on.
        "filter_query": urlencode([("status", wanted), *(("tag", t) for t in tags)]),
        "poll_seconds": settings.INGEST_PAGE_POLL_SECONDS,
    }


def _search(request: HttpRequest, document: Document | None = None) -> dict:
    """The search box's results (of `document` only, when given), and how many of the
    documents searched are still being processed and not searched yet."""
    owner_id = signed_in_user(request).pk
    document_id = None if document is None else document.id
    filters, _, _ = _tag_filter(request)
    return search_box.results_context(
        request,
        pending=lambda: pending_documents(
            owner_id=owner_id, document_id=document_id, filters=filters
        ),
        document_id=document_id,
        filters=filters,
    )


@login_required
@require_GET
def search_results(request: HttpRequest) -> HttpResponse:
    """GET /search/?q=…[&document=…]: the search box's results (search/search_box.py)."""
    document = None
    if wanted := request.GET.get("document"):
        try:
            document = _owned(request, uuid.UUID(wanted))
        except ValueError as exc:
            raise Http404 from exc
    context = _search(request, document)
    context["scoped"] = document
    return search_box.render_results(request, context)


def _page(request: HttpRequest) -> HttpResponse:
    context = _listing(request)
    context.update(_search(request))
    status = context.pop("http_status", 200)
    # With a bucket, the page sends files straight to it (static/js/direct.js), up to
    # the direct uploads' limit.
    direct_uploads = bucket.available()
    context.update(
        ws_url=status_socket_url(request),
        direct_uploads=direct_uploads,
        max_upload_bytes=settings.INGEST_MAX_DIRECT_UPLOAD_BYTES
        if direct_uploads
        else settings.INGEST_MAX_UPLOAD_BYTES,
        max_files=settings.INGEST_MAX_FILES_PER_REQUEST,
        accepted_types=file_types.ACCEPT,
    )
    return render(request, "documents/index.html", context, status=status)


@login_required
@require_GET
def index(request: HttpRequest) -> HttpResponse:
    return _page(request)


@login_required
@require_GET
def listing(request: HtmxHttpRequest) -> HttpResponse:
    """The table body and pager: what filters, paging and polling swap in. The filter
    pushes this URL into the browser's history, so a request that is not htmx's swap (a
    reload, a bookmark, htmx restoring history it no longer holds) gets the whole page."""
    if not request.htmx or request.htmx.history_restore_request:
        return _page(request)
    return render(request, "documents/_listing.html", _listing(request))


def _owned(request: HttpRequest, document_id: uuid.UUID) -> Document:
    return get_object_or_404(rows.owned_documents(signed_in_user(request).pk), id=document_id)


def _row(request: HttpRequest, document_id: uuid.UUID, notice: str = "") -> HttpResponse:
    """The document's row as it is now; `notice`, if any, shown by the page."""
    response = render(
        request, "documents/_row.html", {"row": rows.row_for(_owned(request, document_id))}
    )
    if notice:
        # A string, not the dict django-htmx documents: htmx hands listeners a non-object
        # as event.detail.value, which static/js/page.js reads.
        trigger_client_event(response, "notice", notice)  # type: ignore[arg-type]
    return response


@login_required
@require_GET
def row(request: HttpRequest, document_id: uuid.UUID) -> HttpResponse:
    return _row(request, document_id)


@login_required
@require_POST
def retry(request: HttpRequest, document_id: uuid.UUID) -> HttpResponse:
    """A fresh job for a failed document, admitted as an upload is (documents.front_door.admission):
    refused with 503 or 429, Retry-After and a notice when the service is past its
    backlog, the user retries too fast or has too much in flight. A document that cannot
    be retried gets its row back as it is now, and a notice saying why."""
    document = _owned(request, document_id)
    try:
        intake.retry(
            document_id=document.id,
            owner_id=signed_in_user(request).pk,
            admitted=False,
            public_url=intake.public_url(request),
        )
    except retries.NotRetryable as exc:
        return _row(request, document_id, notice=str(exc))
    except Refusal as refusal:
        return _refused(refusal)
    return _row(request, document_id)


def _refused(refusal: Refusal) -> HttpResponse:
    """An htmx answer that swaps nothing: the status, Retry-After, and the notice."""
    response = HttpResponse(refusal.detail, status=refusal.http_status, content_type="text/plain")
    if refusal.retry_after is not None:
        response["Retry-After"] = str(refusal.retry_after)
    trigger_client_event(response, "notice", refusal.detail)  # type: ignore[arg-type]
    return response


@login_required
@require_POST
def delete(request: HttpRequest, document_id: uuid.UUID) -> HttpResponse:
    document = _owned(request, document_id)
    try:
        deletion.delete_document(document_id=document.id, owner_id=signed_in_user(request).pk)
    except Document.DoesNotExist as exc:  # deleted meanwhile, in another tab
        raise Http404 from exc
    return HttpResponse("")  # htmx swaps the row out


@login_required
@require_POST
def relabel(request: HttpRequest, document_id: uuid.UUID) -> HttpResponse:
    """The document page's labels form: `tags` (separated by commas) and `metadata` (a
    `key: value` a line) replace the document's own; back to its page, or the page again
    with what was wrong (400) and nothing changed."""
    document = _owned(request, document_id)
    sent_tags = [t for t in request.POST.get("tags", "").split(",") if t.strip()]
    try:
        tags = labels.clean_tags(sent_tags)
        metadata = labels.metadata_from_lines(request.POST.get("metadata", ""))
    except ValidationError as exc:
        return _detail(request, document, labels_problem=labels.said(exc), status=400)
    try:
        labelling.relabel(
            document_id=document.id, owner_id=document.owner_id, tags=tags, metadata=metadata
        )
    except Document.DoesNotExist as exc:  # deleted meanwhile
        raise Http404 from exc
    return redirect(reverse("page-detail", args=[document.id]) + "#labels")


@login_required
@require_GET
def detail(request: HttpRequest, document_id: uuid.UUID) -> HttpResponse:
    return _detail(request, _owned(request, document_id))


def _detail(
    request: HttpRequest, document: Document, *, labels_problem: str = "", status: int = 200
) -> HttpResponse:
    # Each with the plain sentence its owner reads (jobs.failures), not the stored detail.
    jobs = [(job, failures.job_sentence(job)) for job in document.jobs.order_by("-created_at")]
    # Each with its outcome's word on the page (page.attempts), never the stored one.
    attempts = [
        (
            attempt,
            page_attempts.word(attempt.outcome),
            failures.sentence(attempt.error_code, attempt.error_message),
        )
        for attempt in JobAttempt.objects.filter(job__document=document).order_by("-started_at")
    ]
    shown_version = document.ready_version or document.version
    kind = document.kind
    asked_chunk = request.GET.get("chunk")
    chunks = Chunk.objects.filter(document=document, version=shown_version).order_by("index")
    preview, length = [], 0
    for text in chunks.values_list("text", flat=True).iterator(chunk_size=50):
        preview.append(text)
        length += len(text)
        if length >= PREVIEW_CHARACTERS:
            break
    context = {
        "row": rows.row_for(document),
        "document": document,
        "jobs": jobs,
        "attempts": attempts,
        "chunk_count": chunks.count(),
        "ocr": ocr_pages(document_id=document.id, version=shown_version),
        "preview_version": shown_version,
        "structure": structure.view(
            document.id,
            shown_version,
            paged=kind.paged,
            passage=None if kind.drawn else viewer.passage_chunk(document, asked_chunk),
        ),
        "file_type": kind,
        "preview": "\n\n".join(preview)[:PREVIEW_CHARACTERS],
        "preview_truncated": length > PREVIEW_CHARACTERS,
        "versions": downloads.versions_of(document),
        "ws_url": status_socket_url(request),
        "poll_seconds": settings.INGEST_PAGE_POLL_SECONDS,
        "max_upload_bytes": settings.INGEST_MAX_UPLOAD_BYTES,
        # A search result's link: the passage it found, whole, with the query's words.
        "passage": passages.find(
            document_id=document.id,
            chunk_id=request.GET.get("chunk"),
            q=request.GET.get("q", ""),
        )
        if request.GET.get("chunk")
        else None,
        # A page as the service draws it, the passage outlined (`page=`, `chunk=`).
        "viewer": viewer.view(document, request.GET),
        # Its own search box, scoped to it (a passage link's `q` is the other box's).
        "scoped": document,
        "q": "",
        "answer": None,
        "tags_text": ", ".join(document.tags),
        "metadata_lines": labels.as_lines(document.metadata),
        "metadata_pairs": labels.shown(document.metadata),
        "labels_problem": labels_problem,
    }
    if labels_problem:  # the form shows what was sent, to be mended
        context["tags_text"] = request.POST.get("tags", "")
        context["metadata_lines"] = request.POST.get("metadata", "")
    return render(request, "documents/detail.html", context, status=status)
