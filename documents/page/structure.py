"""The document page's view of a version's structure (search.models.Block): its outline,
the headings in order with their levels and pages, and its text as blocks, headings as
headings, tables as tables, and page furniture marked as what search leaves out."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from django.db.models import QuerySet

from search.models import Block, Chunk
from search.pipeline.layout.model import FURNITURE, HEADING, TABLE, TITLE, Cell, grid

# The text view shows blocks until about this many characters.
TEXT_CHARACTERS = 6000
FURNITURE_NAMES = {
    "page_header": "running header",
    "page_footer": "running footer",
    "page_number": "page number",
    "line_number": "line number",
    "mark": "margin mark",
}


@dataclass
class Shown:
    """One block as the page shows it."""

    index: int
    kind: str
    text: str
    page: int
    level: int = 0
    rows: list[list[str]] = field(default_factory=list)
    furniture: str = ""  # what kind of furniture, in words
    marked: bool = False  # it holds the passage the page was opened at

    @property
    def anchor(self) -> str:
        return f"block-{self.index}"

    @property
    def heading_tag(self) -> str:
        return f"h{min(3 + self.level, 6)}"


@dataclass
class View:
    outline: list[Shown]
    blocks: list[Shown]
    truncated: bool
    furniture: int  # furniture blocks in the whole version
    tables: int
    paged: bool = True  # the file has pages a person sees: their breaks are shown
    skipped: bool = False  # the text shown starts after the version's first blocks
    marked: int = 0  # blocks that hold the passage the page was opened at


# Blocks shown before the passage's first, for what leads into it.
BEFORE_PASSAGE = 2


def view(
    document_id: uuid.UUID, version: int, *, paged: bool = True, passage: Chunk | None = None
) -> View | None:
    """The version's outline and the start of its text; None when it has no structure
    (read before it was, or with INGEST_STRUCTURE=off). With `passage` (a chunk of this
    version) the text starts just before the blocks that hold it, and they are marked: for
    a file whose pages are not drawn, this is where its passage is shown."""
    rows = Block.objects.filter(document_id=document_id, version=version).order_by("index")
    fields = ("index", "kind", "text", "page", "level", "cells")
    if not rows.exists():
        return None
    outline = [_shown(row) for row in rows.filter(kind__in=(TITLE, HEADING)).values(*fields)]
    holding = _holding(rows, passage) if passage and passage.version == version else []
    start = max(0, holding[0] - BEFORE_PASSAGE) if holding else 0
    shown, length, truncated = [], 0, False
    for row in rows.filter(index__gte=start).values(*fields).iterator(chunk_size=100):
        if length >= TEXT_CHARACTERS and (not holding or row["index"] > holding[-1]):
            truncated = True
            break
        item = _shown(row)
        item.marked = item.index in holding
        shown.append(item)
        length += len(item.text)
    return View(
        outline=outline,
        blocks=shown,
        truncated=truncated,
        furniture=rows.filter(kind__in=FURNITURE).count(),
        tables=rows.filter(kind=TABLE).count(),
        paged=paged,
        skipped=start > 0,
        marked=len(holding),
    )


def _holding(rows: QuerySet[Block], passage: Chunk) -> list[int]:
    """The indexes of the blocks whose text the passage holds, or that hold it (a long
    paragraph cut into several chunks), in its section's blocks of its pages: told by
    their words, since a chunk keeps no block numbers. Tables are told by a cell's text."""
    text = _words(passage.text)
    pages = range(passage.page, (passage.page_end or passage.page) + 1)
    found = []
    for index, kind, block_text, cells in rows.filter(page__in=pages).values_list(
        "index", "kind", "text", "cells"
    ):
        if kind in FURNITURE:
            continue
        words = _words(block_text)
        if kind == TABLE and cells:  # its chunks are Markdown rows: its first cells in them
            firsts = [_words(cell["text"]) for cell in cells[:4] if cell["text"].strip()]
            held = bool(firsts) and all(first in text for first in firsts)
        else:
            held = bool(words) and (words[:200] in text or text[:200] in words)
        if held:
            found.append(index)
        elif found:
            break  # the passage's blocks are one run in reading order
    return found


def _words(text: str) -> str:
    return " ".join(text.split())


def _shown(row: dict) -> Shown:
    kind = row["kind"]
    return Shown(
        index=row["index"],
        kind=kind,
        text=row["text"],
        page=row["page"],
        level=row["level"] or 0,
        rows=_rows(row["cells"] or []),
        furniture=FURNITURE_NAMES.get(kind, ""),
    )


def _rows(cells: list[dict]) -> list[list[str]]:
    return grid([Cell.from_dict(cell) for cell in cells])
