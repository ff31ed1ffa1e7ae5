"""Pages whose text runs sideways or upside down as shown: read upright, their boxes
given back as shown.

A page set in landscape without its rotation said, or a scan turned, shows most of its
text turned a quarter or a half turn. The page's ink is turned so that text reads upright
before the layout is read, and every box found is turned back: boxes stay in the model's
coordinates, those of the page as it is shown.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import replace

from search.pipeline.layout.model import Block, Box, Cell, Ink, Span

Turn = Callable[[float, float], tuple[float, float]]
# A page is read turned when more than this share of its characters reads that way.
MOST = 0.5


def turn_of(ink: Ink) -> int:
    """The quarter turn most of the page's text reads at (0: upright)."""
    counts: Counter[int] = Counter()
    for span in ink.spans:
        counts[span.turn] += len(span.text)
    total = sum(counts.values())
    if not total:
        return 0
    turn, count = counts.most_common(1)[0]
    return turn if count > MOST * total else 0


def _forward(turn: int, width: float, height: float) -> Turn:
    """Shown coordinates to upright ones, on a page `width` x `height` as shown."""
    if turn == 90:
        return lambda x, y: (y, width - x)
    if turn == 270:
        return lambda x, y: (height - y, x)
    return lambda x, y: (width - x, height - y)  # 180


def _backward(turn: int, width: float, height: float) -> Turn:
    if turn == 90:
        return lambda x, y: (width - y, x)
    if turn == 270:
        return lambda x, y: (y, height - x)
    return lambda x, y: (width - x, height - y)


def _box(box: Box, turn: Turn) -> Box:
    ax, ay = turn(box.x0, box.y0)
    bx, by = turn(box.x1, box.y1)
    return Box(min(ax, bx), min(ay, by), max(ax, bx), max(ay, by))


def turned(ink: Ink, turn: int) -> Ink:
    """The page's ink turned so that text at `turn` reads upright."""
    if turn == 0:
        return ink
    move = _forward(turn, ink.width, ink.height)
    size = (ink.height, ink.width) if turn in (90, 270) else (ink.width, ink.height)
    spans = []
    for span in ink.spans:
        now = (span.turn - turn) % 360
        spans.append(
            Span(span.text, _box(span.box, move), span.size, span.bold, now in (90, 270), now)
        )
    return Ink(
        size[0],
        size[1],
        spans,
        [_box(rule, move) for rule in ink.rules],
        [_box(image, move) for image in ink.images],
        ink.source,
        ink.confidence,
    )


def back(blocks: list[Block], turns: list[int], inks: list[Ink]) -> None:
    """Every box of `blocks` turned back to its page as shown (`inks`: as shown)."""
    moves = {
        number: _backward(turn, ink.width, ink.height)
        for number, (turn, ink) in enumerate(zip(turns, inks, strict=True), start=1)
        if turn
    }
    if not moves:
        return

    def shown(page: int, box: Box) -> Box:
        return _box(box, moves[page]) if page in moves else box

    for block in blocks:
        block.box = shown(block.page, block.box)
        block.parts = [(page, shown(page, box)) for page, box in block.parts]
        block.lines = [replace(line, box=shown(line.page, line.box)) for line in block.lines]
        block.cells = [_cell(cell, block.page, shown) for cell in block.cells]


def _cell(cell: Cell, page: int, shown: Callable[[int, Box], Box]) -> Cell:
    if cell.box is None:
        return cell
    return replace(cell, box=shown(cell.page or page, cell.box))
