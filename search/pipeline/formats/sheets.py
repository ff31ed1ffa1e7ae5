"""Spreadsheets: Excel workbooks (.xlsx) read by openpyxl, and what the OpenDocument
spreadsheet reader shares with them (search/pipeline/formats/opendocument/sheets.py).

Each sheet is a heading (level 1, its name) then a table of its used range: empty rows
and columns at its edges dropped, values as a person sees them (whole numbers without
".0", dates in ISO 8601, the values formulas last computed). A first row that is all
text is a header row. Pageless; `max_pages` bounds the sheets, and more than MAX_CELLS
filled cells in a file is TooComplex.
"""

from __future__ import annotations

import datetime
import zipfile
from collections.abc import Iterable, Iterator
from typing import BinaryIO, TypeVar

import openpyxl  # type: ignore[import-untyped]
from openpyxl.utils.exceptions import InvalidFileException  # type: ignore[import-untyped]
from openpyxl.worksheet._reader import WorkSheetParser  # type: ignore[import-untyped]

from search.pipeline.errors import TooComplex
from search.pipeline.formats import zipguard
from search.pipeline.formats.reading import (
    Blocks,
    FormatReading,
    at_most,
    clean,
    damaged_as,
    pageless,
)
from search.pipeline.layout.model import HEADING, Cell
from search.pipeline.page import OnPages

SAID = "Excel spreadsheet"
MAX_CELLS = 200_000

T = TypeVar("T")
# One sheet's filled cells: (row, column, value), 0-based, in any order.
Filled = Iterable[tuple[int, int, object]]


def read_xlsx(fp: BinaryIO, *, max_pages: int, on_pages: OnPages) -> FormatReading:
    zipguard.open_checked(fp, SAID).close()
    fp.seek(0)
    with damaged_as(SAID, InvalidFileException, zipfile.BadZipFile):
        book = openpyxl.load_workbook(fp, read_only=True, data_only=True)
        try:
            sheets = [sheet for sheet in book.worksheets if hasattr(sheet, "_get_source")]
            at_most(len(sheets), max_pages, SAID, "sheets")
            on_pages(0, len(sheets))
            blocks, count = Blocks(), Counter(SAID)
            for done, sheet in enumerate(sheets, start=1):
                sheet_blocks(blocks, sheet.title, count.each(_filled(book, sheet)))
                on_pages(done, len(sheets))
        finally:
            book.close()
    return pageless(blocks)


def _filled(book: openpyxl.Workbook, sheet: object) -> Iterator[tuple[int, int, object]]:
    """A sheet's filled cells, as its XML lists them. openpyxl's iter_rows pads every row
    to the sheet's widest (its declared dimension, which a file may set to 16,384
    columns): the parser under it gives only the cells there are."""
    with sheet._get_source() as source:  # type: ignore[attr-defined]
        parser = WorkSheetParser(
            source,
            sheet._shared_strings,  # type: ignore[attr-defined]
            data_only=True,
            epoch=book.epoch,
            date_formats=book._date_formats,
            timedelta_formats=book._timedelta_formats,
        )
        for row_number, row in parser.parse():
            for cell in row:
                if cell["value"] is not None and cell["value"] != "":
                    yield row_number - 1, cell["column"] - 1, cell["value"]


class Counter:
    """The filled cells of a whole file, counted as they are read: past MAX_CELLS the
    reading stops, before the rest is held."""

    def __init__(self, said: str) -> None:
        self.said = said
        self.cells = 0

    def each(self, cells: Iterable[T]) -> Iterator[T]:
        for cell in cells:
            self.cells += 1
            if self.cells > MAX_CELLS:
                raise TooComplex(
                    f"This {self.said} has more than {MAX_CELLS:,} filled cells, more than "
                    "a document may have."
                )
            yield cell


def sheet_blocks(blocks: Blocks, name: str, cells: Filled) -> None:
    """A sheet's heading and its table (none for an empty sheet) added to `blocks`. A
    first row of text only, above other rows, is the header row."""
    found = [(row, column, value, _shown(value)) for row, column, value in cells]
    found = [cell for cell in found if cell[3]]
    blocks.add(HEADING, name, level=1)
    if not found:
        return
    top = min(cell[0] for cell in found)
    left = min(cell[1] for cell in found)
    header = any(cell[0] != top for cell in found) and all(
        isinstance(cell[2], str) for cell in found if cell[0] == top
    )
    blocks.add_table(
        [
            Cell(row - top, column - left, text, header=header and row == top)
            for row, column, _, text in sorted(found, key=lambda cell: cell[:2])
        ]
    )


def _shown(value: object) -> str:
    """A value as a spreadsheet shows it, near enough: whole numbers without ".0", dates
    and times in ISO 8601 (a date with no time of day as a date), booleans as TRUE/FALSE."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else f"{value:.15g}"
    if isinstance(value, datetime.datetime):
        if value.time() == datetime.time(0) and value.tzinfo is None:
            return value.date().isoformat()
        return value.isoformat()
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    return clean(str(value))
