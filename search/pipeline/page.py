"""A page of extracted text and pdfminer's mark for a glyph it could not map.

A leaf: the extractor, the reader, the classifier, the cleaner and the splitter all use
these, and it imports none of them.
"""

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Page:
    number: int  # 1-based
    text: str


# pdfminer's stand-in for a glyph it cannot map to a character: not text anyone can search.
UNMAPPED_GLYPH = re.compile(r"\(cid:\d+\)")
