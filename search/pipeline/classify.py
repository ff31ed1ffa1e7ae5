"""Decide from extracted text alone whether a document has a text layer worth indexing."""

from collections.abc import Sequence

from search.pipeline.errors import NoText
from search.pipeline.page import UNMAPPED_GLYPH, Page

# About one line of printed text, in non-space characters.
LINE = 50

NO_TEXT_DETAIL = "No text layer: it looks scanned, and OCR is off (INGEST_OCR=off)."
# With OCR on, a document whose pages hold no image to read and no text.
NO_IMAGES_DETAIL = "No text layer, and no page holds an image that OCR could read."
# Read by OCR, and nothing found (search/pipeline/ocr.py).
OCR_FOUND_NOTHING = "OCR found no text on the {pages} it read, and the text layer has none."


def nonspace(text: str) -> int:
    """How many characters of `text` are text: neither whitespace nor unmapped glyphs."""
    return sum(not ch.isspace() for ch in UNMAPPED_GLYPH.sub("", text))


def is_scant(texts: Sequence[str]) -> bool:
    """True when the pages carry less than a line of text each, on average."""
    return sum(nonspace(text) for text in texts) < LINE * len(texts)


def has_text(pages: Sequence[Page]) -> bool:
    """Whether any page holds a letter or digit, not counting pdfminer's "(cid:N)"."""
    return any(ch.isalnum() for page in pages for ch in UNMAPPED_GLYPH.sub("", page.text))


def classify_text(pages: Sequence[Page], *, detail: str = NO_TEXT_DETAIL) -> None:
    """Raise NoText (saying `detail`) when `pages` (raw or cleaned) carry no text layer
    worth indexing.

    Two rules, both about what a scan looks like once its text is extracted:

    1. No letter or digit anywhere, not counting pdfminer's "(cid:N)" stand-ins for
       glyphs it could not map: nothing to index.
    2. Scant text (under a line per page on average, see `LINE`) and at least one page
       with no text at all. Born-digital documents have text on every page; a document
       of images carries, at most, a label or a caption on some of its pages.

    A short document with a few words on every page (a chart, a one-line note) passes.
    So does a scan with a stamp on every page: text alone cannot tell it apart.
    """
    texts = [UNMAPPED_GLYPH.sub("", page.text) for page in pages]
    if not has_text(pages):
        raise NoText(detail)
    if is_scant(texts) and any(nonspace(text) == 0 for text in texts):
        raise NoText(detail)


def takes_ocr(layer: str, read: str, *, force: bool) -> bool:
    """Whether a page OCR read takes what OCR read (`read`) rather than its text layer
    (`layer`): when OCR found more, or (`force`) anything."""
    found = nonspace(read)
    return found > 0 and (force or found > nonspace(layer))
