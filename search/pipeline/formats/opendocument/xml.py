"""What the OpenDocument readers share: the namespaces, a paragraph's text, lengths, and
a table's cells with their repeats and spans."""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterator

from lxml import etree  # type: ignore[import-untyped]

from search.pipeline.formats.reading import clean

_NAMESPACES = {
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
    "style": "urn:oasis:names:tc:opendocument:xmlns:style:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
    "draw": "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0",
    "presentation": "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0",
    "fo": "urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0",
    "svg": "urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0",
    "dc": "http://purl.org/dc/elements/1.1/",
    "meta": "urn:oasis:names:tc:opendocument:xmlns:meta:1.0",
}
# Points in each unit a length may be written in.
_POINTS = {"cm": 72 / 2.54, "mm": 72 / 25.4, "in": 72.0, "pt": 1.0, "pc": 12.0, "px": 0.75}
MAX_SPAN = 1000  # rows or columns one cell may span, as in HTML
_LENGTH = re.compile(r"^\s*(-?[\d.]+)\s*(cm|mm|in|pt|pc|px)?\s*$")
# Inside a paragraph, what is not its text: comments, and frames (read as blocks apart).
_SKIPPED_INLINE = ("office:annotation", "office:annotation-end", "draw:frame", "draw:a")


def q(name: str) -> str:
    """ "text:p" as lxml names it: "{urn:...:text:1.0}p"."""
    prefix, local = name.split(":")
    return f"{{{_NAMESPACES[prefix]}}}{local}"


_S, _TAB, _BREAK, _NOTE = q("text:s"), q("text:tab"), q("text:line-break"), q("text:note")
_SKIPPED = frozenset(q(name) for name in _SKIPPED_INLINE)
_P, _H = q("text:p"), q("text:h")


def inline_text(element: etree._Element, notes: list[str] | None = None) -> str:
    """A paragraph's text: spaces, tabs and line breaks as written; a footnote's text
    goes to `notes` (when given), not into the paragraph; comments and frames are left
    out (a frame's text box is read as blocks of its own)."""
    parts = [element.text or ""]
    for child in element:
        if child.tag == _S:
            parts.append(" " * _count(child.get(q("text:c"))))
        elif child.tag in (_TAB, _BREAK):
            parts.append(" ")
        elif child.tag == _NOTE:
            if notes is not None:
                body = child.find(q("text:note-body"))
                if body is not None:
                    notes.append(" ".join(inline_text(p) for p in body.iter(_P, _H)))
        elif child.tag not in _SKIPPED and isinstance(child.tag, str):
            parts.append(inline_text(child, notes))
        parts.append(child.tail or "")
    return "".join(parts)


def points(length: str | None) -> float | None:
    """An ODF length ("2.5cm", "10mm", "1in", "72pt") in points, or None."""
    found = _LENGTH.match(length or "")
    if found is None:
        return None
    try:
        return float(found.group(1)) * _POINTS[found.group(2) or "pt"]
    except ValueError:
        return None


def _count(value: str | None) -> int:
    try:
        return max(int(value or 1), 1)
    except ValueError:
        return 1


# A cell of a table, where it is: (row, column, the cell, a header row's).
Placed = tuple[int, int, etree._Element, bool]


# Table tags and attributes, named once: they are compared for every row and cell.
_ROWS_REPEATED = q("table:number-rows-repeated")
_ROW = q("table:table-row")
_HEADER_ROWS = q("table:table-header-rows")
_ROWS = q("table:table-rows")
_ROW_GROUP = q("table:table-row-group")
_CELL = q("table:table-cell")
_COVERED = q("table:covered-table-cell")
_COLUMNS_REPEATED = q("table:number-columns-repeated")
_VALUE_TYPE = q("office:value-type")
_ROWS_SPANNED = q("table:number-rows-spanned")
_COLUMNS_SPANNED = q("table:number-columns-spanned")


def table_cells(table: etree._Element) -> Iterator[Placed]:
    """The cells of a table that hold something, with their row and column, repeats
    unrolled. A repeated run of empty cells or rows only moves the count on: spreadsheets
    end every sheet with a million of them."""
    row = 0
    for element, header in _rows(table, header=False):
        repeat = _count(element.get(_ROWS_REPEATED))
        cells = list(_row_cells(element))
        if not cells:
            row += repeat
            continue
        for _ in range(repeat):
            for column, cell in cells:
                yield row, column, cell, header
            row += 1


def _rows(container: etree._Element, *, header: bool) -> Iterator[tuple[etree._Element, bool]]:
    for child in container:
        if child.tag == _ROW:
            yield child, header
        elif child.tag == _HEADER_ROWS:
            yield from _rows(child, header=True)
        elif child.tag in (_ROWS, _ROW_GROUP):
            yield from _rows(child, header=header)


def _row_cells(row: etree._Element) -> Iterator[tuple[int, etree._Element]]:
    column = 0
    for cell in row:
        if cell.tag not in (_CELL, _COVERED):
            continue
        repeat = _count(cell.get(_COLUMNS_REPEATED))
        if cell.tag == _COVERED or _empty(cell):
            column += repeat
            continue
        for _ in range(repeat):
            yield column, cell
            column += 1


def _empty(cell: etree._Element) -> bool:
    return cell.get(_VALUE_TYPE) is None and not any(text.strip() for text in cell.itertext())


def cell_text(cell: etree._Element) -> str:
    return clean(" ".join(inline_text(p) for p in cell.iter(_P, _H)))


def spans(cell: etree._Element) -> tuple[int, int]:
    """(rows, columns) the cell spans."""
    return (
        min(_count(cell.get(_ROWS_SPANNED)), MAX_SPAN),
        min(_count(cell.get(_COLUMNS_SPANNED)), MAX_SPAN),
    )


def cell_value(cell: etree._Element) -> object:
    """A spreadsheet cell's value as its type says: a number, a date, a truth value, or
    the text it shows (currency, percentages and the rest)."""
    kind = cell.get(_VALUE_TYPE)
    try:
        if kind == "float":
            return float(cell.get(q("office:value"), ""))
        if kind == "date":
            value = cell.get(q("office:date-value"), "")
            return (
                datetime.datetime.fromisoformat(value)
                if "T" in value
                else datetime.date.fromisoformat(value)
            )
        if kind == "boolean":
            return cell.get(q("office:boolean-value"), "").lower() == "true"
    except ValueError:
        pass
    return cell_text(cell)
