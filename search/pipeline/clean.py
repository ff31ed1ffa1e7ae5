"""Make extracted text fit to store and to embed."""

import re
import unicodedata

from search.pipeline.page import UNMAPPED_GLYPH

_HYPHENATED = re.compile(r"(\w)-\n\s*(\w)")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff]")
_SPACES = re.compile(r"[ \t\u00a0]+")
_BLANK_LINES = re.compile(r"\n\s*\n+")


def clean_text(text: str) -> str:
    """Normalise unicode, join hyphenated line breaks, drop control characters
    (Postgres text refuses NUL) and collapse runs of whitespace."""
    text = unicodedata.normalize("NFKC", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _CONTROL.sub("", text)
    text = UNMAPPED_GLYPH.sub("", text)
    text = _HYPHENATED.sub(r"\1\2", text)
    text = _SPACES.sub(" ", text)
    text = _BLANK_LINES.sub("\n\n", text)
    lines = (line.strip() for line in text.split("\n"))
    return "\n".join(lines).strip()
