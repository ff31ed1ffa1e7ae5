"""A page of extracted text and pdfminer's mark for a glyph it could not map.

A leaf: the extractor, the reader, the classifier, the cleaner and the splitter all use
these, and it imports none of them.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Page:
    number: int  # 1-based
    text: str


# Told of the pages read so far as a reader goes: (pages read, pages in the file). Called
# once with 0 when the count is known, before any page is read, then after each page.
OnPages = Callable[[int, int], None]


# pdfminer's stand-in for a glyph it cannot map to a character: not text anyone can search.
UNMAPPED_GLYPH = re.compile(r"\(cid:\d+\)")
