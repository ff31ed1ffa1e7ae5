"""Read scanned pages by OCR: which pages need it, their images, and Tesseract's text.

Like the text readers this parses untrusted bytes (PDFium renders the page, Tesseract reads
the image), so it runs only inside the sandboxed child (search/pipeline/sandbox/process.py), which
starts the engine before its walls go up and then asks `read_scans` for each document.

Which pages (`needs_ocr`, the `auto` rule): a page is read by OCR when images cover at
least MIN_IMAGE_SHARE of it and its text layer carries fewer than CHARS_PER_SQUARE_INCH
characters per square inch of that image; and, images or not, when its text layer cannot
be read (classify.unreadable: glyphs that map to no character, or to private-use or
control characters, or letters that make no words). Measured on the corpus (docs/running/ocr.md):
a page of body text carries 30 to 40 characters per square inch of page; an image with a
caption, 2 to 3 over the image; the hidden layer of a scan OCR'd before (pypdf's
Vicksburg sample), 7 to 9 over its full-page image, and it is kept; a scan with nothing, 0.

One thread: the child may start none (seccomp), and the engine is told so
(OMP_THREAD_LIMIT=1 in its environment, which Tesseract's OpenMP obeys).
"""

import ctypes
import math
import os
from collections.abc import Iterator, Sequence
from typing import Any, BinaryIO

import pypdfium2  # type: ignore[import-untyped]
import pypdfium2.raw as pdfium_c  # type: ignore[import-untyped]

from search.pipeline.classify import nonspace, unreadable
from search.pipeline.errors import TooComplex, TooManyPages
from search.pipeline.layout.glyphs import SPAN_GAP
from search.pipeline.layout.model import Box, Ink, Span
from search.pipeline.page import OcrOrder, OnPages, Scanned
from search.pipeline.reopened import Reopened

# The auto rule (see the module's docstring).
MIN_IMAGE_SHARE = 0.05
CHARS_PER_SQUARE_INCH = 3.0
POINTS_PER_INCH = 72
# A page with this many square inches of rules (a table or a form: ten inches of a rule a
# hundredth of an inch thick), read with less mean confidence than SPARSE_BELOW, is read
# again as sparse text, and that reading kept when it is SPARSE_MARGIN more confident.
SPARSE_RULES = 0.1
SPARSE_BELOW = 0.90
# ...and never a sparse reading less confident than this: a photograph's speckle, read
# as sparse text, gives scraps of "words" at a confidence of 0.3.
SPARSE_AT_LEAST = 0.6
SPARSE_MARGIN = 0.02
SHRINK_FOR_ROUNDING = 0.998
# A line's box is about this many times its letters' size (ascenders and descenders).
OCR_LINE_HEIGHT = 1.2

# The child's environment (sandbox._child_environment): the languages to start the engine
# with ("" for a child that does no OCR) and where Tesseract's language files are.
LANGUAGES_ENV = "INGEST_OCR_LANGUAGES"
TESSDATA_ENV = "INGEST_OCR_TESSDATA"


# --------------------------------------------------------------------------- which pages


def needs_ocr(pdf: Any, texts: Sequence[str], *, force: bool = False) -> list[int]:
    """The 0-based indexes of the pages of `pdf` (a pypdfium2 PdfDocument whose page texts
    are `texts`) that the auto rule, or `force`, sends to OCR."""
    if force:
        return list(range(len(texts)))
    wanted = []
    for index, text in enumerate(texts):
        page = pdf[index]
        try:
            width, height = page.get_size()
            chars = nonspace(text)
            # Text no image on the page could outweigh (a whole page of image would not):
            # the page's objects need not be walked. Most born-digital pages stop here.
            if chars >= CHARS_PER_SQUARE_INCH * width * height / POINTS_PER_INCH**2:
                continue
            covered = _image_area(page.raw, width, height)
        finally:
            page.close()
        if width * height <= 0 or covered / (width * height) < MIN_IMAGE_SHARE:
            continue
        if chars < CHARS_PER_SQUARE_INCH * covered / POINTS_PER_INCH**2:
            wanted.append(index)
    return wanted


def _images(page: ctypes.c_void_p) -> Iterator[ctypes.c_void_p]:
    """The page's image objects, forms walked into."""
    count, get = pdfium_c.FPDFPage_CountObjects, pdfium_c.FPDFPage_GetObject
    stack = [get(page, index) for index in range(count(page))]
    while stack:
        obj = stack.pop()
        kind = pdfium_c.FPDFPageObj_GetType(obj)
        if kind == pdfium_c.FPDF_PAGEOBJ_FORM:
            inner = pdfium_c.FPDFFormObj_CountObjects(obj)
            stack.extend(pdfium_c.FPDFFormObj_GetObject(obj, i) for i in range(inner))
        elif kind == pdfium_c.FPDF_PAGEOBJ_IMAGE:
            yield obj


def _image_area(page: ctypes.c_void_p, width: float, height: float) -> float:
    """Points² of the page its images cover, each clipped to the page (overlaps counted
    twice, capped at the page)."""
    area = 0.0
    for image in _images(page):
        left, bottom, right, top = (ctypes.c_float() for _ in range(4))
        if pdfium_c.FPDFPageObj_GetBounds(image, left, bottom, right, top):
            w = min(width, right.value) - max(0.0, left.value)
            h = min(height, top.value) - max(0.0, bottom.value)
            area += max(0.0, w) * max(0.0, h)
    return min(area, width * height)


def _largest_image(page: ctypes.c_void_p) -> tuple[int, int]:
    """The pixel size of the page's largest image (0, 0 without one)."""
    largest = (0, 0)
    for image in _images(page):
        w, h = ctypes.c_uint(), ctypes.c_uint()
        known = pdfium_c.FPDFImageObj_GetImagePixelSize(image, w, h)
        if known and w.value * h.value > largest[0] * largest[1]:
            largest = (w.value, h.value)
    return largest


# --------------------------------------------------------------------------- the engine


class Engine:
    """Tesseract, through tesserocr, started once per child with its languages.

    A page is read as Tesseract reads a page by default (PSM_AUTO: its columns and blocks
    found first, so the text comes in reading order). A page ruled like a form or a
    table (SPARSE_RULES) that it reads with a mean confidence under SPARSE_BELOW is read
    again as sparse text (PSM_SPARSE_TEXT: every line found on its own, in no order), and
    that reading is kept when it is at least SPARSE_MARGIN more confident: the default
    layout analysis merges a form's boxes into blocks across labels and fields
    (docs/running/ocr.md has the figures). A page of prose read with little confidence (a
    poor scan, a language not named) is not read twice: sparse text does no better there.
    """

    def __init__(self, languages: str, tessdata: str) -> None:
        import tesserocr  # type: ignore[import-untyped]

        # numpy, for the page's image, is loaded here too, behind no wall yet; and only in
        # a child that reads by OCR.
        from search.pipeline import page_image

        self._page_image = page_image
        self._psm = tesserocr.PSM
        self.languages = languages
        self._api = tesserocr.PyTessBaseAPI(
            path=tessdata.rstrip("/") + "/",
            lang=languages,
            oem=tesserocr.OEM.LSTM_ONLY,
            # A pass that looks for staves of music to leave out: documents have none.
            variables={"pageseg_apply_music_mask": "0"},
        )

    def read(self, image: Any) -> Scanned:
        """The text of `image` (a greyscale PIL image at the dpi its `info` gives, as
        `render` makes it) and the engine's mean confidence, read straight and without its
        rules (search/pipeline/page_image.py); with the words read, as the page's ink."""
        dpi = image.info["dpi"][0]
        image, rules = self._page_image.without_rules(self._page_image.straightened(image), dpi)
        reading = self._reading(image, self._psm.AUTO, dpi)
        if rules >= SPARSE_RULES and reading.confidence < SPARSE_BELOW:
            sparse = self._reading(image, self._psm.SPARSE_TEXT, dpi)
            if sparse.confidence >= max(SPARSE_AT_LEAST, reading.confidence + SPARSE_MARGIN):
                reading = sparse
        return reading

    def _reading(self, image: Any, mode: int, dpi: float) -> Scanned:
        self._api.SetPageSegMode(mode)
        self._api.SetImage(image)
        try:
            self._api.Recognize()
            text = self._api.GetUTF8Text() or ""
            confidence = max(0, self._api.MeanTextConf()) / 100
            lines = self._lines()
        finally:
            self._api.Clear()
        confidence = confidence if nonspace(text) else 0.0
        points = POINTS_PER_INCH / dpi
        ink = ocr_ink(lines, image.width * points, image.height * points, points, confidence)
        return Scanned(text=text, confidence=confidence, ink=ink)

    def _lines(self) -> list[list[tuple[str, tuple[int, int, int, int]]]]:
        """The words read, line by line, each with its box in pixels."""
        import tesserocr

        level, line_level = tesserocr.RIL.WORD, tesserocr.RIL.TEXTLINE
        lines: list[list[tuple[str, tuple[int, int, int, int]]]] = []
        iterator = self._api.GetIterator()
        if iterator is None:
            return lines
        for word in tesserocr.iterate_level(iterator, level):
            try:  # an element with no text raises, where one would expect ""
                text = (word.GetUTF8Text(level) or "").strip()
            except RuntimeError:
                continue
            box = word.BoundingBox(level)
            if not text or box is None:
                continue
            if not lines or word.IsAtBeginningOf(line_level):
                lines.append([])
            lines[-1].append((text, box))
        return lines


def ocr_ink(
    lines: list[list[tuple[str, tuple[int, int, int, int]]]],
    width: float,
    height: float,
    points: float,
    confidence: float,
) -> Ink:
    """A page's ink from the words OCR read (boxes in pixels, `points` to a pixel): each
    line's words into spans, split where a gap is wider than glyphs.SPAN_GAP times the
    line's size (its height, less the room above and below letters)."""
    ink = Ink(width, height, source="ocr", confidence=confidence)
    for line in lines:
        boxes = [
            Box(x0 * points, y0 * points, x1 * points, y1 * points) for _, (x0, y0, x1, y1) in line
        ]
        size = max(box.height for box in boxes) / OCR_LINE_HEIGHT
        words: list[str] = []
        span_box: Box | None = None
        for (text, _), box in zip(line, boxes, strict=True):
            if span_box is not None and box.x0 - span_box.x1 > SPAN_GAP * size:
                ink.spans.append(Span(" ".join(words), span_box, size))
                words, span_box = [], None
            words.append(text)
            span_box = box if span_box is None else span_box.union(box)
        if span_box is not None:
            ink.spans.append(Span(" ".join(words), span_box, size))
    return ink


def start_engine() -> Engine | None:
    """The child's engine, from its environment; None for a child that does no OCR."""
    languages = os.environ.get(LANGUAGES_ENV, "").strip()
    if not languages:
        return None
    return Engine(languages, os.environ.get(TESSDATA_ENV, ""))


# --------------------------------------------------------------------------- reading


def render(pdf: Any, index: int, order: OcrOrder) -> Any:
    """Page `index` of `pdf` as a greyscale PIL image at `order.dpi`, or lower when the
    page would be larger than `order.max_pixels` (its `info["dpi"]` says which).
    TooComplex when one of its images alone holds more pixels than that (decoding it
    would take the memory, whatever the dpi)."""
    page = pdf[index]
    try:
        image_w, image_h = _largest_image(page.raw)
        if image_w * image_h > order.max_pixels:
            raise TooComplex(
                f"Page {index + 1} holds an image of {image_w} x {image_h} pixels; the limit "
                f"is {order.max_pixels:,} pixels (INGEST_OCR_MAX_PIXELS)."
            )
        width, height = page.get_size()
        scale = order.dpi / POINTS_PER_INCH
        if width * height * scale * scale > order.max_pixels:
            # A little under: PDFium rounds each side up to whole pixels.
            scale = math.sqrt(order.max_pixels / (width * height)) * SHRINK_FOR_ROUNDING
        image = page.render(scale=scale, grayscale=True).to_pil()
        image.info["dpi"] = (scale * POINTS_PER_INCH,) * 2  # Pillow's place for it
        return image
    finally:
        page.close()


def read_scans(
    source: bytes | BinaryIO,
    texts: list[str],
    order: OcrOrder,
    engine: Engine | None,
    *,
    on_pages: OnPages | None = None,
) -> tuple[list[int], dict[int, Scanned], dict[int, str]]:
    """The pages that need OCR (0-based): by the auto rule (needs_ocr), and those whose
    text layer cannot be read (classify.unreadable), each of these with why; and, when
    `order.mode` is "read", what OCR read on each of them (a page where it read nothing
    is there, with no text).

    Raises TooManyPages past `order.max_pages` pages to read (before any is read), and
    TooComplex for a page holding an image past the pixel cap. `on_pages(read, total)` is
    told before each page is read by OCR, and after the last: the parent holds each page
    to `page_seconds` of CPU time from its frame (sandbox.Sandbox.read_pages). `source` is
    the file, open (PDFium reads what it needs of it), or its bytes.
    """
    why = {index: reason for index, text in enumerate(texts) if (reason := unreadable(text))}
    try:
        pdf = Reopened(source)
    except pypdfium2.PdfiumError:
        return [], {}, {}  # the text reader could read it, PDFium cannot: keep its text
    try:
        wanted = sorted(set(needs_ocr(pdf, texts, force=order.force)) | set(why))
        if len(wanted) > order.max_pages:
            raise TooManyPages(
                f"The PDF has {len(wanted)} pages to read by OCR; the limit is "
                f"{order.max_pages} (INGEST_OCR_MAX_PAGES)."
            )
        if order.mode != "read" or not wanted:
            return wanted, {}, why
        if engine is None:
            raise RuntimeError("an OCR reading asked of a child started without an engine")
        scanned: dict[int, Scanned] = {}
        for done, index in enumerate(wanted):
            if on_pages is not None:
                on_pages(done, len(wanted))
            scanned[index] = _read_page(pdf, index, order, engine)
        if on_pages is not None:
            on_pages(len(wanted), len(wanted))
        return wanted, scanned, why
    finally:
        pdf.close()


def _read_page(pdf: Any, index: int, order: OcrOrder, engine: Engine) -> Scanned:
    return engine.read(render(pdf, index, order))
