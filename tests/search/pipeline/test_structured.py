"""Chunks that follow a document's structure (search/pipeline/structured.py), on
structures read from generated PDFs and on ones written out block by block."""

import itertools

import pytest

from search.pipeline.layout.document import read_structure
from search.pipeline.layout.model import Block, Box, Cell, PageSize, Structure
from search.pipeline.structured import split_structure
from tests.bench.structure import corpus

BOX = Box(50, 50, 500, 60)


def heading(text: str, level: int, page: int = 1) -> Block:
    return Block("heading", text, page, BOX, level=level)


def para(text: str, page: int = 1) -> Block:
    return Block("paragraph", text, page, BOX)


def doc(*blocks: Block, pages: int = 3) -> Structure:
    return Structure([PageSize(595, 842)] * pages, list(blocks))


def test_a_heading_starts_a_chunk_and_each_chunk_says_its_section():
    words = "word " * 150  # 750 characters: two sections never fit one chunk
    structure = doc(
        heading("Costs", 1),
        para(words),
        heading("Staff", 2),
        para(words),
        heading("Sales", 1),
        para(words),
    )

    pieces = split_structure(structure, size=1000, overlap=100)

    assert [p.section for p in pieces] == ["Costs", "Costs > Staff", "Sales"]
    assert [p.text.splitlines()[0] for p in pieces] == ["# Costs", "## Staff", "# Sales"]


def test_small_sections_under_one_parent_share_a_chunk_named_for_the_parent():
    structure = doc(
        heading("Terms", 1),
        heading("Scope", 2),
        para("It covers the depot."),
        heading("Dates", 2),
        para("It runs for a year."),
        heading("Fees", 1),
        para("word " * 190),
    )

    pieces = split_structure(structure, size=1000, overlap=100)

    assert [p.section for p in pieces] == ["Terms", "Fees"]
    assert "It covers the depot." in pieces[0].text
    assert "It runs for a year." in pieces[0].text
    assert "Fees" not in pieces[0].text


def test_furniture_is_never_in_a_chunk():
    report = read_structure(corpus.report().pdf, max_pages=10)

    text = " ".join(p.text for p in split_structure(report, size=1000, overlap=100))

    assert "Northwind Trading" not in text
    assert "Page 2 of 3" not in text
    assert corpus.paragraph(4, 44)[:200] in text


def test_every_chunk_keeps_to_the_size_and_a_long_paragraph_overlaps():
    report = read_structure(corpus.report().pdf, max_pages=10)

    pieces = split_structure(report, size=400, overlap=80)
    long = [p for p in pieces if p.text in corpus.paragraph(4, 44)]

    assert max(len(p.text) for p in pieces) <= 400
    assert len(long) > 5
    for first, then in itertools.pairwise(long):
        assert then.text[:30] in first.text  # each starts inside the one before


def test_a_long_table_is_cut_by_rows_each_under_its_header_and_caption():
    rows = [["Meter", "Reading"]] + [[f"M-{n}", str(300 + n)] for n in range(80)]
    cells = [
        Cell(r, c, text, Box(50 + 100 * c, 100 + 10 * r, 150 + 100 * c, 110 + 10 * r))
        for r, row in enumerate(rows)
        for c, text in enumerate(row)
    ]
    structure = doc(
        Block("caption", "Table 3: Meters read in March.", 1, BOX),
        Block("table", "", 1, Box(50, 100, 250, 910), cells=cells),
    )

    pieces = split_structure(structure, size=500, overlap=50)
    bodies = [[line for line in p.text.splitlines()[4:]] for p in pieces]

    assert len(pieces) == 3  # 80 rows of 16 characters, under 500 a piece
    assert all(
        p.text.startswith("Table 3: Meters read in March.\n\n| Meter | Reading |\n|---|---|")
        for p in pieces
    )
    assert [line for body in bodies for line in body] == [
        f"| M-{n} | {300 + n} |" for n in range(80)
    ]
    assert all(len(p.text) <= 500 for p in pieces)
    # Each piece's boxes: the caption's, then its own rows' (10 points a row from 100).
    assert [p.boxes[1] for p in pieces] == [
        (1, 50, 110, 250, 400),
        (1, 50, 400, 250, 690),
        (1, 50, 690, 250, 910),
    ]


def test_a_table_with_spanned_cells_is_html():
    cells = [
        Cell(0, 0, "Ward", rows=2),
        Cell(0, 1, "Doses", columns=2),
        Cell(1, 1, "Jan"),
        Cell(1, 2, "Feb"),
        Cell(2, 0, "East"),
        Cell(2, 1, "12"),
        Cell(2, 2, "14"),
    ]
    [piece] = split_structure(doc(Block("table", "", 1, BOX, cells=cells)), size=1000, overlap=100)

    assert '<th rowspan="2">Ward</th><th colspan="2">Doses</th>' in piece.text
    assert "<tr><td>East</td><td>12</td><td>14</td></tr>" in piece.text


def test_a_chunk_over_a_page_break_has_its_page_range_and_its_lines_boxes():
    report = read_structure(corpus.report().pdf, max_pages=10)
    pieces = split_structure(report, size=1000, overlap=100)

    [over] = [p for p in pieces if "auditors confirmed" in p.text]

    assert (over.page, over.page_end) == (2, 3)
    assert sorted({box[0] for box in over.boxes}) == [2, 3]
    assert all(box[1] < box[3] and box[2] < box[4] for box in over.boxes)


def test_the_same_structure_makes_the_same_chunks():
    report = read_structure(corpus.report().pdf, max_pages=10)

    assert split_structure(report, size=700, overlap=70) == split_structure(
        report, size=700, overlap=70
    )


def test_an_overlap_not_under_the_size_is_refused():
    with pytest.raises(ValueError, match="overlap"):
        split_structure(doc(para("x")), size=100, overlap=100)
