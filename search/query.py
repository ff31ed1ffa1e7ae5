"""Search over the caller's ready chunks: full text, vectors, or both fused (RRF).

The interface other code builds on (the API view, the page, the benchmark):
`search(owner_id=..., q=..., k=..., mode=..., document_id=...)` answers an `Answer` of
`Hit`s, best first. Validation of the input is the caller's (the API's serializer); here it
is assumed valid.
"""

import time
import uuid
from dataclasses import dataclass

MODES = ("hybrid", "vector", "text")


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


@dataclass(frozen=True)
class Answer:
    query: str
    mode: str
    results: list[Hit]
    degraded: bool
    took_ms: float  # the whole search, embedding included
    embed_ms: float  # the query embedding alone (0 when cached or not needed)


def search(
    *,
    owner_id: int,
    q: str,
    k: int = 10,
    mode: str = "hybrid",
    document_id: uuid.UUID | None = None,
) -> Answer:
    """The owner's best `k` chunks for `q`, from each document's ready version only."""
    started = time.perf_counter()
    raise NotImplementedError(f"search is being written ({started})")
