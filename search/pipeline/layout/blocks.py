"""A page's text in reading order, into blocks: lines into paragraphs, and each block's
kind (heading, list item, caption, footnote or paragraph).

A line is the spans on one baseline. A new block starts where the font changes, where
the white space above a line is wider than a paragraph's lines leave, where a line is
indented under a full one, after a short line that ends a sentence, where a list marker
begins a line, and where the text moves to another column. Lines are joined with a space,
and a word hyphenated at a line's end is joined whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from search.pipeline.layout.model import (
    CAPTION,
    FOOTNOTE,
    HEADING,
    LIST_ITEM,
    PARAGRAPH,
    Block,
    Box,
    Line,
    Span,
)

LIST_MARKER = re.compile(
    r"^(?:[-\u2013\u2014•▪◦●○■□*·]|\(?\d{1,3}[.)]|\(?[a-z][.)]|\(?[ivx]{1,4}[.)])\s"
)
CAPTION_START = re.compile(r"^(?:table|figure|fig\.|chart|exhibit|listing)\s*[\dA-Z]+[.:]?\s", re.I)
FOOTNOTE_START = re.compile(r"^(?:\d{1,3}|[*†‡§¶])\s*\S")
SENTENCE_END = re.compile(r"[.!?:;…][\"\u201d\u2019')\]]?$")
# A letter, then a hyphen ending the line: "-", or the hyphen and soft hyphen some
# producers draw there (U+2010, U+00AD).
HYPHENATED = re.compile(r"[^\W\d_][-\u2010\u00ad]$")
HEADING_SIZE = 1.15  # times the body's size, at least
PARAGRAPH_GAP = 0.5  # times the size: more white above a line starts a block
BOLD_HEADING_CHARS = 120
LARGE_HEADING_CHARS = 160
# A section's number before its heading: "2.", "2.1", "IV.", "A.".
NUMBERED = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[IVXLC]+\.|[A-Z]\.)\s+")
# A sentence that ends and another that goes on: a run-in heading and its text.
RUN_IN = re.compile(r"[.!?]\s+\S")


@dataclass
class TextLine:
    spans: list[Span]
    box: Box

    @property
    def text(self) -> str:
        return " ".join(span.text for span in self.spans)

    @property
    def size(self) -> float:
        return max(span.size for span in self.spans)

    @property
    def bold(self) -> bool:
        return all(span.bold for span in self.spans)


@dataclass
class Draft:
    lines: list[TextLine] = field(default_factory=list)

    @property
    def box(self) -> Box:
        return Box.around([line.box for line in self.lines])


def lines_of(spans: list[Span]) -> list[TextLine]:
    """Spans in reading order into lines: the next span on the same baseline, to the right."""
    lines: list[TextLine] = []
    for span in spans:
        if lines:
            last = lines[-1]
            same = abs(span.box.cy - last.spans[-1].box.cy) <= 0.4 * max(span.size, 1)
            if same and span.box.x0 > last.spans[-1].box.x0:
                last.spans.append(span)
                last.box = last.box.union(span.box)
                continue
        lines.append(TextLine([span], span.box))
    return lines


def drafts(lines: list[TextLine]) -> list[Draft]:
    found: list[Draft] = []
    for line in lines:
        if found and _continues(found[-1], line):
            found[-1].lines.append(line)
        else:
            found.append(Draft([line]))
    return found


def _continues(draft: Draft, line: TextLine) -> bool:
    last = draft.lines[-1]
    size = max(last.size, 1.0)
    if abs(line.size - last.size) > 0.1 * size or line.bold != last.bold:
        return False
    gap = line.box.y0 - last.box.y1
    if gap > PARAGRAPH_GAP * size or gap < -0.5 * size:
        return False
    if line.box.x0 >= last.box.x1 or line.box.x1 <= last.box.x0:
        return False  # another column
    if LIST_MARKER.match(line.text):
        return False
    right = draft.box.x1
    if (
        len(draft.lines) > 1
        and line.box.x0 > last.box.x0 + 0.9 * size
        and last.box.x1 > right - size
    ):
        return False  # indented under a full line: a new paragraph
    short = last.box.x1 < right - 2.5 * size
    return not (len(draft.lines) > 1 and short and SENTENCE_END.search(last.text))


def join(lines: list[str]) -> tuple[str, list[int]]:
    """Lines into one text, a word hyphenated at a line's end joined whole; with the
    offset in it where each line starts."""
    text = ""
    starts = []
    for line in lines:
        line = line.strip()
        if text and HYPHENATED.search(text) and line[:1].islower():
            text = text[:-1]
        elif text and line:
            text += " "
        starts.append(len(text))
        text += line
    return text, starts


def block_of(draft: Draft, page: int, body_size: float, page_height: float) -> Block:
    text, starts = join([line.text for line in draft.lines])
    size = max(line.size for line in draft.lines)
    bold = all(line.bold for line in draft.lines)
    box = draft.box
    kind = PARAGRAPH
    if _heading(text, size, bold, body_size):
        kind = HEADING
    elif CAPTION_START.match(text):
        kind = CAPTION
    elif LIST_MARKER.match(text):
        kind = LIST_ITEM
    elif size <= 0.92 * body_size and box.y0 >= 0.6 * page_height and FOOTNOTE_START.match(text):
        kind = FOOTNOTE
    lines = [Line(page, line.box, start) for line, start in zip(draft.lines, starts, strict=True)]
    return Block(kind=kind, text=text, page=page, box=box, lines=lines)


def _heading(text: str, size: float, bold: bool, body_size: float) -> bool:
    """Larger than the body, or bold; short; and not a sentence: a pull quote set large,
    or a bold label that runs into its paragraph ("Dates. The fair opens..."), is text.
    A section's number ("2.1", "IV.") is no sentence's end."""
    larger = size >= HEADING_SIZE * body_size
    if not (larger or bold) or len(text) > (LARGE_HEADING_CHARS if larger else BOLD_HEADING_CHARS):
        return False
    words = NUMBERED.sub("", text)
    return not SENTENCE_END.search(words) and not RUN_IN.search(words)


def style(draft: Draft) -> tuple[float, bool]:
    """A heading's style, for its level: its size (to half a point) and weight."""
    size = max(line.size for line in draft.lines)
    return round(size * 2) / 2, all(line.bold for line in draft.lines)
