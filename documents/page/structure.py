"""The document page's view of a version's structure (search.models.Block): its outline,
the headings in order with their levels and pages, and its text as blocks, headings as
headings, tables as tables, and page furniture marked as what search leaves out."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from search.models import Block
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


def view(document_id: uuid.UUID, version: int) -> View | None:
    """The version's outline and the start of its text; None when it has no structure
    (read before it was, or with INGEST_STRUCTURE=off)."""
    rows = Block.objects.filter(document_id=document_id, version=version).order_by("index")
    fields = ("index", "kind", "text", "page", "level", "cells")
    if not rows.exists():
        return None
    outline = [_shown(row) for row in rows.filter(kind__in=(TITLE, HEADING)).values(*fields)]
    shown, length, truncated = [], 0, False
    for row in rows.values(*fields).iterator(chunk_size=100):
        if length >= TEXT_CHARACTERS:
            truncated = True
            break
        item = _shown(row)
        shown.append(item)
        length += len(item.text)
    return View(
        outline=outline,
        blocks=shown,
        truncated=truncated,
        furniture=rows.filter(kind__in=FURNITURE).count(),
        tables=rows.filter(kind=TABLE).count(),
    )


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
