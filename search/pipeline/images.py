"""Images as documents: each image, or each page of a multi-page TIFF, is a page whose
text OCR reads.

Like the PDF readers this decodes untrusted bytes (Pillow's decoders), so it runs only
inside the sandboxed child (search/pipeline/sandbox/child.py). A frame's size is read
from its header before anything is decoded: one past the pixel cap
(INGEST_OCR_MAX_PIXELS, the cap a PDF's images have) is refused as a decompression bomb
would be, before it takes the memory. The orientation a camera wrote in EXIF is honoured,
so a photograph taken sideways is read upright, and its boxes are those of the upright
image. A transparent ground is read as white, and light letters on a dark ground are
turned dark on light before OCR reads them. A page's size in points comes from the
resolution the file gives (72 points an inch), or 300 dots an inch when it gives none
that is believable.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING, BinaryIO

from PIL import Image, ImageOps, ImageSequence, ImageStat, UnidentifiedImageError

from search.pipeline.errors import Corrupt, NoSuchPage, TooComplex, TooManyPages
from search.pipeline.page import OcrOrder, OnPages, Scanned

if TYPE_CHECKING:
    from search.pipeline.ocr import Engine

POINTS_PER_INCH = 72
DEFAULT_DPI = 300.0  # a scan's usual resolution, for a file that says none
BELIEVABLE_DPI = (50.0, 2400.0)
# An image whose mean grey is below this is light letters on a dark ground (a screenshot
# of a dark theme, a slide): turned to dark on light, the way OCR reads best.
DARK_BELOW = 100
TONE_EDGE, TWO_TONES = 64, 0.8  # of two tones: this share of pixels this near black or white


def read_image(fp: BinaryIO, *, max_pages: int, on_pages: OnPages | None = None) -> list[str]:
    """Each page's text before OCR: none, one empty text per frame. Raises Corrupt for
    an image Pillow cannot open, TooManyPages past `max_pages` frames."""
    count = _frame_count(fp, max_pages)
    if on_pages is not None:
        on_pages(0, count)
        on_pages(count, count)
    return [""] * count


def read_frames(
    fp: BinaryIO,
    texts: list[str],
    order: OcrOrder,
    engine: Engine | None,
    *,
    on_pages: OnPages | None = None,
) -> tuple[list[int], dict[int, Scanned], dict[int, str]]:
    """As ocr.read_scans, for an image: every frame needs OCR, and in the "read" mode
    each is read. Raises TooManyPages past `order.max_pages` frames to read, TooComplex
    for a frame past `order.max_pixels`."""
    wanted = list(range(len(texts)))
    if len(wanted) > order.max_pages:
        raise TooManyPages(
            f"The image has {len(wanted)} pages to read by OCR; the limit is "
            f"{order.max_pages} (INGEST_OCR_MAX_PAGES)."
        )
    if order.mode != "read":
        return wanted, {}, {}
    if engine is None:
        raise RuntimeError("an OCR reading asked of a child started without an engine")
    scanned: dict[int, Scanned] = {}
    for index, frame in enumerate(_frames(fp, order.max_pixels)):
        if on_pages is not None:
            on_pages(index, len(wanted))
        scanned[index] = engine.read(frame)
    if on_pages is not None:
        on_pages(len(wanted), len(wanted))
    return wanted, scanned, {}


def render_image_png(fp: BinaryIO, *, number: int, width: int, max_pixels: int) -> bytes:
    """Page `number` (1-based) of the image in `fp`, upright, as a PNG `width` pixels
    wide (never wider than the image); only that page is decoded. Raises NoSuchPage,
    Corrupt, TooComplex."""
    image = _open(fp)
    count = getattr(image, "n_frames", 1)
    if not 1 <= number <= count:
        raise NoSuchPage(f"The image has {count} pages; there is no page {number}.", pages=count)
    try:
        image.seek(number - 1)
    except (EOFError, OSError) as exc:
        raise Corrupt(f"Page {number} of the image is damaged ({exc}).") from None
    frame = _upright(image, number - 1, max_pixels, grey=False)
    if frame.width > width:
        frame = frame.resize((width, max(1, round(frame.height * width / frame.width))))
    out = io.BytesIO()
    frame.save(out, format="PNG")
    return out.getvalue()


def _open(fp: BinaryIO) -> Image.Image:
    fp.seek(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # our own pixel cap stands in for Pillow's warning
        try:
            return Image.open(fp)
        except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
            raise Corrupt(f"This image cannot be opened: it may be damaged ({exc}).") from None


def _frame_count(fp: BinaryIO, max_pages: int) -> int:
    count = getattr(_open(fp), "n_frames", 1)
    if count > max_pages:
        raise TooManyPages(f"The image has {count} pages; the limit is {max_pages}.")
    return count


def _frames(fp: BinaryIO, max_pixels: int) -> Iterator[Image.Image]:
    """Each frame as OCR reads it (_upright, in greys)."""
    image = _open(fp)
    for index, frame in enumerate(ImageSequence.Iterator(image)):
        yield _upright(frame, index, max_pixels, grey=True)


def _upright(frame: Image.Image, index: int, max_pixels: int, *, grey: bool) -> Image.Image:
    """Frame `index` upright (its EXIF orientation applied), in greys for OCR (`grey`,
    light letters on dark turned dark on light), with its resolution in info["dpi"];
    checked against `max_pixels` before it is decoded."""
    width, height = frame.size
    if width * height > max_pixels:
        raise TooComplex(
            f"Page {index + 1} of the image is {width} x {height} pixels; the limit is "
            f"{max_pixels:,} pixels (INGEST_OCR_MAX_PIXELS). It may be a decompression bomb."
        )
    dpi = _dpi(frame)
    try:
        upright = _on_white(ImageOps.exif_transpose(frame))
        upright = upright.convert("L" if grey else "RGB")
    except (OSError, SyntaxError, ValueError) as exc:
        raise Corrupt(f"Page {index + 1} of the image is damaged ({exc}).") from None
    if grey and _light_on_dark(upright):
        upright = ImageOps.invert(upright)
    upright.info["dpi"] = (dpi, dpi)
    return upright


def _light_on_dark(grey: Image.Image) -> bool:
    """Light letters on a dark ground (a dark theme's screenshot, a slide): dark on the
    whole, and of two tones, where a dark photograph's greys spread between them."""
    if ImageStat.Stat(grey).mean[0] >= DARK_BELOW:
        return False
    counts = grey.histogram()
    extremes = sum(counts[:TONE_EDGE]) + sum(counts[256 - TONE_EDGE :])
    return extremes >= TWO_TONES * grey.width * grey.height


def _on_white(image: Image.Image) -> Image.Image:
    """`image` laid on white where it is transparent: a transparent ground is black once
    its transparency is dropped, and black letters on it vanish."""
    if image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info:
        rgba = image.convert("RGBA")
        ground = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        return Image.alpha_composite(ground, rgba)
    return image


def _dpi(frame: Image.Image) -> float:
    given = frame.info.get("dpi")
    try:
        dpi = float(given[0]) if given else 0.0
    except (TypeError, ValueError, IndexError):
        dpi = 0.0
    low, high = BELIEVABLE_DPI
    return dpi if low <= dpi <= high else DEFAULT_DPI
