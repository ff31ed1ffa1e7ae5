"""The MCP server's tools: their names, parameters and descriptions (what a client and its
model read in `tools/list`). Each hands its work to documents.mcp.handlers on the request's
own thread, for the owner of the request's token.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Annotated, Literal, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, ToolAnnotations
from pydantic import Field

from config.common.unavailable import RETRY_AFTER_SECONDS, unavailable
from config.http.asgi_bridge import in_request_thread
from documents import chunks, labels
from documents.mcp import handlers, shapes
from search.serializers import MAX_K, MAX_QUERY_CHARS, MAX_RESULTS

T = TypeVar("T")
# The ASGI scope's keys for the token's user and where the request reached the service,
# put there by documents.mcp.view.
OWNER = "ingest.owner_id"
BASE_URL = "ingest.base_url"
MAX_CONTENT_CHARS = 100_000
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)

server: MCPServer = MCPServer(
    "ingest",
    # Its answer would be a stream that never ends, which /mcp does not give
    # (config.http.asgi_bridge collects each answer whole); the tools never change.
    subscriptions=False,
    instructions=(
        "Your PDF documents, processed into chunks: search them (words and meaning), list "
        "them, read a document's content as Markdown, JSON or text, and read a chunk with "
        "the chunks around it. Every tool sees only the documents of the token's owner."
    ),
)

Tags = Annotated[
    list[str],
    Field(
        max_length=labels.MAX_TAGS,
        description="Keep only documents that have every one of these tags (exact, case and all).",
    ),
]
Metadata = Annotated[
    dict[str, shapes.MetadataValue],
    Field(
        description="Keep only documents whose metadata holds each value under its key, e.g. "
        '{"year": "2024"}; "2024" also matches the number 2024, "true" the boolean.'
    ),
]
DocumentId = Annotated[uuid.UUID, Field(description="A document's id (list_documents, search).")]


async def _for_caller(ctx: Context, work: Callable[[handlers.Caller], T]) -> T:
    """`work(caller)`, run on the thread of the HTTP request that called the tool."""
    request = ctx.request_context.request
    scope = getattr(request, "scope", None)
    if scope is None or OWNER not in scope:
        raise ToolError("These tools answer over HTTP, to a request with an API token.")
    caller = handlers.Caller(owner_id=scope[OWNER], base_url=scope[BASE_URL])
    try:
        return await in_request_thread(scope, lambda: work(caller))
    except Exception as exc:
        # The database or the storage away (a restart, a failover): said as the API's 503
        # says it, with when to try again, not as the driver's words.
        found = unavailable(exc)
        if found is None:
            raise
        what = "database" if found[0] == "database_unavailable" else "file storage"
        raise ToolError(
            f"The {what} is not answering (it may be restarting); try again in "
            f"{RETRY_AFTER_SECONDS} seconds."
        ) from exc


@server.tool(annotations=READ_ONLY)
async def search(
    query: Annotated[
        str,
        Field(
            min_length=1,
            max_length=MAX_QUERY_CHARS,
            description='What to look for: words, "a phrase", OR, -excluded (web search '
            "syntax). Chinese and Japanese text matches as written.",
        ),
    ],
    ctx: Context,
    k: Annotated[int, Field(ge=1, le=MAX_K, description="How many results.")] = 10,
    offset: Annotated[
        int,
        Field(
            ge=0,
            lt=MAX_RESULTS,
            description=f"Skip this many (from `next_offset`): up to the best {MAX_RESULTS}.",
        ),
    ] = 0,
    mode: Annotated[
        Literal["hybrid", "vector", "text"],
        Field(description="hybrid: words and meaning fused; vector: meaning; text: words."),
    ] = "hybrid",
    document_id: Annotated[
        uuid.UUID | None, Field(description="Search this one document only.")
    ] = None,
    tags: Tags = [],  # noqa: B006 (pydantic copies a default; the schema shows it)
    metadata: Metadata = {},  # noqa: B006
) -> Annotated[CallToolResult, shapes.SearchOut]:
    """Search your documents' processed text: the best passages (chunks) first, each with
    its document, pages, heading path, score, text and links to read it further. Only
    each document's ready version is searched; a query that matches nothing answers no
    results. Counts against your search rate (INGEST_SEARCH_THROTTLE_RATE): past it, the
    error says when to try again."""
    wanted = handlers.filters(tags, metadata)
    return await _for_caller(
        ctx,
        lambda caller: handlers.search(
            caller,
            query=query,
            k=k,
            offset=offset,
            mode=mode,
            document_id=document_id,
            wanted=wanted,
        ),
    )


@server.tool(annotations=READ_ONLY)
async def list_documents(
    ctx: Context,
    limit: Annotated[int, Field(ge=1, le=100, description="At most this many.")] = 20,
    cursor: Annotated[str | None, Field(description="`next_cursor` of the page before.")] = None,
    status: Annotated[
        Literal["queued", "processing", "succeeded", "failed", "cancelled"] | None,
        Field(description="Only documents whose latest job has this status."),
    ] = None,
    tags: Tags = [],  # noqa: B006
    metadata: Metadata = {},  # noqa: B006
) -> Annotated[CallToolResult, shapes.DocumentsOut]:
    """List your documents, newest first: id, file name, status, version, pages, tags and
    metadata. Pages through with `cursor`."""
    wanted = handlers.filters(tags, metadata)
    return await _for_caller(
        ctx,
        lambda caller: handlers.list_documents(
            caller, limit=limit, cursor=cursor, status=status, wanted=wanted
        ),
    )


@server.tool(annotations=READ_ONLY)
async def get_document_content(
    document_id: DocumentId,
    ctx: Context,
    format: Annotated[  # the API's content endpoint's parameter
        Literal["markdown", "json", "text"],
        Field(
            description="markdown: headings, lists and tables; json: the document model "
            "(pages, and blocks with kinds, boxes and table cells); text: the text alone."
        ),
    ] = "markdown",
    version: Annotated[
        int | None, Field(ge=1, description="A version number; default: the ready one.")
    ] = None,
    offset: Annotated[int, Field(ge=0, description="The first character to give.")] = 0,
    max_chars: Annotated[
        int, Field(ge=1, le=MAX_CONTENT_CHARS, description="At most this many characters.")
    ] = 20_000,
) -> Annotated[CallToolResult, shapes.ContentOut]:
    """Read a document's content, as its structure was read: page furniture (running
    headers, page numbers) left out of Markdown and text. A long document comes in
    pieces: when `next_offset` is set, call again with `offset=next_offset`."""
    return await _for_caller(
        ctx,
        lambda caller: handlers.content(
            caller,
            document_id=document_id,
            format_=format,
            version=version,
            offset=offset,
            max_chars=max_chars,
        ),
    )


@server.tool(annotations=READ_ONLY)
async def get_chunk(
    chunk_id: Annotated[uuid.UUID, Field(description="A chunk's id, as search gives it.")],
    ctx: Context,
    neighbours: Annotated[
        int,
        Field(ge=0, le=chunks.MAX_NEIGHBOURS, description="How many chunks before and after it."),
    ] = 1,
) -> Annotated[CallToolResult, shapes.ChunkOut]:
    """Read a chunk (a search result) with the chunks around it in its document, in reading
    order: more of the passage than the search result showed."""
    return await _for_caller(
        ctx, lambda caller: handlers.chunk(caller, chunk_id=chunk_id, neighbours=neighbours)
    )
