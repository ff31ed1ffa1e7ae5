"""A page of a PDF drawn as a PNG: the page images the web serves (documents/pages.py).

PDFium draws the page as it is shown (its crop box, its rotation applied) on white, at a
given width in pixels; PIL writes the PNG. Drawing decodes the page's images (JPEG, JPEG
2000, JBIG2, CCITT), code the text readers never reach, so this parses untrusted bytes
like them and runs only inside the sandboxed child (search/pipeline/sandbox/process.py),
whose time and memory limits bound it.
"""

from __future__ import annotations

import io
import math
from typing import BinaryIO

import pypdfium2  # type: ignore[import-untyped]
from PIL import Image, ImageChops

from search.pipeline.errors import Corrupt, NoSuchPage

# The most pixels a drawing may have: a page far taller than it is wide is drawn
# narrower than asked (an A4 page at 2,000 px wide has 5.7 million).
MAX_PIXELS = 12_000_000
# Colours a page with colour in it is drawn in (a palette PNG): a grey page keeps its 256
# greys exactly; a photograph shows some banding, at a fifth of the bytes of full colour.
PALETTE_COLOURS = 256


def render_png(fp: BinaryIO, *, number: int, width: int) -> bytes:
    """Page `number` (1-based) of the PDF in `fp` as a PNG `width` pixels wide (fewer for a
    page past MAX_PIXELS), its height as the page's shape makes it. Raises NoSuchPage,
    and Corrupt when PDFium cannot open the file or the page."""
    try:
        pdf = pypdfium2.PdfDocument(fp)
    except pypdfium2.PdfiumError as exc:
        raise Corrupt(f"PDFium cannot open the file: {exc}") from None
    try:
        count = len(pdf)
        if not 1 <= number <= count:
            raise NoSuchPage(f"The PDF has {count} pages; there is no page {number}.", pages=count)
        try:
            page = pdf[number - 1]
        except pypdfium2.PdfiumError as exc:
            raise Corrupt(f"PDFium cannot open page {number}: {exc}") from None
        try:
            return _png(page, width)
        finally:
            page.close()
    finally:
        pdf.close()


def _png(page: pypdfium2.PdfPage, width: int) -> bytes:
    points_wide, points_high = page.get_size()  # as shown: the rotation applied
    if points_wide <= 0 or points_high <= 0:
        raise Corrupt("The page has no size.")
    width = max(1, min(width, math.floor(math.sqrt(MAX_PIXELS * points_wide / points_high))))
    # PDFium's bitmap is ceil(points x scale) pixels: a hair under width / points makes it
    # `width` exactly, where width / points itself may round up to one more.
    scale = width / points_wide * (1 - 1e-9)
    bitmap = page.render(scale=scale, draw_annots=True, may_draw_forms=False, rev_byteorder=True)
    try:
        image = _fewer_colours(bitmap.to_pil())
    finally:
        bitmap.close()
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def _fewer_colours(image: Image.Image) -> Image.Image:
    """`image` (RGB) in greys when it has no colour, else in a palette: a text page's PNG
    is about half the bytes of full colour, and as quick to write."""
    red, green, blue = image.split()
    grey = ImageChops.difference(red, green).getbbox() is None
    if grey and ImageChops.difference(green, blue).getbbox() is None:
        return image.convert("L")
    return image.quantize(PALETTE_COLOURS, method=Image.Quantize.FASTOCTREE)
