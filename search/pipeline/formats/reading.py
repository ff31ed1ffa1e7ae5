"""What a format's reader gives (FormatReading, Attachment), and the pieces every reader
shares: cleaning a block's text, a table's block from its cells, and the reading of a
pageless file (one notional page, no boxes).
"""

from __future__ import annotations

import bisect
import dataclasses
import re
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from lxml import etree  # type: ignore[import-untyped]

from search.pipeline.errors import Corrupt, TooManyPages
from search.pipeline.layout.model import (
    TABLE,
    Block,
    Box,
    Cell,
    PageSize,
    Structure,
    rows_text,
)
from search.pipeline.page import Attachment

# A pageless file's one notional page, and where its blocks are on it: nowhere drawn.
PAGELESS = PageSize(0.0, 0.0)
NOWHERE = Box(0.0, 0.0, 0.0, 0.0)
# A slide of a file that does not say its size: PowerPoint's and Impress's default
# (10 x 7.5 inches).
DEFAULT_SLIDE = PageSize(720.0, 540.0)
# Slots a table's grid may have before its empty rows and columns are dropped.
MAX_GRID = 1_000_000

# Control characters no block keeps (NUL among them); tab and newlines are whitespace.
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b\ufeff]")
_SPACES = re.compile(r"\s+")
# What a library raises on a file it cannot make sense of: a part missing (KeyError), a
# value out of its range, XML that does not parse, a ZIP entry that does not unpack.
DAMAGE: tuple[type[Exception], ...] = (
    KeyError,
    ValueError,
    IndexError,
    TypeError,
    AttributeError,
    zipfile.BadZipFile,
    EOFError,
    etree.LxmlError,
)


@dataclass(frozen=True)
class FormatReading:
    """What reading a file that is not a PDF found: each page's text (one per slide; for a
    pageless file, one item holding the whole text), its structure, what the file says of
    itself (`metadata`) and the files it carries (`attachments`)."""

    texts: list[str]
    structure: Structure
    metadata: dict[str, str] = field(default_factory=dict)
    attachments: list[Attachment] = field(default_factory=list)


def parse_xml(data: bytes) -> etree._Element:
    """XML of a part of a file, parsed with no DTD loaded, no entity resolved, nothing
    fetched and libxml2's bounds on depth and text size kept. Raises etree.XMLSyntaxError
    (an LxmlError: Corrupt under damaged_as)."""
    parser = etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
    )
    return etree.fromstring(data, parser=parser)


def at_most(count: int, max_pages: int, said: str, parts: str) -> None:
    """Refuse a file of more `parts` (slides, sheets) than a document may have pages."""
    if count > max_pages:
        raise TooManyPages(
            f"This {said} has {count:,} {parts}, more than the {max_pages:,} a document may have."
        )


def clean(text: str) -> str:
    """A block's text: control characters out, every run of whitespace one space."""
    return _SPACES.sub(" ", _CONTROLS.sub("", text)).strip()


def clean_keeping_lines(text: str) -> str:
    """Code and preformatted text: control characters out, its line breaks and indents
    kept, blank lines at either end dropped."""
    text = _CONTROLS.sub("", text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", "    "))
    lines = [line.rstrip() for line in text.split("\n")]
    return "\n".join(lines).strip("\n")


def table_block(cells: list[Cell], *, page: int = 1, box: Box = NOWHERE) -> Block | None:
    """A table's block, or None for a table with no text in it."""
    if not any(cell.text for cell in cells):
        return None
    return Block(TABLE, rows_text(cells), page, box, cells=_compact(cells))


def _compact(cells: list[Cell]) -> list[Cell]:
    """A sparse table's cells moved together: the rows and columns where no cell starts
    are dropped when its grid would pass MAX_GRID slots (a sheet with a cell in A1 and
    one in XFD1048576 has 17 billion), which whoever draws the grid would have to hold."""
    height = max(cell.row + cell.rows for cell in cells)
    width = max(cell.column + cell.columns for cell in cells)
    if height * width <= MAX_GRID:
        return cells
    rows = sorted({cell.row for cell in cells})
    columns = sorted({cell.column for cell in cells})
    return [
        dataclasses.replace(
            cell,
            row=bisect.bisect_left(rows, cell.row),
            column=bisect.bisect_left(columns, cell.column),
            rows=bisect.bisect_left(rows, cell.row + cell.rows)
            - bisect.bisect_left(rows, cell.row),
            columns=bisect.bisect_left(columns, cell.column + cell.columns)
            - bisect.bisect_left(columns, cell.column),
        )
        for cell in cells
    ]


class Blocks(list[Block]):
    """A pageless file's blocks as a reader finds them: empty ones never kept."""

    def add(self, kind: str, text: str, *, level: int = 0, keep_lines: bool = False) -> None:
        text = clean_keeping_lines(text) if keep_lines else clean(text)
        if text:
            self.append(Block(kind, text, 1, NOWHERE, level=level))

    def add_table(self, cells: list[Cell]) -> None:
        block = table_block(cells)
        if block is not None:
            self.append(block)


def whole_text(blocks: list[Block]) -> str:
    return "\n\n".join(block.text for block in blocks)


def pageless(
    blocks: list[Block],
    *,
    metadata: dict[str, str] | None = None,
    attachments: list[Attachment] | None = None,
) -> FormatReading:
    """The reading of a file with no pages a person sees: one notional page, every block
    on it with no box; its one text is all its blocks' (furniture too, as a PDF page's
    text layer holds its header)."""
    return FormatReading(
        texts=[whole_text(blocks)],
        structure=Structure([PAGELESS], list(blocks), paged=False),
        metadata=dict(metadata or {}),
        attachments=list(attachments or []),
    )


@contextmanager
def damaged_as(said: str, *more: type[Exception]) -> Iterator[None]:
    """Turns what a library raises on a damaged file (DAMAGE, and `more` of its own) into
    Corrupt, saying what the file is ("Word document"). MemoryError is not among them:
    it goes up untouched, for the sandbox to answer."""
    try:
        yield
    except (*DAMAGE, *more) as error:
        raise Corrupt(f"This {said} is damaged: {_why(error)}") from error


def _why(error: Exception) -> str:
    said = error.args[0] if len(error.args) == 1 and isinstance(error.args[0], str) else ""
    said = clean(said or str(error)) or type(error).__name__
    return said if len(said) <= 200 else said[:199] + "…"
