"""Excel workbooks (search/pipeline/formats/sheets.py), written by openpyxl."""

import datetime
import io

import openpyxl
import pytest

from search.pipeline.errors import TooComplex, TooManyPages
from search.pipeline.formats import sheets
from tests.search.formats.files import kinds, read


def save(book) -> bytes:
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def workbook() -> bytes:
    book = openpyxl.Workbook()
    costs = book.active
    costs.title = "Costs"
    costs["C3"], costs["D3"], costs["E3"] = "Item", "Amount", "Day"
    costs["C4"], costs["D4"], costs["E4"] = "Tea", 3.0, datetime.datetime(2025, 3, 4)
    costs["C5"], costs["D5"], costs["E5"] = "Cake", 2.5, datetime.date(2025, 3, 5)
    costs["F5"] = True
    book.create_sheet("Empty")
    numbers = book.create_sheet("Numbers")
    numbers.append([1, 2])
    numbers.append([3, 4])
    return save(book)


def test_each_sheet_is_a_heading_then_its_used_range():
    reading = read(workbook(), "xlsx")

    assert [(kind, text) for kind, text in kinds(reading) if kind == "heading"] == [
        ("heading", "Costs"),
        ("heading", "Empty"),
        ("heading", "Numbers"),
    ]
    table = reading.structure.blocks[1]
    assert table.rows() == [
        ["Item", "Amount", "Day", ""],
        ["Tea", "3", "2025-03-04", ""],
        ["Cake", "2.5", "2025-03-05", "TRUE"],
    ]
    assert reading.structure.paged is False


def test_a_first_row_of_text_is_the_header_and_one_of_numbers_is_not():
    blocks = read(workbook(), "xlsx").structure.blocks
    costs, numbers = (b for b in blocks if b.kind == "table")

    assert [c.header for c in costs.cells if c.row == 0] == [True, True, True]
    assert not any(c.header for c in numbers.cells)


def test_sheets_are_counted_as_pages():
    calls = []

    read(workbook(), "xlsx", on_pages=lambda done, total: calls.append((done, total)))

    assert calls == [(0, 3), (1, 3), (2, 3), (3, 3)]


def test_too_many_sheets():
    with pytest.raises(TooManyPages, match="3 sheets, more than the 2"):
        read(workbook(), "xlsx", max_pages=2)


def test_too_many_cells(monkeypatch):
    monkeypatch.setattr(sheets, "MAX_CELLS", 10)
    book = openpyxl.Workbook()
    for _row in range(4):
        book.active.append([1, 2, 3])

    with pytest.raises(TooComplex, match="more than 10 filled cells"):
        read(save(book), "xlsx")


def test_a_sparse_sheet_is_read_by_its_cells_and_drawn_small():
    book = openpyxl.Workbook()
    book.active["A1"] = "a"
    book.active["XFD1"] = "far"
    book.active["A100000"] = "deep"

    table = next(b for b in read(save(book), "xlsx").structure.blocks if b.kind == "table")

    assert table.rows() == [["a", "far"], ["deep", ""]]
