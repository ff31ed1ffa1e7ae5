"""What the MCP tools read that the API reads otherwise: a page of the owner's documents
(by a cursor of their own), and a slice of a version's content.

Plain Django code, run on the request's own thread (config.http.asgi_bridge).
"""

from __future__ import annotations

import base64
import binascii
import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q

from documents import content as contents
from documents import labels
from documents.models import Document
from search.retrieval.scope import Filters


class BadCursor(ValueError):
    """A cursor this service did not give out."""


def documents_page(
    owner_id: int, *, limit: int, cursor: str | None, status: str | None, filters: Filters
) -> tuple[list[Document], str | None]:
    """The owner's documents, newest first, `limit` at most, after `cursor`; and the cursor
    of the next page (None on the last). Read by the (owner, -created_at) index."""
    documents = Document.objects.filter(owner_id=owner_id).select_related("current_job")
    if status:
        documents = documents.filter(current_job__status=status)
    if filters:
        documents = documents.filter(labels.as_q(filters))
    if cursor:
        created_at, document_id = _read_cursor(cursor)
        documents = documents.filter(
            Q(created_at__lt=created_at) | Q(created_at=created_at, id__lt=document_id)
        )
    page = list(documents.order_by("-created_at", "-id")[: limit + 1])
    if len(page) <= limit:
        return page, None
    last = page[limit - 1]
    return page[:limit], _cursor(last.created_at, last.id)


def _cursor(created_at: datetime, document_id: uuid.UUID) -> str:
    raw = f"{created_at.isoformat()}|{document_id}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _read_cursor(cursor: str) -> tuple[datetime, uuid.UUID]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        created_at, _, document_id = raw.partition("|")
        return datetime.fromisoformat(created_at), uuid.UUID(document_id)
    except (binascii.Error, UnicodeDecodeError, ValueError) as exc:
        raise BadCursor(cursor) from exc


@dataclass(frozen=True)
class Slice:
    text: str
    next_offset: int | None  # where the rest starts; None when this is the end


def content_slice(found: contents.Content, format_: str, offset: int, max_chars: int) -> Slice:
    """Characters `offset` to `offset + max_chars` of the content in `format_`, read a
    block at a time until the slice is full (and one more piece, to know whether it is the
    end)."""
    skipped = 0
    kept: list[str] = []
    size = 0
    for piece in contents.stream(found, format_):
        if skipped < offset:
            take = min(len(piece), offset - skipped)
            skipped += take
            piece = piece[take:]
        if not piece:
            continue
        if size >= max_chars:
            return Slice("".join(kept), offset + size)
        room = max_chars - size
        kept.append(piece[:room])
        size += min(len(piece), room)
        if len(piece) > room:
            return Slice("".join(kept), offset + size)
    return Slice("".join(kept), None)
