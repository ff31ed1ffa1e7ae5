"""What each MCP tool answers: a pydantic model (the tool's output schema, and the JSON a
client's code reads as `structuredContent`) and the same answer as text for the model to
read (`content`)."""

from __future__ import annotations

import dataclasses
import uuid
from datetime import datetime

from pydantic import BaseModel, Field

from documents import links
from documents.models import Document
from search.retrieval.answer import Answer

MetadataValue = str | int | float | bool


class HitOut(BaseModel):
    """A hit as GET /api/search/ gives it, field for field: search.retrieval.answer.Hit and
    its `links` (tests/documents/mcp/test_tools.py holds the two together)."""

    chunk_id: uuid.UUID
    document_id: uuid.UUID
    filename: str
    version: int
    page: int
    index: int
    score: float
    text: str
    highlight: str = Field(description="The text, HTML-escaped, the query's matches in <mark>.")
    source: str = Field(description="text: the PDF's text layer; ocr: read by OCR.")
    confidence: float | None = Field(description="With source ocr: OCR's confidence, 0 to 1.")
    section: list[str] = Field(description="Its heading path, top level first.")
    pages: list[int] = Field(description="The pages it runs over; `page` is the first.")
    boxes: list[list[float]] = Field(
        description="[page, x0, y0, x1, y1] each, in points from the page's top-left corner."
    )
    relevance: float | None = Field(
        description="How likely it is the passage asked for, 0 to 1; null when not known."
    )
    links: dict[str, str] = Field(
        description="Where to read it further (chunk, content, chunks) and see it (view)."
    )


class ByWordsOnlyOut(BaseModel):
    document_id: uuid.UUID
    filename: str


class SearchOut(BaseModel):
    query: str
    mode: str
    took_ms: float
    degraded: bool = Field(description="True when the query could not be embedded: words only.")
    reranked: bool = Field(description="True when the first results are in a reranker's order.")
    rerank_error: str | None = Field(
        description="Why the reranker's order is not used (timeout, unreachable, rate_limited, "
        "refused, failed, malformed); null when reranked or not asked."
    )
    pending_documents: int = Field(
        description="Documents whose first version is still being processed: not searched yet."
    )
    not_searchable_by_meaning: int = Field(
        description="Documents still being re-embedded after a change of embedding model: "
        "found by their words only until then (as the API's; 0 in text mode)."
    )
    not_searchable_by_meaning_documents: list[ByWordsOnlyOut] = Field(
        description="Some of them (at most 20), in order of file name."
    )
    results: list[HitOut]
    next_offset: int | None = Field(
        description="More results follow: search again with this `offset`. Null: no more."
    )


class DocumentItem(BaseModel):
    id: uuid.UUID
    filename: str
    status: str | None = Field(description="Its latest job's: queued, processing, succeeded...")
    version: int
    ready_version: int | None = Field(description="The version search serves; null until one is.")
    page_count: int | None
    size: int
    tags: list[str]
    metadata: dict[str, MetadataValue]
    created_at: datetime
    updated_at: datetime


class DocumentsOut(BaseModel):
    documents: list[DocumentItem]
    next_cursor: str | None = Field(description="Pass it as `cursor` for the next page.")


class ContentOut(BaseModel):
    document_id: uuid.UUID
    filename: str
    version: int
    format: str
    offset: int
    text: str
    next_offset: int | None = Field(
        description="Where the rest starts: pass it as `offset`. Null: this is the end."
    )


class ChunkItem(BaseModel):
    """A chunk as GET /api/chunks/{id}/ gives it (documents.chunks.described)."""

    id: uuid.UUID
    document_id: uuid.UUID
    version: int
    index: int = Field(description="Its place in the version's reading order, from 0.")
    text: str
    section: list[str] = Field(description="Its heading path, top level first.")
    pages: list[int]
    boxes: list[list[float]]
    source: str
    confidence: float | None
    tokens: int = Field(description="Its length in tokens of the configured embedding.")


class ChunkOut(ChunkItem):
    """The chunk asked for, with its neighbours, as GET /api/chunks/{id}/?neighbours=N."""

    filename: str
    before: list[ChunkItem]
    after: list[ChunkItem]


def search_out(answer: Answer, pending: int, base: str, next_offset: int | None) -> SearchOut:
    """`base`: where the client reached the service, for the hits' links."""
    return SearchOut(
        query=answer.query,
        mode=answer.mode,
        took_ms=round(answer.took_ms, 2),
        degraded=answer.degraded,
        reranked=answer.reranked,
        rerank_error=answer.rerank_error,
        pending_documents=pending,
        not_searchable_by_meaning=answer.not_searchable_by_meaning.count,
        not_searchable_by_meaning_documents=[
            ByWordsOnlyOut(document_id=document_id, filename=filename)
            for document_id, filename in answer.not_searchable_by_meaning.documents
        ],
        results=[
            HitOut(**dataclasses.asdict(hit), links=links.of_hit(base, hit))
            for hit in answer.results
        ],
        next_offset=next_offset,
    )


def search_text(out: SearchOut) -> str:
    found = len(out.results)
    lines = [f'{found} result{"" if found == 1 else "s"} for "{out.query}" ({out.mode} search).']
    if out.degraded:
        lines.append("The query could not be embedded: these are matches of its words only.")
    if out.rerank_error:
        lines.append(f"The reranker was not used ({out.rerank_error}): this is the search's order.")
    if out.pending_documents:
        lines.append(f"{out.pending_documents} document(s) are still being processed.")
    if out.not_searchable_by_meaning:
        named = ", ".join(d.filename for d in out.not_searchable_by_meaning_documents)
        lines.append(
            f"{out.not_searchable_by_meaning} document(s) are still being re-embedded for a new "
            f"embedding model, so only their words were searched ({named})."
        )
    for rank, hit in enumerate(out.results, start=1):
        lines += ["", _hit_heading(rank, hit), hit.text]
    if out.next_offset is not None:
        lines += ["", f"More results: search again with offset={out.next_offset}."]
    return "\n".join(lines)


def _hit_heading(rank: int, hit: HitOut) -> str:
    section = f", {' > '.join(hit.section)}" if hit.section else ""
    return (
        f"[{rank}] {hit.filename}, {_pages(hit.pages)}{section} (document_id "
        f"{hit.document_id}, chunk_id {hit.chunk_id}, score {hit.score:.4f}"
        + ("" if hit.relevance is None else f", relevance {hit.relevance:.2f}")
        + ")"
    )


def _pages(pages: list[int]) -> str:
    if len(pages) > 1:
        return f"pages {pages[0]}-{pages[-1]}"
    return f"page {pages[0]}" if pages else "no page"


def document_item(document: Document) -> DocumentItem:
    job = document.current_job
    return DocumentItem(
        id=document.id,
        filename=document.filename,
        status=job.status if job is not None else None,
        version=document.version,
        ready_version=document.ready_version,
        page_count=document.page_count,
        size=document.size,
        tags=list(document.tags),
        metadata=dict(document.metadata),
        created_at=document.created_at,
        updated_at=document.updated_at,
    )


def documents_text(out: DocumentsOut) -> str:
    if not out.documents:
        return "No documents."
    lines = [
        f"{d.filename} (document_id {d.id}): {d.status or 'no job'}, version {d.version}"
        + (f", {d.page_count} pages" if d.page_count else "")
        + (f", tags {', '.join(d.tags)}" if d.tags else "")
        + (f", metadata {d.metadata}" if d.metadata else "")
        for d in out.documents
    ]
    if out.next_cursor:
        lines.append(f"More: call list_documents with cursor={out.next_cursor}")
    return "\n".join(lines)


def content_text(out: ContentOut) -> str:
    if out.next_offset is None:
        return out.text
    return (
        f"{out.text}\n\n[Cut at character {out.next_offset}: call get_document_content with "
        f"offset={out.next_offset} for the rest.]"
    )


def chunk_text(out: ChunkOut) -> str:
    parts = [f"{out.filename}, version {out.version} (document_id {out.document_id})"]
    for chunk in [*out.before, out, *out.after]:
        marker = " (the chunk asked for)" if chunk.id == out.id else ""
        section = f", {' > '.join(chunk.section)}" if chunk.section else ""
        heading = f"[chunk {chunk.index}, {_pages(chunk.pages)}{section}]{marker}"
        parts += ["", heading, chunk.text]
    return "\n".join(parts)
