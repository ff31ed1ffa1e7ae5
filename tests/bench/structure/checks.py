"""The structure benchmark's unit checks, and how an extraction is scored on them.

An extraction is what a candidate reader gives for one document: its blocks in reading
order, each with a kind ("heading", "paragraph", "page_header", ...), a heading level, its
text and, for a table, its cells. A reader that knows no structure (today's flat page
text) gives one paragraph a page.

Each check passes or fails on its own, so a score is a share of checks passed:
- `Present`: a passage is in the body text (furniture left out), whitespace and line
  breaks aside, a hyphen at a line's end joined;
- `Absent`: a piece of furniture (a running header, a page number) is not;
- `Before`: passage A comes before passage B in the body text;
- `Neighbour`: a table cell has the given cell next to it (left, right, above, below);
- `Heading`: a heading with this text is found at this level.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

FURNITURE = frozenset({"page_header", "page_footer", "page_number", "line_number", "mark"})
HEADINGS = frozenset({"title", "heading"})
STEPS = {"left": (0, -1), "right": (0, 1), "above": (-1, 0), "below": (1, 0)}


@dataclass(frozen=True)
class Block:
    kind: str
    text: str
    page: int
    level: int = 0  # a heading's: 1 for a top section; a title is level 0
    cells: tuple[tuple[str, ...], ...] = ()  # a table's rows, each its cells' texts


@dataclass(frozen=True)
class Present:
    text: str


@dataclass(frozen=True)
class Absent:
    text: str


@dataclass(frozen=True)
class Before:
    first: str
    then: str


@dataclass(frozen=True)
class Neighbour:
    cell: str
    direction: str  # left | right | above | below
    other: str


@dataclass(frozen=True)
class Heading:
    text: str
    level: int


Check = Present | Absent | Before | Neighbour | Heading
KINDS = ("present", "absent", "order", "table", "heading")


def kind_of(check: Check) -> str:
    return {
        Present: "present",
        Absent: "absent",
        Before: "order",
        Neighbour: "table",
        Heading: "heading",
    }[type(check)]


def normal(text: str) -> str:
    """Text as the checks compare it: hyphens at line ends joined, whitespace one space."""
    text = re.sub(r"(\w)-\s*\n\s*(\w)", r"\1\2", text)
    return re.sub(r"\s+", " ", text).strip().casefold()


@dataclass
class Scored:
    passed: dict[str, int] = field(default_factory=dict)
    total: dict[str, int] = field(default_factory=dict)
    misses: list[str] = field(default_factory=list)

    def add(self, kind: str, ok: bool, what: str) -> None:
        self.total[kind] = self.total.get(kind, 0) + 1
        self.passed[kind] = self.passed.get(kind, 0) + int(ok)
        if not ok:
            self.misses.append(what)

    def share(self, kind: str) -> float | None:
        return self.passed.get(kind, 0) / self.total[kind] if self.total.get(kind) else None


def body_text(blocks: list[Block]) -> str:
    """The document as a reader of its body meets it: furniture left out, a table's cells
    read row by row."""
    parts: list[str] = []
    for block in blocks:
        if block.kind in FURNITURE:
            continue
        if block.cells:
            parts.extend(" ".join(row) for row in block.cells)
        else:
            parts.append(block.text)
    return normal("\n".join(parts))


def _neighbour(blocks: list[Block], check: Neighbour) -> bool:
    row_step, column_step = STEPS[check.direction]
    for block in blocks:
        rows = [[normal(cell) for cell in row] for row in block.cells]
        for r, row in enumerate(rows):
            for c, cell in enumerate(row):
                if cell != normal(check.cell):
                    continue
                r2, c2 = r + row_step, c + column_step
                inside = 0 <= r2 < len(rows) and 0 <= c2 < len(rows[r2])
                if inside and rows[r2][c2] == normal(check.other):
                    return True
    return False


def _heading(blocks: list[Block], check: Heading) -> bool:
    return any(
        block.kind in HEADINGS
        and normal(block.text) == normal(check.text)
        and block.level == check.level
        for block in blocks
    )


def score(blocks: list[Block], checks: Sequence[Check], scored: Scored, name: str) -> None:
    """Add the document's checks, run on its blocks, to `scored`."""
    body = body_text(blocks)
    for check in checks:
        if isinstance(check, Present):
            ok = normal(check.text) in body
        elif isinstance(check, Absent):
            ok = normal(check.text) not in body
        elif isinstance(check, Before):
            first, then = body.find(normal(check.first)), body.find(normal(check.then))
            ok = 0 <= first < then
        elif isinstance(check, Neighbour):
            ok = _neighbour(blocks, check)
        else:
            ok = _heading(blocks, check)
        scored.add(kind_of(check), ok, f"{name}: {check}")


def headings_f1(blocks: list[Block], checks: Sequence[Check]) -> tuple[int, int, int]:
    """(true positives, found, expected) of headings, for an F1 over the corpus: a found
    heading no check names counts against precision."""
    expected = {(normal(c.text), c.level) for c in checks if isinstance(c, Heading)}
    found = {(normal(b.text), b.level) for b in blocks if b.kind in HEADINGS}
    return len(expected & found), len(found), len(expected)
