"""How a labelled document is read (by its own reader in this process; an image by OCR)
and scored, and the table of the scores."""

from __future__ import annotations

import functools
import io
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from search.pipeline.formats import read_file
from tests.bench.structure.checks import (
    Block,
    Scored,
    body_text,
    headings_f1,
    score,
)

if TYPE_CHECKING:
    from search.pipeline.layout.model import Structure
    from search.pipeline.ocr import Engine

from tests.bench.structure.formats.documents import (
    COLUMNS,
    MAX_RUNS,
    MIN_CPU_SECONDS,
    TARGETS,
    Labelled,
    documents,
)

IMAGES = frozenset({"png", "tiff"})


def read(labelled: Labelled) -> list[Block]:
    found = _ocr(labelled.data) if labelled.code in IMAGES else _format(labelled)
    return [
        Block(b.kind, b.text, b.page, b.level, tuple(tuple(row) for row in b.rows()))
        for b in found.blocks
    ]


def _format(labelled: Labelled) -> Structure:
    return read_file(io.BytesIO(labelled.data), labelled.code, max_pages=100).structure


def _ocr(data: bytes) -> Structure:
    """Each frame read by OCR, its words' ink made a structure, as the child does."""
    from search.pipeline.images import read_frames, read_image
    from search.pipeline.layout.document import structure
    from search.pipeline.layout.model import Ink
    from search.pipeline.page import OcrOrder

    texts = read_image(io.BytesIO(data), max_pages=100)
    _, scanned, _ = read_frames(io.BytesIO(data), texts, OcrOrder(mode="read"), _engine())
    return structure([scanned[i].ink or Ink(0.0, 0.0) for i in range(len(texts))])


@functools.cache
def _engine() -> Engine:
    from config.common.tessdata import default_tessdata
    from search.pipeline.ocr import Engine

    return Engine("eng", default_tessdata())


@dataclass
class Result:
    code: str
    scored: Scored = field(default_factory=Scored)
    found: tuple[int, int, int] = (0, 0, 0)  # headings: true positives, found, expected
    pages: int = 0
    characters: int = 0  # of body text
    cpu_seconds: float = 0.0  # per document
    runs: int = 0

    @property
    def f1(self) -> float | None:
        hits, found, expected = self.found
        return 2 * hits / (found + expected) if expected else None

    def share(self, kind: str) -> float | None:
        return self.f1 if kind == "heading" else self.scored.share(kind)

    def missed(self) -> list[str]:
        return [
            kind
            for kind in COLUMNS
            if (value := self.share(kind)) is not None and value < TARGETS[kind]
        ]


def scored(labelled: Labelled, blocks: list[Block]) -> Result:
    result = Result(labelled.code, pages=labelled.pages, characters=len(body_text(blocks)))
    score(blocks, labelled.checks, result.scored, labelled.code)
    result.found = headings_f1(blocks, labelled.checks)
    return result


def scores(docs: list[Labelled] | None = None) -> list[Result]:
    """Each document read once and scored: what the test asserts."""
    return [scored(doc, read(doc)) for doc in docs or documents()]


def measured(labelled: Labelled) -> Result:
    """Scored, with the CPU time of one reading: the mean of as many as take
    MIN_CPU_SECONDS (an image's OCR takes that in one)."""
    runs, began = 0, time.process_time()
    while runs < MAX_RUNS and (runs == 0 or time.process_time() - began < MIN_CPU_SECONDS):
        blocks, runs = read(labelled), runs + 1
    result = scored(labelled, blocks)
    result.cpu_seconds, result.runs = (time.process_time() - began) / runs, runs
    return result


def _cell(result: Result, kind: str) -> str:
    value = result.share(kind)
    if value is None:
        return "-"
    verdict = "ok" if value >= TARGETS[kind] else "miss"
    if kind == "heading":
        return f"{value:.2f} {verdict}"
    passed, total = result.scored.passed[kind], result.scored.total[kind]
    return f"{value:.0%} ({passed}/{total}) {verdict}"


def table(results: list[Result]) -> list[str]:
    head = ["type", "present", "order", "table neighbours", "headings F1", "furniture absent"]
    head += ["CPU ms per document", "CPU ms per page", "characters per CPU second"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in results:
        per_page = f"{1000 * r.cpu_seconds / r.pages:.1f}" if r.pages else "-"
        speed = [f"{1000 * r.cpu_seconds:.1f}", per_page, f"{r.characters / r.cpu_seconds:,.0f}"]
        lines.append(f"| {r.code} | " + " | ".join([_cell(r, k) for k in COLUMNS] + speed) + " |")
    return lines


# The alternative: LibreOffice converts an Office file to PDF, our PDF reader reads it.
