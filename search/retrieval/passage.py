"""A search result's whole passage, for the document's page that a result links to."""

from __future__ import annotations

import html
import re
import uuid
from dataclasses import dataclass

from search.models import Chunk
from search.retrieval.hits import rounded

_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Passage:
    chunk_id: uuid.UUID
    page: int
    index: int
    version: int
    html: str  # the chunk's text, HTML-escaped, the query's words in <mark>
    source: str  # "text" (the PDF's text layer) or "ocr" (read from a scanned image)
    confidence: float | None  # OCR's mean confidence on its page, 0..1; None for text


def find(*, document_id: uuid.UUID, chunk_id: str | None, q: str = "") -> Passage | None:
    """The chunk `chunk_id` of `document_id` (any version still stored), or None when the
    id is not one of its chunks (mistyped, or gone with a replaced version)."""
    try:
        wanted = uuid.UUID(str(chunk_id))
    except ValueError:
        return None
    chunk = Chunk.objects.filter(id=wanted, document_id=document_id).first()
    if chunk is None:
        return None
    return Passage(
        chunk_id=chunk.id,
        page=chunk.page,
        index=chunk.index,
        version=chunk.version,
        html=marked(chunk.text, q),
        source=chunk.source,
        confidence=rounded(chunk.confidence),
    )


def marked(text: str, q: str) -> str:
    """`text` escaped for HTML, each whole word of `q` (any case) in <mark>.

    The search's own highlights come from ts_headline, which knows stems; this marks the
    query's words as typed, enough to find them again in the whole passage."""
    words = {word.casefold() for word in _WORD.findall(q[:1000]) if len(word) > 1}
    if not words:
        return html.escape(text)
    out, last = [], 0
    for match in _WORD.finditer(text):
        if match.group().casefold() in words:
            out.append(html.escape(text[last : match.start()]))
            out.append(f"<mark>{html.escape(match.group())}</mark>")
            last = match.end()
    out.append(html.escape(text[last:]))
    return "".join(out)
