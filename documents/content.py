"""A version's content, given back (GET /api/documents/{id}/content): its structure as
Markdown, as JSON (the document model: pages, and blocks with their kinds, boxes, text,
source, confidence and table cells) or as plain text.

Streamed block by block from the database, so a document of thousands of pages costs the
same memory as one of ten. A stream already begun cannot become a 503: a batch whose query
meets a database restart is read again on a new connection while the database comes back.
Page furniture is left out of Markdown and text, and kept, marked by its kind, in JSON.
The answer's ETag names the job that made the version's structure and the format: it
changes when the version is read again.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TypeVar

from django.db.models import QuerySet

from config.common.reconnect import when_database_answers
from documents.models import Document
from jobs.models import Job, JobStatus
from search import file_types
from search.block_kinds import FURNITURE
from search.models import Block, DocumentPage
from search.pipeline.layout.model import Cell
from search.pipeline.structured import table_markdown

FORMATS = {
    "markdown": "text/markdown; charset=utf-8",
    "json": "application/json",
    "text": "text/plain; charset=utf-8",
}
Row = TypeVar("Row", Block, DocumentPage)
ROWS_AT_ONCE = 500  # blocks read from the database at a time
# Seconds between a batch's tries while the database is away mid-stream (about 7 s in all:
# a restart takes one or two). Past them the stream breaks off, and the client sees it cut.
STREAM_WAITS = (0.5, 1.0, 2.0, 4.0)


class NotReady(Exception):
    """No version is ready, or the one asked for is still being processed."""


class Replaced(Exception):
    """The version asked for was replaced by a newer one: its content went with it."""


class NoStructure(Exception):
    """The version was read before documents kept their structure."""


@dataclass(frozen=True)
class Content:
    document: Document
    version: int
    job: Job  # the succeeded job whose reading is served

    @property
    def kind(self) -> file_types.FileType:
        """The served version's type: a newer version may be of another."""
        return file_types.of_stored(self.job.storage_key, self.document.file_type)

    def etag(self, format_: str) -> str:
        return f'"{self.job.id}-{format_}"'


def content_of(document: Document, version: int | None) -> Content:
    """What can be served of `version` (default: the ready one). Raises NotReady, Replaced,
    or NoStructure; the caller checks the version number is one the document has."""
    version, job = served(document, version)
    if not _blocks(document.id, version).exists():
        raise NoStructure(version)
    return Content(document, version, job)


def served(document: Document, version: int | None) -> tuple[int, Job]:
    """The version whose reading is served (`version`, default the ready one) and the
    succeeded job that made it. Raises NotReady or Replaced: only the ready version's
    content, chunks and pages are kept."""
    ready = document.ready_version
    if version is None:
        if ready is None:
            raise NotReady(document.version)
        version = ready
    if ready is None or version > ready:
        raise NotReady(version)
    if version < ready:
        raise Replaced(version, ready)
    job = (
        Job.objects.filter(document=document, version=version, status=JobStatus.SUCCEEDED)
        .order_by("-finished_at")
        .first()
    )
    if job is None:  # a ready version always has one; a race with a deletion has none
        raise NotReady(version)
    return version, job


def _blocks(document_id: uuid.UUID, version: int) -> QuerySet[Block]:
    return Block.objects.filter(document_id=document_id, version=version).order_by("index")


def stream(content: Content, format_: str) -> Iterator[str]:
    """The content in `format_` ("markdown", "json" or "text"), a piece at a time."""
    blocks = _in_batches(content.document.id, content.version)
    if format_ == "json":
        return _json(content, blocks)
    if format_ == "markdown":
        return _markdown(blocks, paged=content.kind.paged)
    return _text(blocks)


def _in_batches(document_id: uuid.UUID, version: int) -> Iterator[Block]:
    """The version's blocks in order, ROWS_AT_ONCE at a time (`_in_order`)."""
    return _in_order(Block.objects.filter(document_id=document_id, version=version), "index")


def _in_order(rows: QuerySet[Row], key: str) -> Iterator[Row]:
    """`rows` in `key` order (a non-negative number), ROWS_AT_ONCE at a time, each batch
    a query of its own from where the last ended: memory stays flat whether or not the
    connection may hold a server-side cursor (a pooler in transaction mode may not, and
    Django then reads a whole result at once), and no query stays open while a slow
    client reads."""
    after = -1
    while True:
        batch = _batch(rows.filter(**{f"{key}__gt": after}).order_by(key))
        yield from batch
        if len(batch) < ROWS_AT_ONCE:
            return
        after = getattr(batch[-1], key)


def _markdown(blocks: Iterator[Block], *, paged: bool = True) -> Iterator[str]:
    """Markdown, each page marked by a comment where the file has pages."""
    page = 0
    for block in blocks:
        if block.kind in FURNITURE:
            continue
        if paged and block.page != page:
            page = block.page
            yield f"<!-- page {page} -->\n\n"
        if block.kind == "title":
            yield f"# {block.text}\n\n"
        elif block.kind == "heading":
            yield f"{'#' * min((block.level or 1) + 1, 6)} {block.text}\n\n"
        elif block.kind == "table":
            yield table_markdown(_cells(block)) + "\n\n"
        elif block.kind == "caption":
            yield f"*{block.text}*\n\n"
        elif block.kind != "figure" and block.text:
            yield f"{block.text}\n\n"


def _text(blocks: Iterator[Block]) -> Iterator[str]:
    for block in blocks:
        if block.kind in FURNITURE or block.kind == "figure":
            continue
        if block.kind == "table":
            rows: dict[int, list[Cell]] = {}
            for cell in _cells(block):
                rows.setdefault(cell.row, []).append(cell)
            lines = [
                "\t".join(c.text for c in sorted(row, key=lambda c: c.column))
                for _, row in sorted(rows.items())
            ]
            yield "\n".join(lines) + "\n\n"
        elif block.text:
            yield f"{block.text}\n\n"


def _json(content: Content, blocks: Iterator[Block]) -> Iterator[str]:
    kind = content.kind
    head = {
        "document_id": str(content.document.id),
        "version": content.version,
        "filename": content.document.filename,
        "file_type": kind.code,
        "paged": kind.paged,  # false: one notional page 1 of no size, and blocks no boxes
    }
    yield json.dumps(head)[:-1] + ', "pages": ['
    for at, page in enumerate(_pages(content.document.id, content.version)):
        yield ("," if at else "") + json.dumps(
            {
                "number": page.number,
                "width": page.width,
                "height": page.height,
                "source": page.source,
                "confidence": page.confidence,
            }
        )
    yield '], "blocks": ['
    for at, block in enumerate(blocks):
        yield ("," if at else "") + json.dumps(_block(block))
    yield "]}"


def _pages(document_id: uuid.UUID, version: int) -> Iterator[DocumentPage]:
    """The version's pages in order, in batches as blocks are read."""
    pages = DocumentPage.objects.filter(document_id=document_id, version=version)
    return _in_order(pages, "number")


def _batch(rows: QuerySet[Row]) -> list[Row]:
    """The first ROWS_AT_ONCE of `rows`, read again while the database is away (each
    slice is a query of its own)."""
    return when_database_answers(lambda: list(rows[:ROWS_AT_ONCE]), waits=STREAM_WAITS)


def _block(block: Block) -> dict:
    found = {
        "index": block.index,
        "kind": block.kind,
        "text": block.text,
        "page": block.page,
        "box": block.box,
        "source": block.source,
        "confidence": block.confidence,
    }
    if block.level is not None:
        found["level"] = block.level
    if block.cells:
        found["cells"] = block.cells
    if block.parts:
        found["parts"] = block.parts
    if block.lines:
        found["lines"] = block.lines
    return found


def _cells(block: Block) -> list[Cell]:
    return [Cell.from_dict(cell) for cell in block.cells or []]
