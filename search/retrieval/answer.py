"""What a search answers (importable from search.retrieval.query too, where others look for it)."""

import uuid
from dataclasses import dataclass, field


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
    section: list[str]  # its heading path, top level first
    pages: list[int]  # every page it runs over; `page` is the first
    boxes: list[list[float]]  # [page, x0, y0, x1, y1] each, points from the page's top-left
    # How likely it is the passage asked for, 0..1 (search/retrieval/relevance.py); None
    # when the configured embedding has no fitted weights, or the query was not embedded.
    relevance: float | None = None


@dataclass(frozen=True)
class ByWordsOnly:
    """The documents in scope a search found by their words only: ready, but their vectors
    another embedding made than the configured one (search/retrieval/meaning.py)."""

    count: int = 0
    documents: list[tuple[uuid.UUID, str]] = field(default_factory=list)  # (id, filename)


@dataclass(frozen=True)
class Answer:
    query: str
    mode: str
    results: list[Hit]
    more: bool  # whether hits past these are found (search again with offset + k)
    degraded: bool
    took_ms: float  # the whole search, embedding included
    embed_ms: float  # the query embedding alone (0 when cached or not needed)
    # Whether these results are in the reranker's order (search/retrieval/rerank.py), and
    # when it was asked and failed, why: the results are then in the fused order.
    reranked: bool = False
    rerank_error: str | None = None
    rerank_ms: float = 0.0  # the reranker's part of took_ms
    # In the modes that compare vectors: the documents left to their words meanwhile.
    not_searchable_by_meaning: ByWordsOnly = field(default_factory=ByWordsOnly)
