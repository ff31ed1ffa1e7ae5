"""Page furniture: what a reader skips. Told from the whole document at once:

- running headers and footers: text in a page's top or bottom band that comes back, its
  digits aside, on many pages ("Annual Report 2025", "Page 3 of 48", "Chapter 2 · 17");
- page numbers: a number alone in a band ("12", "- 12 -", "Page 12", "xii", "12 / 48"),
  on any page;
- line numbers: numbers in a margin, left or right of the text, on several lines;
- marks: text turned against the page in a margin (a printer's or archive's stamp).

Each is kept, as its kind, in the model; chunks and search leave it out.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence

from search.pipeline.layout.model import (
    LINE_NUMBER,
    MARK,
    PAGE_FOOTER,
    PAGE_HEADER,
    PAGE_NUMBER,
    Box,
    Ink,
    Span,
)

# A page's top and bottom zones: the lines nearest its edge, within this share of its
# height, up to a white gap at least GAP times a line's height.
BAND = 0.25
GAP = 1.0
# Text comes back on this share of the pages (and on two at least) to be running.
RUNNING_SHARE = 0.4
PAGE_NUMBER_TEXT = re.compile(
    r"^(?:page|p\.|seite|página|pagina)?\s*[-\u2013\u2014(\[]?\s*"
    r"(?:\d{1,4}|[ivxlcdm]{1,7})"
    r"\s*(?:(?:of|/|de|von|sur)\s*\d{1,4})?\s*[-\u2013\u2014)\]]?$",
    re.IGNORECASE,
)
LINE_NUMBER_TEXT = re.compile(r"^\d{1,4}$")
# Line numbers: at least this many on a page, in a margin.
MIN_LINE_NUMBERS = 3


def key(text: str) -> str:
    """Text as repetition is counted: case, digits and spacing aside."""
    return re.sub(r"\s+", " ", re.sub(r"\d+", "#", text.casefold())).strip()


def find(
    inks: Sequence[Ink], ruled: Sequence[Sequence[tuple[float, float, float, float]]]
) -> list[dict[int, str]]:
    """For each page, its furniture: the index of each span that is some, with its kind.
    `ruled`: each page's ruled tables' boxes, whose spans are never furniture."""
    bands = [_banded(ink, boxes) for ink, boxes in zip(inks, ruled, strict=True)]
    counts: Counter[str] = Counter()
    for page in bands:
        counts.update({key(ink_span.text) for _, ink_span, _ in page})
    needed = max(2, round(RUNNING_SHARE * len(inks)))
    found: list[dict[int, str]] = []
    for ink, page in zip(inks, bands, strict=True):
        kinds: dict[int, str] = {}
        for index, span, where in page:
            if PAGE_NUMBER_TEXT.match(span.text.strip()):
                kinds[index] = PAGE_NUMBER
            elif len(inks) > 1 and counts[key(span.text)] >= needed:
                kinds[index] = PAGE_HEADER if where == "top" else PAGE_FOOTER
        kinds.update(_margins(ink, kinds))
        found.append(kinds)
    return found


def _banded(
    ink: Ink, ruled: Sequence[tuple[float, float, float, float]]
) -> list[tuple[int, Span, str]]:
    """The spans of the page's top and bottom zones, each with "top" or "bottom"."""
    rows = _rows(
        [
            (index, span)
            for index, span in enumerate(ink.spans)
            if not span.vertical and not any(_inside(span, box) for box in ruled)
        ]
    )
    top = _zone(rows, lambda edge: edge <= BAND * ink.height, lambda box: box.y1)
    bottom = _zone(rows[::-1], lambda edge: edge >= (1 - BAND) * ink.height, lambda box: box.y0)
    found = [(index, span, "top") for index, span in top]
    taken = {index for index, _ in top}
    found += [(index, span, "bottom") for index, span in bottom if index not in taken]
    return found


Row = list[tuple[int, Span]]


def _zone(rows: list[Row], near: Callable[[float], bool], edge: Callable[[Box], float]) -> Row:
    """The rows from the page's edge inwards, up to the first white gap at least GAP
    lines high, if every one of them is `near` the edge; else none."""
    zone: Row = []
    for at, row in enumerate(rows):
        after = rows[at + 1] if at + 1 < len(rows) else None
        if not all(near(edge(span.box)) for _, span in row):
            return []
        zone.extend(row)
        if after is None or _gap(row, after) >= GAP * max(s.box.height for _, s in row):
            return zone
    return zone


def _rows(items: Row) -> list[Row]:
    rows: list[Row] = []
    for item in sorted(items, key=lambda item: item[1].box.cy):
        if rows and abs(item[1].box.cy - rows[-1][-1][1].box.cy) <= 0.4 * item[1].box.height:
            rows[-1].append(item)
        else:
            rows.append([item])
    return rows


def _gap(row: Row, other: Row) -> float:
    """The white space between two rows."""
    top = max(min(s.box.y0 for _, s in row), min(s.box.y0 for _, s in other))
    bottom = min(max(s.box.y1 for _, s in row), max(s.box.y1 for _, s in other))
    return top - bottom


def _inside(span: Span, box: tuple[float, float, float, float]) -> bool:
    x0, y0, x1, y1 = box
    return x0 - 2 <= span.box.cx <= x1 + 2 and y0 - 2 <= span.box.cy <= y1 + 2


def _margins(ink: Ink, known: dict[int, str]) -> dict[int, str]:
    """Line numbers and turned marks: outside the left and right edges of the page's text."""
    body = [
        span
        for index, span in enumerate(ink.spans)
        if index not in known and not span.vertical and not LINE_NUMBER_TEXT.match(span.text)
    ]
    if not body:
        return {}
    lefts = sorted(span.box.x0 for span in body)
    rights = sorted(span.box.x1 for span in body)
    left, right = lefts[len(lefts) // 10], rights[-1 - len(rights) // 10]
    found: dict[int, str] = {}
    numbers = []
    for index, span in enumerate(ink.spans):
        if index in known:
            continue
        outside = span.box.x1 <= left - 2 or span.box.x0 >= right + 2
        if span.vertical and outside:
            found[index] = MARK
        elif outside and LINE_NUMBER_TEXT.match(span.text):
            numbers.append(index)
    if len(numbers) >= MIN_LINE_NUMBERS:
        found.update(dict.fromkeys(numbers, LINE_NUMBER))
    return found
