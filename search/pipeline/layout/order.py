"""Reading order: column by column, top to bottom, by cutting the page at its white gaps.

The page's items (spans, tables, figures) are cut into bands wherever no item crosses a
horizontal line. Bands in a row that share a vertical gap at least GUTTER wide are one
region of columns: it is cut at the gap and each column read in turn, recursively (a
column may hold columns of its own). A band with no such gap is read line by line. So a
title over two columns comes first, the columns one after the other, and a table or
figure across both falls between what is above it and what is below.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from search.pipeline.layout.model import Box

T = TypeVar("T")
# A vertical gap this wide (points), and this many times the text size, parts columns.
GUTTER = 9.0
GUTTER_SIZES = 1.0


def reading_order(items: Sequence[T], box: Callable[[T], Box], size: float) -> list[T]:
    """`items` in reading order; `box(item)` its box, `size` the body text's size."""
    gutter = max(GUTTER, GUTTER_SIZES * size)
    return _read(list(items), box, gutter)


def _read(items: list[T], box: Callable[[T], Box], gutter: float) -> list[T]:
    if len(items) <= 1:
        return items
    ordered: list[T] = []
    for region in _regions(_bands(items, box), box, gutter):
        if region.gaps and _tall(region.items, box):
            columns = _cut(region.items, box, region.gaps)
            if len(columns) > 1:
                for column in columns:
                    ordered.extend(_read(column, box, gutter))
                continue
        ordered.extend(_by_line(region.items, box))
    return ordered


class _Region(Generic[T]):
    def __init__(self, items: list[T], gaps: list[tuple[float, float]]) -> None:
        self.items, self.gaps = items, gaps


def _bands(items: list[T], box: Callable[[T], Box]) -> list[list[T]]:
    """Items cut where no item crosses a horizontal line, top to bottom."""
    bands: list[list[T]] = []
    bottom = float("-inf")
    for item in sorted(items, key=lambda item: box(item).y0):
        b = box(item)
        if bands and b.y0 < bottom:
            bands[-1].append(item)
            bottom = max(bottom, b.y1)
        else:
            bands.append([item])
            bottom = b.y1
    return bands


def _gaps(items: Sequence[T], box: Callable[[T], Box], gutter: float) -> list[tuple[float, float]]:
    """The vertical white gaps between the items, each at least `gutter` wide."""
    ranges = sorted((box(item).x0, box(item).x1) for item in items)
    gaps = []
    right = ranges[0][1]
    for x0, x1 in ranges[1:]:
        if x0 - right >= gutter:
            gaps.append((right, x0))
        right = max(right, x1)
    return gaps


def _narrowed(
    gaps: list[tuple[float, float]], items: Sequence[T], box: Callable[[T], Box], gutter: float
) -> list[tuple[float, float]] | None:
    """The gaps, less what `items` cover of them; None when one closes."""
    kept = []
    for lo, hi in gaps:
        pieces = [(lo, hi)]
        for item in items:
            b = box(item)
            pieces = (
                [
                    piece
                    for p0, p1 in pieces
                    for piece in ((p0, min(p1, b.x0)), (max(p0, b.x1), p1))
                    if piece[1] - piece[0] >= gutter
                ]
                if b.x0 < hi and b.x1 > lo
                else pieces
            )
        if not pieces:
            return None
        kept.append(max(pieces, key=lambda piece: piece[1] - piece[0]))
    return kept


def _regions(bands: list[list[T]], box: Callable[[T], Box], gutter: float) -> list[_Region[T]]:
    """Bands in a row that leave the same gaps open, joined, each with its gaps."""
    regions: list[_Region[T]] = []
    for band in bands:
        if regions and regions[-1].gaps:
            kept = _narrowed(regions[-1].gaps, band, box, gutter)
            if kept is not None:
                regions[-1].items.extend(band)
                regions[-1].gaps = kept
                continue
        regions.append(_Region(list(band), _gaps(band, box, gutter)))
    # A band with no gap of its own that fits the columns below it (one column starts
    # higher than the other) is part of them.
    joined: list[_Region[T]] = []
    for region in regions:
        if joined and not joined[-1].gaps and region.gaps:
            kept = _narrowed(region.gaps, joined[-1].items, box, gutter)
            if kept is not None:
                region = _Region(joined.pop().items + region.items, kept)
        joined.append(region)
    return joined


def _tall(items: Sequence[T], box: Callable[[T], Box]) -> bool:
    """Columns are three lines deep at least: a gap through one or two lines is a wide
    space between words."""
    height = min(box(item).height for item in items)
    top = min(box(item).y0 for item in items)
    bottom = max(box(item).y1 for item in items)
    return bottom - top >= 2.5 * height


def _cut(items: list[T], box: Callable[[T], Box], gaps: list[tuple[float, float]]) -> list[list[T]]:
    edges = sorted((lo + hi) / 2 for lo, hi in gaps)
    columns: list[list[T]] = [[] for _ in range(len(edges) + 1)]
    for item in items:
        centre = box(item).cx
        columns[sum(1 for edge in edges if centre > edge)].append(item)
    return [column for column in columns if column]


def _by_line(items: list[T], box: Callable[[T], Box]) -> list[T]:
    """Top to bottom, and on one line left to right."""
    items = sorted(items, key=lambda item: box(item).cy)
    lines: list[list[T]] = []
    for item in items:
        b = box(item)
        if lines:
            last = box(lines[-1][-1])
            if abs(b.cy - last.cy) <= 0.4 * min(b.height, last.height):
                lines[-1].append(item)
                continue
        lines.append([item])
    return [item for line in lines for item in sorted(line, key=lambda i: box(i).x0)]
