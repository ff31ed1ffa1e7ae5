"""Tables, as grids of cells.

- Ruled: the page's rules (glyphs.Ink.rules) that cross each other make a grid; each
  slot between two neighbouring horizontal and vertical rules is a cell, widened over a
  rule that is missing there (a spanned cell). The spans whose centres fall in a cell are
  its text.
- Unruled: three or more lines in a row whose spans fall into the same two or more
  columns (the gaps between them run through every line), with short texts: prose in two
  page columns has long lines, and justified words do not line up.

A table's first row is its header when its text is bold, or when it is the row repeated
at the top of the table's continuation on the next page (document.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from search.pipeline.layout.model import Box, Cell, Span

JOIN = 2.0  # points: rules this close meet, positions this close are one
MIN_ROWS = 2
UNRULED_MIN_LINES = 3
CELL_CHARS = 40  # an unruled table's cells average under this many characters
CELL_WORDS = 5  # and words: lines of prose side by side are not a table
# Columns of prose: this share of their lines at least FULL_LINE of their column's width.
FULL_LINE = 0.85
PROSE_SHARE = 0.5
LINE_GAP = 1.8  # times the line height: a larger gap ends an unruled table


@dataclass
class Found:
    box: Box
    cells: list[Cell]
    spans: list[int]  # the page's span indexes it took


def ruled(rules: Sequence[Box], spans: Sequence[Span], taken: set[int]) -> list[Found]:
    """The ruled tables of a page (spans in `taken` are already something else)."""
    found = []
    for group in _groups(rules):
        table = _grid(group, spans, taken)
        if table is not None:
            found.append(table)
            taken.update(table.spans)
    return found


def _horizontal(rule: Box) -> bool:
    return rule.width >= rule.height


def _meet(a: Box, b: Box) -> bool:
    return (
        a.x0 - JOIN <= b.x1 and b.x0 - JOIN <= a.x1 and a.y0 - JOIN <= b.y1 and b.y0 - JOIN <= a.y1
    )


def _groups(rules: Sequence[Box]) -> list[list[Box]]:
    """Rules that touch, gathered (union-find over pairs: a page has few rules)."""
    parent = list(range(len(rules)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, a in enumerate(rules):
        for j in range(i + 1, len(rules)):
            if _meet(a, rules[j]):
                parent[root(i)] = root(j)
    groups: dict[int, list[Box]] = {}
    for i, rule in enumerate(rules):
        groups.setdefault(root(i), []).append(rule)
    return list(groups.values())


def _positions(values: Sequence[float]) -> list[float]:
    merged: list[float] = []
    for value in sorted(values):
        if merged and value - merged[-1] <= JOIN:
            continue
        merged.append(value)
    return merged


def _grid(group: list[Box], spans: Sequence[Span], taken: set[int]) -> Found | None:
    across = [rule for rule in group if _horizontal(rule)]
    down = [rule for rule in group if not _horizontal(rule)]
    ys = _positions([rule.cy for rule in across])
    xs = _positions([rule.cx for rule in down])
    if len(ys) < MIN_ROWS + 1 or len(xs) < 2:
        return None
    box = Box(xs[0], ys[0], xs[-1], ys[-1])
    slots, cells = _slots(xs, ys, across, down)
    texts: dict[tuple[int, int], list[Span]] = {}
    took = []
    for index, span in enumerate(spans):
        if index in taken or not box.contains_point(span.box.cx, span.box.cy):
            continue
        row_at, column_at = _slot(ys, span.box.cy), _slot(xs, span.box.cx)
        if row_at is None or column_at is None:
            continue
        texts.setdefault(slots[(row_at, column_at)], []).append(span)
        took.append(index)
    if not took:
        return None
    made = []
    for r, c, height, width in cells:
        inside = texts.get((r, c), [])
        made.append(
            Cell(
                row=r,
                column=c,
                text=_text(inside),
                box=Box(xs[c], ys[r], xs[c + width], ys[r + height]),
                rows=height,
                columns=width,
                header=r == 0 and bool(inside) and all(span.bold for span in inside),
            )
        )
    return Found(box, _header_row(made), took)


Slots = dict[tuple[int, int], tuple[int, int]]


def _slots(
    xs: list[float], ys: list[float], across: list[Box], down: list[Box]
) -> tuple[Slots, list[tuple[int, int, int, int]]]:
    """The grid's cells, each (row, column, rows, columns), widened and deepened over
    the rules missing there; and each slot's cell, by its first slot."""

    def has_down(x: float, y0: float, y1: float) -> bool:
        middle = (y0 + y1) / 2
        return any(abs(r.cx - x) <= JOIN and r.y0 - JOIN <= middle <= r.y1 + JOIN for r in down)

    def has_across(y: float, x0: float, x1: float) -> bool:
        middle = (x0 + x1) / 2
        return any(abs(r.cy - y) <= JOIN and r.x0 - JOIN <= middle <= r.x1 + JOIN for r in across)

    slots: Slots = {}
    cells: list[tuple[int, int, int, int]] = []
    for r in range(len(ys) - 1):
        for c in range(len(xs) - 1):
            if (r, c) in slots:
                continue
            width = 1
            while c + width < len(xs) - 1 and not has_down(xs[c + width], ys[r], ys[r + 1]):
                width += 1
            height = 1
            while r + height < len(ys) - 1 and not has_across(ys[r + height], xs[c], xs[c + width]):
                height += 1
            for dr in range(height):
                for dc in range(width):
                    slots[(r + dr, c + dc)] = (r, c)
            cells.append((r, c, height, width))
    return slots, cells


def _slot(edges: Sequence[float], value: float) -> int | None:
    for i in range(len(edges) - 1):
        if edges[i] <= value <= edges[i + 1]:
            return i
    return None


def _text(spans: Sequence[Span]) -> str:
    """Spans in reading order: by line, then left to right."""
    ordered = sorted(spans, key=lambda s: (round(s.box.cy / max(s.size, 1) * 2), s.box.x0))
    return " ".join(span.text for span in ordered).strip()


def _header_row(cells: list[Cell]) -> list[Cell]:
    """A first row all of whose filled cells are bold is the header; else none is."""
    first = [cell for cell in cells if cell.row == 0 and cell.text]
    if first and all(cell.header for cell in first):
        return cells
    return [Cell(c.row, c.column, c.text, c.box, c.rows, c.columns, False) for c in cells]


def unruled(spans: Sequence[Span], taken: set[int]) -> list[Found]:
    """The unruled tables of a page, from lines of spans aligned in columns."""
    lines = _lines([(i, s) for i, s in enumerate(spans) if i not in taken and not s.vertical])
    found = []
    start = 0
    while start < len(lines):
        end = start
        while end + 1 < len(lines) and _follows(lines[end], lines[end + 1]):
            end += 1
        table = _aligned(lines[start : end + 1])
        if table is not None:
            found.append(table)
            taken.update(table.spans)
        start = end + 1
    return found


Line = list[tuple[int, Span]]


def _lines(items: list[tuple[int, Span]]) -> list[Line]:
    items.sort(key=lambda item: (item[1].box.cy, item[1].box.x0))
    lines: list[Line] = []
    for item in items:
        span = item[1]
        if lines:
            last = lines[-1][-1][1]
            if abs(span.box.cy - last.box.cy) <= 0.4 * max(span.size, last.size, 1):
                lines[-1].append(item)
                continue
        lines.append([item])
    for line in lines:
        line.sort(key=lambda item: item[1].box.x0)
    return lines


def _follows(line: Line, after: Line) -> bool:
    """`after` continues a run of table rows from `line`: close below, and both split."""
    if len(line) < 2 or len(after) < 2:
        return False
    height = max(span.box.height for _, span in line)
    bottom = max(span.box.y1 for _, span in line)
    top = min(span.box.y0 for _, span in after)
    return top - bottom <= LINE_GAP * height


def _aligned(lines: list[Line]) -> Found | None:
    if len(lines) < UNRULED_MIN_LINES or any(len(line) < 2 for line in lines):
        return None
    columns = _columns([span.box for line in lines for _, span in line])
    if len(columns) < 2:
        return None
    cells: list[Cell] = []
    took: list[int] = []
    chars = 0
    for r, line in enumerate(lines):
        row: dict[int, list[Span]] = {}
        for index, span in line:
            c = next(i for i, (x0, x1) in enumerate(columns) if x0 <= span.box.cx <= x1)
            row.setdefault(c, []).append(span)
            took.append(index)
        filled = len(row)
        if filled < 2 and r in (0, len(lines) - 1):
            return None
        for c, inside in sorted(row.items()):
            text = _text(inside)
            chars += len(text)
            cells.append(
                Cell(
                    row=r,
                    column=c,
                    text=text,
                    box=Box.around([span.box for span in inside]),
                    header=r == 0 and all(span.bold for span in inside),
                )
            )
    words = sum(len(cell.text.split()) for cell in cells)
    if chars / len(cells) > CELL_CHARS or words / len(cells) > CELL_WORDS:
        return None
    if _prose(cells, columns):
        return None
    box = Box.around([cell.box for cell in cells if cell.box is not None])
    return Found(box, _header_row(cells), took)


def _prose(cells: Sequence[Cell], columns: Sequence[tuple[float, float]]) -> bool:
    """Narrow columns of text side by side, not a table: most of their lines fill their
    column's width (set justified, or ragged close to it), where a table's cells differ."""
    widths = [x1 - x0 for x0, x1 in columns]
    full = sum(
        1
        for cell in cells
        if cell.box is not None and cell.box.width >= FULL_LINE * widths[cell.column]
    )
    return full >= PROSE_SHARE * len(cells)


def _columns(boxes: Sequence[Box]) -> list[tuple[float, float]]:
    """The x ranges that boxes fill, split where a gap runs through them all."""
    ranges: list[list[float]] = []
    for box in sorted(boxes, key=lambda b: b.x0):
        if ranges and box.x0 <= ranges[-1][1] + JOIN:
            ranges[-1][1] = max(ranges[-1][1], box.x1)
        else:
            ranges.append([box.x0, box.x1])
    return [(x0, x1) for x0, x1 in ranges]
