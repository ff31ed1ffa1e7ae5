"""Plain text: paragraphs between blank lines, and the headings a plain-text writer marks.

A paragraph's lines are joined with a space (a word hyphenated at a line's end is left
as it is: "exam- ple" is still found by "exam"). A heading is a short line (under 80
characters, no full stop at its end) standing alone between blank lines that is:
- underlined with === (level 1) or --- (level 2) on the line below it;
- numbered: "1. Scope" is level 1, "2.3 Costs" level 2, "2.3.1 Staff" level 3;
- or in capitals throughout ("RESULTS"): level 1.
"""

from __future__ import annotations

import re

from search.pipeline.formats.encoding import decode
from search.pipeline.formats.reading import Blocks, FormatReading, pageless
from search.pipeline.layout.model import HEADING, PARAGRAPH

HEADING_CHARS = 80
_BLANK_LINES = re.compile(r"\n[^\S\n]*\n+")
_UNDERLINE = re.compile(r"^(=+|-+)[ \t]*$")
# "1. Scope", "2.3 Costs", "2.3.1. Staff": a section's number and its name. A single
# number needs its dot, or every line starting with a year would be a heading.
_NUMBERED = re.compile(r"^(?:\d{1,3}\.|\d{1,3}(?:\.\d{1,3})+\.?)[ \t]+\S")


def read_text(data: bytes) -> FormatReading:
    return pageless(text_blocks(decode(data)))


def text_blocks(text: str) -> Blocks:
    """The blocks of a plain text (an e-mail's body too)."""
    blocks = Blocks()
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\f", "\n\n")
    for chunk in _BLANK_LINES.split(text):
        lines = [line.strip() for line in chunk.strip("\n").split("\n") if line.strip()]
        if not lines:
            continue
        found = _heading(lines)
        if found is not None:
            blocks.add(HEADING, lines[0], level=found)
        else:
            blocks.add(PARAGRAPH, " ".join(lines))
    return blocks


def _heading(lines: list[str]) -> int | None:
    """The level of the heading these lines between blank lines are, or None."""
    first = lines[0]
    if len(first) >= HEADING_CHARS or first.endswith("."):
        return None
    if len(lines) == 2:
        underline = _UNDERLINE.match(lines[1])
        if underline is None or len(lines[1]) < 3:
            return None
        return 1 if underline.group(1).startswith("=") else 2
    if len(lines) != 1:
        return None
    if _NUMBERED.match(first):
        number = first.split(None, 1)[0].rstrip(".")
        return number.count(".") + 1
    letters = [c for c in first if c.isalpha()]
    if len(letters) >= 2 and first.upper() == first and any(c.isupper() for c in letters):
        return 1
    return None
