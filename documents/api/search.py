"""GET /api/search/: the caller's ready chunks for a query. Thin: parse, search, answer.

Here, not in search: a `document` to search in must be the caller's, which is documents'
to say; search itself knows chunks, not owners' documents.
"""

import dataclasses
import math

from django.conf import settings
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.accounts.authentication import signed_in_user
from config.common import rate_counter
from config.http.api_errors import NOT_FOUND, Refused
from documents import labels
from documents.api.docs import FILTERS, FILTERS_INVALID
from documents.models import Document
from documents.pending import pending_documents
from search.retrieval.query import search
from search.serializers import MAX_QUERY_CHARS, SearchErrorOut, SearchIn, SearchOut

_EXAMPLE = OpenApiExample(
    "Two hits",
    response_only=True,
    status_codes=["200"],
    value={
        "query": "quarterly revenue",
        "mode": "hybrid",
        "took_ms": 12.4,
        "degraded": False,
        "pending_documents": 0,
        "results": [
            {
                "chunk_id": "5b1c0e8e-5d7a-5f0e-9a0c-1f2d3e4a5b6c",
                "document_id": "3f0c2a5e-8a41-4c55-a1c9-0d6f5b1e7a10",
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
            },
            {
                "chunk_id": "0d9e3c2b-7f4a-5b1e-8c6d-2a3b4c5d6e7f",
                "document_id": "9a7b6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c5d",
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
            },
        ],
    },
)


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
            "first version is still being processed, which the answer cannot include). "
            "`hybrid` fuses the word and the meaning rankings; when the query cannot be "
            "embedded it answers from the words alone with `degraded: true` (never an "
            "error). A query that matches nothing answers no results, not the nearest noise. "
            "`tag` and `metadata.<key>` keep only the documents that have them."
        ),
        parameters=[SearchIn, *FILTERS],
        responses={
            200: SearchOut,
            400: OpenApiResponse(
                SearchErrorOut,
                "`empty_query` (no `q`, or only spaces), `query_too_long` (over "
                f"{MAX_QUERY_CHARS} characters), or `invalid` with `fields` naming `k` "
                "(1 to 50), `mode` or `document` (not a UUID); or " + FILTERS_INVALID,
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
        document_id = params.validated_data.get("document")
        mine = Document.objects.filter(id=document_id, owner=owner)
        if document_id is not None and not mine.exists():
            raise NotFound(NOT_FOUND)
        answer = search(
            owner_id=owner.pk,
            q=q,
            k=params.validated_data["k"],
            mode=params.validated_data["mode"],
            document_id=document_id,
            filters=filters,
        )
        pending = pending_documents(owner_id=owner.pk, document_id=document_id, filters=filters)
        return Response(
            {
                "query": answer.query,
                "mode": answer.mode,
                "took_ms": round(answer.took_ms, 2),
                "degraded": answer.degraded,
                "pending_documents": pending,
                "results": [dataclasses.asdict(hit) for hit in answer.results],
            }
        )
