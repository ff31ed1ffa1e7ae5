"""GET /api/search/: the caller's ready chunks for a query. Thin: parse, search, answer.

Here, not in search: a `document` to search in must be the caller's, which is documents'
to say; search itself knows chunks, not owners' documents.
"""

import base64
import binascii
import dataclasses
import math
from urllib.parse import urlencode

from django.conf import settings
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.accounts.authentication import signed_in_user
from config.common import rate_counter
from config.http.api_errors import NOT_FOUND, Refused
from documents import labels, links
from documents.api.docs import FILTERS, FILTERS_INVALID
from documents.front_door.intake import public_url
from documents.models import Document
from documents.pending import pending_documents
from search.retrieval.query import Answer, search
from search.serializers import (
    MAX_K,
    MAX_QUERY_CHARS,
    MAX_RESULTS,
    SearchErrorOut,
    SearchIn,
    SearchOut,
)

_BASE = "https://ingest.example.com"
_DOC = "3f0c2a5e-8a41-4c55-a1c9-0d6f5b1e7a10"
_SCAN = "9a7b6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c5d"


def _links(document: str, chunk: str, page: int) -> dict[str, str]:
    api = f"{_BASE}/api/documents/{document}"
    return {
        "chunk": f"{_BASE}/api/chunks/{chunk}/",
        "document": f"{api}/",
        "content": f"{api}/content?version=1",
        "chunks": f"{api}/chunks/?version=1",
        "view": f"{_BASE}/documents/{document}/?page={page}&chunk={chunk}",
        "page_image": f"{api}/pages/{page}.png",
    }


_EXAMPLE = OpenApiExample(
    "Two hits",
    response_only=True,
    status_codes=["200"],
    value={
        "query": "quarterly revenue",
        "mode": "hybrid",
        "took_ms": 12.4,
        "degraded": False,
        "reranked": False,
        "rerank_error": None,
        "pending_documents": 0,
        "not_searchable_by_meaning": 1,
        "not_searchable_by_meaning_documents": [
            {"document_id": "7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f", "filename": "old-minutes.pdf"}
        ],
        "next": f"{_BASE}/api/search/?q=quarterly+revenue&k=2&cursor=bz0y",
        "results": [
            {
                "chunk_id": "5b1c0e8e-5d7a-5f0e-9a0c-1f2d3e4a5b6c",
                "document_id": _DOC,
                "filename": "q3-report.pdf",
                "version": 1,
                "page": 2,
                "index": 3,
                "score": 0.0325,
                "text": "The quarterly revenue grew 12% in every region…",
                "highlight": "The <mark>quarterly</mark> <mark>revenue</mark> grew 12% in every "
                "region…",
                "source": "text",
                "confidence": None,
                "section": ["Results", "Revenue"],
                "pages": [2],
                "boxes": [[2, 72.0, 310.5, 523.2, 402.8]],
                "links": _links(_DOC, "5b1c0e8e-5d7a-5f0e-9a0c-1f2d3e4a5b6c", 2),
            },
            {
                "chunk_id": "0d9e3c2b-7f4a-5b1e-8c6d-2a3b4c5d6e7f",
                "document_id": _SCAN,
                "filename": "signed-contract-scan.pdf",
                "version": 1,
                "page": 1,
                "index": 0,
                "score": 0.0318,
                "text": "The buyer pays the quarterly revenue share within sixty days…",
                "highlight": "The buyer pays the <mark>quarterly</mark> <mark>revenue</mark> "
                "share within sixty days…",
                "source": "ocr",
                "confidence": 0.913,
                "section": [],
                "pages": [1],
                "boxes": [[1, 64.1, 120.0, 530.9, 188.4]],
                "links": _links(_SCAN, "0d9e3c2b-7f4a-5b1e-8c6d-2a3b4c5d6e7f", 1),
            },
        ],
    },
)


def _offset(cursor: str | None) -> int:
    """How many results a `cursor` (from `next`) is past: it encodes "o=<offset>"."""
    if cursor is None:
        return 0
    try:
        name, _, value = base64.urlsafe_b64decode(cursor.encode()).decode().partition("=")
        offset = int(value) if name == "o" else -1
    except (binascii.Error, UnicodeDecodeError, ValueError):
        offset = -1
    if not 0 < offset < MAX_RESULTS:
        raise Refused(
            status_code=400,
            code="invalid_cursor",
            detail="The cursor is not one this API gave: follow `next` as it came.",
        )
    return offset


def _next(request: Request, offset: int) -> str:
    """The same search, `offset` results on."""
    cursor = base64.urlsafe_b64encode(f"o={offset}".encode()).decode()
    params = [
        (name, value)
        for name, values in request.query_params.lists()
        if name != "cursor"
        for value in values
    ]
    return f"{request.build_absolute_uri(request.path)}?{urlencode([*params, ('cursor', cursor)])}"


def by_words_only(answer: Answer) -> dict[str, object]:
    """The answer's documents found by their words only (search/retrieval/meaning.py)."""
    found = answer.not_searchable_by_meaning
    return {
        "not_searchable_by_meaning": found.count,
        "not_searchable_by_meaning_documents": [
            {"document_id": document_id, "filename": filename}
            for document_id, filename in found.documents
        ],
    }


def _query(request: Request) -> str:
    q = request.query_params.get("q", "")
    if not q.strip():
        raise Refused(status_code=400, code="empty_query", detail="Send a query in `q`.")
    if len(q) > MAX_QUERY_CHARS:
        raise Refused(
            status_code=400,
            code="query_too_long",
            detail=f"The query has {len(q)} characters; at most {MAX_QUERY_CHARS} are allowed.",
        )
    return q


class SearchView(APIView):
    """Token or session, like the rest of the API; a read, so no CSRF token is needed."""

    @extend_schema(
        summary="Search your documents",
        description=(
            "Only your documents, and of each only its ready version (a new version is "
            "searched once it has been processed; `pending_documents` counts those whose "
            "first version is still being processed, which the answer cannot include; "
            "`not_searchable_by_meaning` those still to be re-embedded after a change of "
            "embedding, which it finds by their words only). "
            "`hybrid` fuses the word and the meaning rankings; when the query cannot be "
            "embedded it answers from the words alone with `degraded: true` (never an "
            "error). With a rerank service configured, `hybrid` and `vector` put their best "
            "candidates in its order (`reranked: true`), and answer in their own order when "
            "it is slow or fails (`rerank_error` says why; never an error either). "
            "A query that matches nothing answers no results, not the nearest noise. "
            "`tag` and `metadata.<key>` keep only the documents that have them. Each hit "
            "cites its passage (`section`, `pages`, `boxes`) and links to read it further "
            "and see it on its page (`links`); `next` pages on through the best "
            f"{MAX_RESULTS}."
        ),
        parameters=[SearchIn, *FILTERS],
        responses={
            200: SearchOut,
            400: OpenApiResponse(
                SearchErrorOut,
                "`empty_query` (no `q`, or only spaces), `query_too_long` (over "
                f"{MAX_QUERY_CHARS} characters), `invalid_cursor` (not from a `next`), or "
                f"`invalid` with `fields` naming `k` (1 to {MAX_K}), `mode` or `document` "
                "(not a UUID); or " + FILTERS_INVALID,
            ),
            404: OpenApiResponse(SearchErrorOut, "`document` is unknown or not yours."),
            429: OpenApiResponse(
                SearchErrorOut,
                "`throttled`: more searches than INGEST_SEARCH_THROTTLE_RATE allows; "
                "`Retry-After` says when to search again.",
            ),
        },
        examples=[_EXAMPLE],
    )
    def get(self, request: Request) -> Response:
        q = _query(request)
        params = SearchIn(data=request.query_params)
        params.is_valid(raise_exception=True)
        filters = labels.filters_from(request.query_params)
        owner = signed_in_user(request)
        if (wait := rate_counter.count_search(user_id=owner.pk)) is not None:
            raise Refused(
                status_code=429,
                code="throttled",
                detail="You are searching faster than INGEST_SEARCH_THROTTLE_RATE "
                f"({settings.INGEST_SEARCH_THROTTLE_RATE}) allows; try again in "
                f"{math.ceil(wait)} s.",
                retry_after=math.ceil(wait),
            )
        offset = _offset(params.validated_data.get("cursor"))
        k = min(params.validated_data["k"], MAX_RESULTS - offset)
        document_id = params.validated_data.get("document")
        mine = Document.objects.filter(id=document_id, owner=owner)
        if document_id is not None and not mine.exists():
            raise NotFound(NOT_FOUND)
        answer = search(
            owner_id=owner.pk,
            q=q,
            k=k,
            mode=params.validated_data["mode"],
            document_id=document_id,
            filters=filters,
            offset=offset,
        )
        base = public_url(request)
        pending = pending_documents(owner_id=owner.pk, document_id=document_id, filters=filters)
        return Response(
            {
                "query": answer.query,
                "mode": answer.mode,
                "took_ms": round(answer.took_ms, 2),
                "degraded": answer.degraded,
                "reranked": answer.reranked,
                "rerank_error": answer.rerank_error,
                "pending_documents": pending,
                **by_words_only(answer),
                "results": [
                    {**dataclasses.asdict(hit), "links": links.of_hit(base, hit)}
                    for hit in answer.results
                ],
                "next": _next(request, offset + k)
                if answer.more and offset + k < MAX_RESULTS
                else None,
            }
        )
