"""The chunks endpoints: a version's chunks in reading order, cursor-paged
(GET /api/documents/{id}/chunks/, an action of DocumentViewSet that calls `listing`), and
one chunk with its neighbours (GET /api/chunks/{id}/). Thin: parse, call documents.chunks,
answer."""

import uuid

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import viewsets
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import Cursor, CursorPagination
from rest_framework.request import Request
from rest_framework.response import Response

from config.accounts.authentication import signed_in_user
from config.http.api_errors import NOT_FOUND
from documents import chunks
from documents.api import serving
from documents.api.docs import SERVED_VERSION
from documents.api.serializers import ChunkPageOut, ChunkWithNeighboursOut, RefusalOut
from documents.models import Document

INCLUDES = ("embedding",)


class InReadingOrder(CursorPagination):
    ordering = "index"
    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = 500

    def decode_cursor(self, request: Request) -> Cursor | None:
        try:
            return super().decode_cursor(request)
        except NotFound:  # DRF's answer to a cursor it cannot read; the caller's mistake
            raise ValidationError(
                {"cursor": "Not a cursor this API gave: follow `next` or `previous`."}
            ) from None


def _includes(request: Request) -> set[str]:
    asked = {part.strip() for part in request.query_params.get("include", "").split(",")}
    asked.discard("")
    if unknown := sorted(asked - set(INCLUDES)):
        raise ValidationError(
            {"include": f"Unknown: {', '.join(unknown)}; use one of: {', '.join(INCLUDES)}."}
        )
    return asked


listing_docs = extend_schema(
    summary="A version's chunks, in reading order",
    description=(
        "The chunks search finds, of the version it serves (or `version`), a page at a time "
        "(`page_size`, 100 by default, up to 500; follow `next`). Each with what a citation "
        "needs: its heading path, pages and boxes, and where its text came from; "
        "`include=embedding` adds each vector and the embedding that made it."
    ),
    parameters=[
        SERVED_VERSION,
        OpenApiParameter(
            "include",
            OpenApiTypes.STR,
            enum=list(INCLUDES),
            description="`embedding`: add the vectors.",
        ),
        OpenApiParameter(
            "page_size", OpenApiTypes.INT, description="Chunks a page, 1 to 500 (100)."
        ),
        OpenApiParameter("cursor", OpenApiTypes.STR, description="From `next` or `previous`."),
    ],
    responses={
        200: ChunkPageOut,
        400: OpenApiResponse(
            RefusalOut, "`invalid`: a `version`, `include` or `cursor` that is not one."
        ),
        404: OpenApiResponse(RefusalOut, "`not_found` (not your document) or `version_not_found`."),
        409: OpenApiResponse(
            RefusalOut, "`not_ready`: no version ready yet, or the one asked for is processing."
        ),
        410: OpenApiResponse(
            RefusalOut, "`version_pruned`: a replaced version's chunks went with it."
        ),
    },
)


def listing(view: viewsets.GenericViewSet, request: Request, document: Document) -> Response:
    """The page of `document`'s chunks that `request` asks for."""
    embedding = "embedding" in _includes(request)
    version, _ = serving.served(document, request)
    paginator = InReadingOrder()
    page = paginator.paginate_queryset(
        chunks.of_version(document.id, version, embedding=embedding), request, view=view
    )
    assert page is not None  # a cursor paginator always pages
    signature = document.ready_embed_model if embedding else None
    return paginator.get_paginated_response(chunks.described(page, embedding_signature=signature))


def _neighbours(request: Request) -> int:
    raw = request.query_params.get("neighbours", "0") or "0"
    try:
        count = int(raw)
    except ValueError:
        count = -1
    if not 0 <= count <= chunks.MAX_NEIGHBOURS:
        raise ValidationError({"neighbours": f"A number from 0 to {chunks.MAX_NEIGHBOURS}."})
    return count


class ChunkViewSet(viewsets.ViewSet):
    # The router matches any id (its default pattern): one that is no UUID is unknown.

    @extend_schema(
        summary="A chunk, and its neighbours for wider context",
        description=(
            "One chunk of a document's ready version (a search hit's `chunk_id`), and with "
            "`neighbours=N` the N chunks before and after it in reading order."
        ),
        parameters=[
            OpenApiParameter("id", OpenApiTypes.UUID, OpenApiParameter.PATH),
            OpenApiParameter(
                "neighbours",
                OpenApiTypes.INT,
                description="How many chunks before and after, 0 (default) to "
                f"{chunks.MAX_NEIGHBOURS}.",
            ),
        ],
        responses={
            200: ChunkWithNeighboursOut,
            400: OpenApiResponse(RefusalOut, "`invalid`: `neighbours` out of range."),
            404: OpenApiResponse(
                RefusalOut,
                "`not_found`: no chunk of yours with this id in a ready version (a replaced "
                "version's chunks are gone: search again).",
            ),
        },
    )
    def retrieve(self, request: Request, pk: str) -> Response:
        count = _neighbours(request)
        try:
            chunk_id = uuid.UUID(pk)
        except ValueError:
            raise NotFound(NOT_FOUND) from None
        chunk = chunks.visible(signed_in_user(request).pk, chunk_id)
        if chunk is None:
            raise NotFound(NOT_FOUND)
        before, after = chunks.neighbours(chunk, count)
        [described, *others] = chunks.described([chunk, *before, *after])
        described["before"] = others[: len(before)]
        described["after"] = others[len(before) :]
        return Response(described)
