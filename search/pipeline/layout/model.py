"""The document model: what a reading of a document's structure gives, page by page.

Boxes are in PDF points, measured from the top-left corner of the page as it is shown
(its crop box, turned by its rotation), x to the right and y down: what a viewer needs
to draw a highlight. A leaf: it imports no PDF library, so the worker reads it too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from search.block_kinds import (  # noqa: F401 - the kinds, as the model's own names
    CAPTION,
    FIGURE,
    FOOTNOTE,
    FURNITURE,
    HEADING,
    KINDS,
    LINE_NUMBER,
    LIST_ITEM,
    MARK,
    PAGE_FOOTER,
    PAGE_HEADER,
    PAGE_NUMBER,
    PARAGRAPH,
    TABLE,
    TITLE,
)


@dataclass(frozen=True)
class Box:
    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    @property
    def cx(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def cy(self) -> float:
        return (self.y0 + self.y1) / 2

    def union(self, other: Box) -> Box:
        return Box(
            min(self.x0, other.x0),
            min(self.y0, other.y0),
            max(self.x1, other.x1),
            max(self.y1, other.y1),
        )

    def contains_point(self, x: float, y: float, slack: float = 0.0) -> bool:
        return self.x0 - slack <= x <= self.x1 + slack and self.y0 - slack <= y <= self.y1 + slack

    def rounded(self) -> list[float]:
        return [round(self.x0, 1), round(self.y0, 1), round(self.x1, 1), round(self.y1, 1)]

    @staticmethod
    def around(boxes: list[Box]) -> Box:
        return Box(
            min(b.x0 for b in boxes),
            min(b.y0 for b in boxes),
            max(b.x1 for b in boxes),
            max(b.y1 for b in boxes),
        )


@dataclass
class Span:
    """A run of text on one line with no wide gap in it."""

    text: str
    box: Box
    size: float
    bold: bool = False
    vertical: bool = False  # turned against the page: a margin's mark, a rotated label
    turn: int = 0  # which way it reads, in degrees to a quarter turn: 0 upright, 180 upside down


@dataclass
class Ink:
    """What is on a page: its size, its spans, rules and images."""

    width: float
    height: float
    spans: list[Span] = field(default_factory=list)
    rules: list[Box] = field(default_factory=list)  # thin boxes: horizontal or vertical lines
    images: list[Box] = field(default_factory=list)
    source: str = "text"  # "ocr": the spans are the words OCR read on the page's image
    confidence: float | None = None  # OCR's mean confidence on the page


@dataclass(frozen=True)
class Cell:
    row: int
    column: int
    text: str
    box: Box | None = None
    rows: int = 1  # spans
    columns: int = 1
    header: bool = False
    page: int | None = None  # None: the table's; a long table's continued rows, theirs

    def as_dict(self) -> dict:
        found = {"row": self.row, "column": self.column, "text": self.text}
        if self.rows != 1:
            found["rows"] = self.rows
        if self.columns != 1:
            found["columns"] = self.columns
        if self.header:
            found["header"] = True
        if self.box is not None:
            found["box"] = self.box.rounded()
        if self.page is not None:
            found["page"] = self.page
        return found

    @classmethod
    def from_dict(cls, data: dict) -> Cell:
        box = data.get("box")
        return cls(
            row=data["row"],
            column=data["column"],
            text=data["text"],
            box=Box(*box) if box else None,
            rows=data.get("rows", 1),
            columns=data.get("columns", 1),
            header=data.get("header", False),
            page=data.get("page"),
        )


def grid(cells: Sequence[Cell]) -> list[list[str]]:
    """Cells' texts, row by row: a spanned cell's text in its first slot, "" elsewhere."""
    width = max((cell.column + cell.columns for cell in cells), default=0)
    height = max((cell.row + cell.rows for cell in cells), default=0)
    rows = [[""] * width for _ in range(height)]
    for cell in cells:
        rows[cell.row][cell.column] = cell.text
    return rows


def rows_text(cells: Sequence[Cell]) -> str:
    """A table's text, as every reader writes it: a row a line, cells between " | "."""
    rows: dict[int, list[Cell]] = {}
    for cell in cells:
        rows.setdefault(cell.row, []).append(cell)
    return "\n".join(
        " | ".join(cell.text for cell in sorted(row, key=lambda c: c.column))
        for _, row in sorted(rows.items())
    )


@dataclass(frozen=True)
class Line:
    """Where a line of a block's text is: its page, its box, and the offset in the block's
    text where it starts (a passage of the text is on the lines it overlaps)."""

    page: int
    box: Box
    start: int


@dataclass
class Block:
    """One block on one page. `parts`: for a block continued from another page or column
    (a paragraph, a table), the boxes of its other pieces, each with its page."""

    kind: str
    text: str
    page: int  # 1-based, where it starts
    box: Box
    level: int = 0  # a heading's: 1 for a top section; a title is 0
    cells: list[Cell] = field(default_factory=list)
    source: str = "text"  # "ocr": read from the page's image
    confidence: float | None = None
    parts: list[tuple[int, Box]] = field(default_factory=list)
    lines: list[Line] = field(default_factory=list)

    @property
    def furniture(self) -> bool:
        return self.kind in FURNITURE

    def rows(self) -> list[list[str]]:
        """A table's cell texts, row by row (a spanned cell's text in its first slot)."""
        return grid(self.cells)

    def as_dict(self) -> dict:
        found: dict = {"kind": self.kind, "text": self.text, "page": self.page}
        found["box"] = self.box.rounded()
        if self.kind in (TITLE, HEADING):
            found["level"] = self.level
        if self.cells:
            found["cells"] = [cell.as_dict() for cell in self.cells]
        found["source"] = self.source
        if self.confidence is not None:
            found["confidence"] = round(self.confidence, 3)
        if self.parts:
            found["parts"] = [[page, box.rounded()] for page, box in self.parts]
        if self.lines:
            found["lines"] = [[line.page, line.box.rounded(), line.start] for line in self.lines]
        return found

    @classmethod
    def from_dict(cls, data: dict) -> Block:
        return cls(
            kind=data["kind"],
            text=data["text"],
            page=data["page"],
            box=Box(*data["box"]),
            level=data.get("level", 0),
            cells=[Cell.from_dict(cell) for cell in data.get("cells", [])],
            source=data.get("source", "text"),
            confidence=data.get("confidence"),
            parts=[(page, Box(*box)) for page, box in data.get("parts", [])],
            lines=[Line(page, Box(*box), start) for page, box, start in data.get("lines", [])],
        )

    def where(self, start: int = 0, end: int | None = None) -> list[tuple[int, Box]]:
        """The boxes, with their pages, of the passage text[start:end]: its lines' where
        the block has them, else its box and its parts."""
        end = len(self.text) if end is None else end
        if not self.lines or (start <= 0 and end >= len(self.text)):
            return [(self.page, self.box), *self.parts]
        found = []
        for at, line in enumerate(self.lines):
            stop = self.lines[at + 1].start if at + 1 < len(self.lines) else len(self.text)
            if line.start < end and stop > start:
                found.append((line.page, line.box))
        return found or [(self.page, self.box)]


@dataclass(frozen=True)
class PageSize:
    width: float  # points, as the page is shown
    height: float


@dataclass
class Structure:
    """A document's model: its pages' sizes, and its blocks in reading order.

    `paged` False: a file with no pages a person sees (a Word document, a web page, an
    e-mail). It has one notional page of size 0 x 0, and every block is on it with an
    empty box and no lines or parts."""

    pages: list[PageSize]
    blocks: list[Block]
    paged: bool = True

    def as_dict(self) -> dict:
        found: dict = {
            "pages": [[round(p.width, 1), round(p.height, 1)] for p in self.pages],
            "blocks": [block.as_dict() for block in self.blocks],
        }
        if not self.paged:
            found["paged"] = False
        return found

    @classmethod
    def from_dict(cls, data: dict) -> Structure:
        return cls(
            pages=[PageSize(float(w), float(h)) for w, h in data["pages"]],
            blocks=[Block.from_dict(block) for block in data["blocks"]],
            paged=data.get("paged", True),
        )
