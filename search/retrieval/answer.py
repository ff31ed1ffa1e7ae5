"""What a search answers (importable from search.retrieval.query too, where others look for it)."""

import uuid
from dataclasses import dataclass


@dataclass(frozen=True)
class Hit:
    chunk_id: uuid.UUID
    document_id: uuid.UUID
    filename: str
    version: int
    page: int
    index: int
    score: float
    text: str
    highlight: str  # HTML-escaped text, the query's matches in <mark>
    source: str  # where its page's text came from: "text" (the text layer) or "ocr"
    confidence: float | None  # OCR's mean confidence on its page, 0..1; None for text


@dataclass(frozen=True)
class Answer:
    query: str
    mode: str
    results: list[Hit]
    degraded: bool
    took_ms: float  # the whole search, embedding included
    embed_ms: float  # the query embedding alone (0 when cached or not needed)
