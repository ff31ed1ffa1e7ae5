"""A page's ink through PDFium: its characters gathered into spans (a run of text on one
line with no wide gap in it), its rules (drawn lines, and the edges of drawn boxes) and
its images, all in the model's coordinates (model.py: points from the shown page's
top-left corner).

One ctypes call per character for its code, its box and its text object; the font's size,
weight and angle once per text object.
"""

from __future__ import annotations

import ctypes
import math
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

import pypdfium2.raw as pdfium_c  # type: ignore[import-untyped]

from search.pipeline.layout.model import Box, Ink, Span

# Two characters on a line farther apart than this many times the font size are in two
# spans: a column's gutter, or a table's cells. Word gaps, even justified, are well under.
SPAN_GAP = 0.8
# A character may start this far (times the font size) before the last one ends: a
# ligature's letters share one box, a kerned pair overlaps.
OVERLAP = 1.5
# A character whose centre is this far (times the font size) off the span's line starts
# another line.
LINE_SLACK = 0.35
# A drawn shape this thin (points) is a rule; a box drawn is four.
RULE_THICKNESS = 2.5
MIN_RULE = 4.0
MIN_IMAGE = 24.0
# PDFium's device space is whole pixels: map to this many per point, then back.
PRECISION = 16
BOLD_WEIGHT = 600
MAX_CODE_POINT = 0x10FFFF
# PDFium gives a hyphen that ends a line as this code; it is a hyphen.
PDFIUM_LINE_HYPHEN, HYPHEN = 2, "-"
BOLD_NAMES = ("bold", "black", "heavy", "semibold", "demi")


class _Shown:
    """PDF user space to the shown page's points, by three points PDFium maps."""

    def __init__(self, page: Any, width: float, height: float) -> None:
        raw = page.raw
        wide, high = round(width * PRECISION), round(height * PRECISION)
        x, y = ctypes.c_int(), ctypes.c_int()

        def shown(px: float, py: float) -> tuple[float, float]:
            pdfium_c.FPDF_PageToDevice(raw, 0, 0, wide, high, 0, px, py, x, y)
            return x.value / PRECISION, y.value / PRECISION

        ox, oy = shown(0, 0)
        ax, ay = shown(1000, 0)
        bx, by = shown(0, 1000)
        self.a, self.b = (ax - ox) / 1000, (ay - oy) / 1000
        self.c, self.d = (bx - ox) / 1000, (by - oy) / 1000
        self.e, self.f = ox, oy

    def box(self, left: float, bottom: float, right: float, top: float) -> Box:
        xs, ys = [], []
        for px, py in ((left, bottom), (right, top)):
            xs.append(self.a * px + self.c * py + self.e)
            ys.append(self.b * px + self.d * py + self.f)
        return Box(min(xs), min(ys), max(xs), max(ys))

    @property
    def turn(self) -> float:
        """The page's own rotation, in degrees, as PDFium shows it."""
        return math.degrees(math.atan2(self.b, self.a)) % 360


def read_ink(page: Any, textpage: Any | None = None) -> Ink:
    """The ink of a pypdfium2 page (its text page, when the caller has one open)."""
    width, height = page.get_size()
    shown = _Shown(page, width, height)
    ink = Ink(width, height)
    reading = textpage if textpage is not None else page.get_textpage()
    try:
        ink.spans = _spans(reading.raw, shown)
    finally:
        if textpage is None:
            reading.close()
    _shapes(page.raw, shown, ink)
    return ink


@dataclass
class _Font:
    size: float
    bold: bool
    turn: int  # degrees, to a quarter turn, as the page is shown

    @property
    def vertical(self) -> bool:
        return self.turn in (90, 270)


def _font(raw: Any, index: int, handle: Any, shown: _Shown) -> _Font:
    size = pdfium_c.FPDFText_GetFontSize(raw, index)
    bold = False
    font = pdfium_c.FPDFTextObj_GetFont(handle) if handle else None
    if font:
        weight = pdfium_c.FPDFFont_GetWeight(font)
        if weight >= BOLD_WEIGHT:
            bold = True
        else:
            buffer = ctypes.create_string_buffer(128)
            length = pdfium_c.FPDFFont_GetBaseFontName(font, buffer, 128)
            name = buffer.raw[: max(0, length - 1)].decode("latin-1").lower()
            bold = any(word in name for word in BOLD_NAMES)
    angle = math.degrees(pdfium_c.FPDFText_GetCharAngle(raw, index)) + shown.turn
    return _Font(size=size, bold=bold, turn=round(angle % 360 / 90) % 4 * 90)


def _spans(raw: Any, shown: _Shown) -> list[Span]:
    count = pdfium_c.FPDFText_CountChars(raw)
    spans: list[Span] = []
    rect = pdfium_c.FS_RECTF()
    fonts: dict[int, _Font] = {}
    text: list[str] = []
    box: Box | None = None
    font: _Font | None = None
    last: Box | None = None  # the last character's box, spaces aside

    def close() -> None:
        if text and box is not None and font is not None:
            joined = unicodedata.normalize("NFKC", "".join(text)).strip()
            if joined:
                spans.append(Span(joined, box, font.size, font.bold, font.vertical, font.turn))

    for index in range(max(count, 0)):
        code = pdfium_c.FPDFText_GetUnicode(raw, index)
        if code in (10, 13) or pdfium_c.FPDFText_HasUnicodeMapError(raw, index) == 1:
            continue  # PDFium's line breaks; a glyph with no character (not text)
        char = HYPHEN if code == PDFIUM_LINE_HYPHEN else _char(code)
        if _CONTROL.match(char):
            continue  # stored text refuses NUL; no other control character is text
        handle = pdfium_c.FPDFText_GetTextObject(raw, index)
        key = ctypes.cast(handle, ctypes.c_void_p).value or 0
        this = fonts.get(key)
        if this is None:
            this = fonts[key] = _font(raw, index, handle, shown)
        if char.isspace():
            if text:
                text.append(" ")
            continue
        pdfium_c.FPDFText_GetLooseCharBox(raw, index, rect)
        here = shown.box(rect.left, rect.bottom, rect.right, rect.top)
        if box is None or last is None or font is None or not _continues(last, here, font, this):
            close()
            text, box, font = [], here, this
        text.append(char)
        box = box.union(here)
        last = here
    close()
    return spans


def _continues(last: Box, here: Box, font: _Font, this: _Font) -> bool:
    if this.turn != font.turn:
        return False
    size = max(font.size, this.size, 1.0)
    # How far on from the last character this one starts, the way the text reads.
    along, across = {
        0: (here.x0 - last.x1, abs(here.cy - last.cy)),
        90: (here.y0 - last.y1, abs(here.cx - last.cx)),
        180: (last.x0 - here.x1, abs(here.cy - last.cy)),
        270: (last.y0 - here.y1, abs(here.cx - last.cx)),
    }[font.turn]
    return across <= LINE_SLACK * size and -OVERLAP * size <= along <= SPAN_GAP * size


def _shapes(page: Any, shown: _Shown, ink: Ink) -> None:
    left, bottom, right, top = (ctypes.c_float() for _ in range(4))
    for index in range(pdfium_c.FPDFPage_CountObjects(page)):
        obj = pdfium_c.FPDFPage_GetObject(page, index)
        kind = pdfium_c.FPDFPageObj_GetType(obj)
        if kind not in (pdfium_c.FPDF_PAGEOBJ_PATH, pdfium_c.FPDF_PAGEOBJ_IMAGE):
            continue
        if not pdfium_c.FPDFPageObj_GetBounds(obj, left, bottom, right, top):
            continue
        box = shown.box(left.value, bottom.value, right.value, top.value)
        if kind == pdfium_c.FPDF_PAGEOBJ_IMAGE:
            if box.width >= MIN_IMAGE and box.height >= MIN_IMAGE:
                ink.images.append(box)
            continue
        if not _stroked_or_filled(obj):
            continue
        ink.rules.extend(_rules(box))


def _stroked_or_filled(obj: Any) -> bool:
    fill, stroke = ctypes.c_int(), ctypes.c_int()
    if not pdfium_c.FPDFPath_GetDrawMode(obj, fill, stroke):
        return True
    return bool(fill.value or stroke.value)


def _rules(box: Box) -> list[Box]:
    """A thin shape is one rule; a larger one (a cell's box, a frame) its four edges."""
    if box.height <= RULE_THICKNESS and box.width >= MIN_RULE:
        return [box]
    if box.width <= RULE_THICKNESS and box.height >= MIN_RULE:
        return [box]
    if box.width < MIN_RULE or box.height < MIN_RULE:
        return []
    x0, y0, x1, y1 = box.x0, box.y0, box.x1, box.y1
    return [
        Box(x0, y0, x1, y0),
        Box(x0, y1, x1, y1),
        Box(x0, y0, x0, y1),
        Box(x1, y0, x1, y1),
    ]


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff]")


def _char(code: int) -> str:
    return chr(code) if code <= MAX_CODE_POINT else "\ufffd"
