"""Decide from extracted text alone whether a document has a text layer worth indexing."""

import re
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


# A text layer is unreadable past these shares of its characters (or of its words, for
# letters that make no words): its glyphs draw text, but what it says is not that text.
UNREADABLE_SHARE = 0.3
NO_VOWEL_SHARE = 0.6
# Under this many characters (or words), a page says too little to judge.
JUDGED_CHARACTERS = 40
JUDGED_WORDS = 10
_PRIVATE_USE = re.compile("[\ue000-\uf8ff\U000f0000-\U0010ffff]")
_NOT_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffd\ufffe\uffff]")
_WORD = re.compile(r"[^\W\d_]{3,}")
_LATIN = re.compile(r"[a-zA-Z\u00c0-\u024f]")
_OTHER_ALPHABETS = re.compile(r"[\u0370-\u03ff\u0400-\u04ff]")  # Greek, Cyrillic
_VOWEL = re.compile(r"[aeiouyàáâãäåæèéêëìíîïòóôõöøùúûüýÿœąęěůų]", re.IGNORECASE)


def unreadable(text: str) -> str | None:
    """Why a page's text layer cannot be read, if it cannot: its glyphs map to no
    character (a font without a Unicode map: pdfminer's "(cid:N)"), to private-use or
    control characters, or to letters that make no words (mixing alphabets inside
    words, or Latin words without vowels: a font's glyph ids taken for letters, an old
    OCR's wrong alphabet). None for a readable page, or one with too little to judge."""
    unmapped = len(UNMAPPED_GLYPH.findall(text))
    rest = UNMAPPED_GLYPH.sub("", text)
    total = unmapped + sum(not ch.isspace() for ch in rest)
    if total < JUDGED_CHARACTERS:
        return None
    if unmapped > UNREADABLE_SHARE * total:
        return "its glyphs map to no character"
    if len(_PRIVATE_USE.findall(rest)) > UNREADABLE_SHARE * total:
        return "its glyphs map to private-use characters"
    if len(_NOT_TEXT.findall(rest)) > UNREADABLE_SHARE * total:
        return "its glyphs map to control characters"
    words = _WORD.findall(rest)
    if len(words) < JUDGED_WORDS:
        return None
    mixed = sum(1 for w in words if _LATIN.search(w) and _OTHER_ALPHABETS.search(w))
    if mixed > UNREADABLE_SHARE * len(words):
        return "its words mix alphabets"
    latin = [w for w in words if _LATIN.match(w)]
    if len(latin) >= JUDGED_WORDS and sum(1 for w in latin if not _VOWEL.search(w)) > (
        NO_VOWEL_SHARE * len(latin)
    ):
        return "its letters make no words"
    return None
