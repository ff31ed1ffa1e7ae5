"""What each MCP tool does, for one owner: thin, as the API's views are (parse, call one
function, answer). Run on the request's own thread (config.http.asgi_bridge); a refusal is
a ToolError, which the client receives as a tool result with `isError` and its text.
"""

from __future__ import annotations

import json
import math
import uuid
from collections.abc import Mapping
from dataclasses import dataclass

from django.conf import settings
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel
from rest_framework.exceptions import ValidationError

from config.common import rate_counter
from documents import chunks, labels
from documents import content as contents
from documents.mcp import reads, shapes
from documents.models import Document
from documents.pending import pending_documents
from search.retrieval.query import search as search_chunks
from search.retrieval.scope import Filters
from search.serializers import MAX_RESULTS


def not_yours(document_id: uuid.UUID) -> ToolError:
    return ToolError(f"No document {document_id} among yours (list_documents lists them).")


def answer(out: BaseModel, text: str) -> CallToolResult:
    """The model's JSON as structured content, and `text` for the model to read."""
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=out.model_dump(mode="json"),
    )


def filters(tags: list[str], metadata: Mapping[str, shapes.MetadataValue]) -> Filters:
    """The tag and metadata filters, checked as the API checks its query's: a metadata
    value matches as text and as the number or boolean it spells (documents.labels)."""
    try:
        kept = tuple(dict.fromkeys(labels.clean_tag(tag, "tags") for tag in tags))
        labels.clean_metadata(dict(metadata))
    except ValidationError as exc:
        raise ToolError(labels.said(exc)) from None
    conditions = tuple((key, tuple(labels.readings(_text(v)))) for key, v in metadata.items())
    return Filters(tags=kept, metadata=conditions)


def _text(value: shapes.MetadataValue) -> str:
    return json.dumps(value) if isinstance(value, bool) else str(value)


@dataclass(frozen=True)
class Caller:
    """Whose request it is (the token's user), and where it reached the service
    (scheme://host[:port], for the links in hits)."""

    owner_id: int
    base_url: str


def search(
    caller: Caller,
    *,
    query: str,
    k: int,
    offset: int,
    mode: str,
    document_id: uuid.UUID | None,
    wanted: Filters,
) -> CallToolResult:
    if not query.strip():
        raise ToolError("Send a query: words, a phrase in quotes, OR, -excluded.")
    if "\x00" in query:
        raise ToolError("The query holds a NUL character, which no text can hold.")
    owner_id = caller.owner_id
    if (wait := rate_counter.count_search(user_id=owner_id)) is not None:
        raise ToolError(
            "You are searching faster than INGEST_SEARCH_THROTTLE_RATE "
            f"({settings.INGEST_SEARCH_THROTTLE_RATE}) allows; try again in {math.ceil(wait)} s."
        )
    if document_id is not None and not _owns(owner_id, document_id):
        raise not_yours(document_id)
    k = min(k, MAX_RESULTS - offset)
    found = search_chunks(
        owner_id=owner_id,
        q=query,
        k=k,
        mode=mode,
        document_id=document_id,
        filters=wanted,
        offset=offset,
    )
    pending = pending_documents(owner_id=owner_id, document_id=document_id, filters=wanted)
    after = offset + k if found.more and offset + k < MAX_RESULTS else None
    out = shapes.search_out(found, pending, caller.base_url, after)
    return answer(out, shapes.search_text(out))


def _owns(owner_id: int, document_id: uuid.UUID) -> bool:
    return Document.objects.filter(id=document_id, owner_id=owner_id).exists()


def list_documents(
    caller: Caller, *, limit: int, cursor: str | None, status: str | None, wanted: Filters
) -> CallToolResult:
    try:
        page, after = reads.documents_page(
            caller.owner_id, limit=limit, cursor=cursor, status=status, filters=wanted
        )
    except reads.BadCursor:
        raise ToolError("That cursor is none this server gave: start again without one.") from None
    out = shapes.DocumentsOut(documents=[shapes.document_item(d) for d in page], next_cursor=after)
    return answer(out, shapes.documents_text(out))


def content(
    caller: Caller,
    *,
    document_id: uuid.UUID,
    format_: str,
    version: int | None,
    offset: int,
    max_chars: int,
) -> CallToolResult:
    document = Document.objects.filter(id=document_id, owner_id=caller.owner_id).first()
    if document is None:
        raise not_yours(document_id)
    if version is not None and not 1 <= version <= document.version:
        raise ToolError(
            f"This document has versions 1 to {document.version}; there is no version {version}."
        )
    found = _servable(document, version)
    piece = reads.content_slice(found, format_, offset, max_chars)
    out = shapes.ContentOut(
        document_id=document.id,
        filename=document.filename,
        version=found.version,
        format=format_,
        offset=offset,
        text=piece.text,
        next_offset=piece.next_offset,
    )
    return answer(out, shapes.content_text(out))


def _servable(document: Document, version: int | None) -> contents.Content:
    """What of the version can be read, or a ToolError that says why not (as the API's
    content endpoint says it)."""
    try:
        return contents.content_of(document, version)
    except contents.NotReady as exc:
        raise ToolError(
            f"Version {exc.args[0]} is not ready yet: its content can be read once it has "
            "been processed (list_documents shows its status)."
        ) from None
    except contents.Replaced as exc:
        old, ready = exc.args
        raise ToolError(
            f"Version {old}'s content was removed when version {ready} became ready."
        ) from None
    except contents.NoStructure as exc:
        raise ToolError(
            f"Version {exc.args[0]} was read before documents kept their structure; an "
            "operator gives it one with manage.py reprocess extraction."
        ) from None


def chunk(caller: Caller, *, chunk_id: uuid.UUID, neighbours: int) -> CallToolResult:
    found = chunks.visible(caller.owner_id, chunk_id)
    if found is None:
        raise ToolError(
            f"No chunk {chunk_id} in a ready version of your documents (a replaced "
            "version's chunks are gone: search again)."
        )
    before, after = chunks.neighbours(found, neighbours)
    [asked, *others] = chunks.described([found, *before, *after])
    out = shapes.ChunkOut(
        **asked,
        filename=found.document.filename,
        before=[shapes.ChunkItem(**other) for other in others[: len(before)]],
        after=[shapes.ChunkItem(**other) for other in others[len(before) :]],
    )
    return answer(out, shapes.chunk_text(out))
