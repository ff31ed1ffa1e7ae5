"""GET /api/documents/{id}/pages/{n}.png?width=W[&version=V]: a page of a version as a
PNG, drawn by documents/pages.py. The versions served, and refused, are the content
endpoint's (documents/api/serving.py)."""

from __future__ import annotations

import logging
import uuid

from django.http import HttpResponse, HttpResponseNotModified
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404
from rest_framework.exceptions import ValidationError
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.views import APIView

from config.accounts.authentication import signed_in_user
from config.http.api_errors import Refused
from documents import pages
from documents.api import docs, serving
from documents.content import Content
from documents.models import Document
from search import file_types
from search.pipeline.errors import NoSuchPage, PermanentError, TransientError

log = logging.getLogger(__name__)

# An image of a version named by its number never changes; the ready version's may, when
# a newer one becomes ready (the ETag tells, without drawing anything).
MAX_AGE_OF_VERSION = 86_400
MAX_AGE_OF_READY = 300


class PageImageView(APIView):
    def perform_content_negotiation(
        self, request: Request, force: bool = False
    ) -> tuple[BaseRenderer, str]:
        # The image, whatever Accept says (image/png names no renderer); errors are JSON.
        return super().perform_content_negotiation(request, force=True)

    @docs.page_image
    def get(self, request: Request, pk: uuid.UUID, n: int) -> HttpResponseBase:
        owned = Document.objects.filter(owner=signed_in_user(request))
        document = get_object_or_404(owned, id=pk)  # 404 for another owner's document
        width = _width(request)
        found = Content(document, *serving.served(document, request))
        if not found.kind.drawn:
            raise _not_drawn(found.kind)
        count = pages.page_count(found)
        if n < 1 or (count is not None and n > count):
            raise _no_such_page(n, count)
        etag = found.etag(f"page-{n}-{width}")
        if etag in request.headers.get("If-None-Match", ""):
            answer: HttpResponseBase = HttpResponseNotModified()
        else:
            answer = HttpResponse(_drawn(found, n, width), content_type="image/png")
        answer["ETag"] = etag
        max_age = MAX_AGE_OF_READY if serving.asked(request) is None else MAX_AGE_OF_VERSION
        answer["Cache-Control"] = f"private, max-age={max_age}"
        return answer


def _width(request: Request) -> int:
    raw = request.query_params.get("width") or str(pages.DEFAULT_WIDTH)
    try:
        width = int(raw)
    except ValueError:
        width = 0
    if not pages.MIN_WIDTH <= width <= pages.MAX_WIDTH:
        raise ValidationError(
            {
                "width": f"The image's width in pixels, from {pages.MIN_WIDTH} to "
                f"{pages.MAX_WIDTH} ({pages.DEFAULT_WIDTH} when left out)."
            }
        )
    return width


def _not_drawn(kind: file_types.FileType) -> Refused:
    has = "has pages, but they are not drawn here" if kind.paged else "has no pages"
    return Refused(
        status_code=404,
        code="no_page_images",
        detail=f"This document is {kind.said}, which {has}: its text is at its content "
        "(GET /api/documents/{id}/content).",
    )


def _no_such_page(number: int, count: int | None) -> Refused:
    has = f"This version has {count} page{'s' if count != 1 else ''}" if count else "Pages"
    return Refused(
        status_code=404,
        code="page_not_found",
        detail=f"{has}, numbered from 1; there is no page {number}.",
    )


def _drawn(found: Content, number: int, width: int) -> bytes:
    """The page's image, or the refusal that says why there is none."""
    try:
        return pages.image(found, number, width)
    except pages.Busy:
        raise Refused(
            status_code=503,
            code="render_busy",
            detail="Other pages are being drawn: try again in a moment.",
            retry_after=1,
        ) from None
    except NoSuchPage as exc:
        raise _no_such_page(number, exc.pages) from exc
    except FileNotFoundError as exc:
        log.warning("document %s: no stored file at %s", found.document.id, exc)
        raise serving.file_missing() from exc
    except PermanentError as exc:
        raise Refused(
            status_code=422,
            code="render_failed",
            detail=f"Page {number} cannot be drawn: {exc.detail}",
        ) from exc
    except TransientError as exc:
        raise Refused(
            status_code=503,
            code="render_unavailable",
            detail=f"Page {number} could not be drawn just now ({exc.detail}); try again.",
            retry_after=5,
        ) from exc
