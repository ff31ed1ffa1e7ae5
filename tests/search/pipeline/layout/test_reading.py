"""A document's structure read from generated PDFs whose structure is known (the structure
benchmark's corpus, tests/bench/structure/corpus.py): kinds, reading order, furniture,
tables, continuity and boxes."""

import io

import pypdfium2  # type: ignore[import-untyped]
import pytest

from search.pipeline.layout.document import read_structure
from search.pipeline.layout.model import Block, Structure
from tests.bench.structure import corpus


@pytest.fixture(scope="module")
def read() -> dict[str, Structure]:
    return {sample.name: read_structure(sample.pdf, max_pages=100) for sample in corpus.generated()}


def body(structure: Structure) -> list[Block]:
    return [block for block in structure.blocks if not block.furniture]


def kinds(structure: Structure, kind: str) -> list[Block]:
    return [block for block in structure.blocks if block.kind == kind]


def test_running_headers_footers_and_page_numbers_are_furniture_and_out_of_the_body(read):
    report = read["report"]
    headers = kinds(report, "page_header")
    numbers = kinds(report, "page_number")

    assert [b.page for b in headers] == [1, 2, 3]
    assert {b.text for b in headers} == {"Northwind Trading - Annual Report 2025"}
    assert [b.text for b in numbers] == ["Page 1 of 3", "Page 2 of 3", "Page 3 of 3"]
    assert not any("Page 2 of 3" in b.text or "Northwind" in b.text for b in body(report))


def test_headings_have_levels_and_the_first_is_the_title(read):
    report = read["report"]
    found = [(b.kind, b.level, b.text) for b in report.blocks if b.kind in ("title", "heading")]

    assert found == [
        ("title", 0, "Annual Report 2025"),
        ("heading", 1, "Overview"),
        ("heading", 2, "Markets"),
        ("heading", 1, "Outlook"),
    ]
    assert [b.text[:2] for b in kinds(report, "list_item")] == ["- "] * 3


def test_a_paragraph_across_a_page_break_is_one_block_and_a_split_word_one_word(read):
    report = read["report"]
    [across] = [b for b in body(report) if b.text.startswith(corpus.paragraph(4, 44)[:60])]
    [joined] = [b for b in body(report) if "auditors" in b.text]

    assert across.text == corpus.paragraph(4, 44)
    assert (across.page, [page for page, _ in across.parts]) == (1, [2])
    assert "harbour information desk" in joined.text
    assert (joined.page, [page for page, _ in joined.parts]) == (2, [3])


def test_two_columns_are_read_one_after_the_other_under_their_title(read):
    texts = [b.text for b in body(read["columns"])]
    left = [corpus.paragraph(10 + n, 3) for n in range(3)]
    right = [corpus.paragraph(20 + n, 3) for n in range(3)]

    assert texts == ["Two Columns of Harbour News", *left, *right]


def test_ruled_and_unruled_tables_become_cells_under_their_captions(read):
    structure = read["tables"]
    ruled, unruled = kinds(structure, "table")
    order = [b.kind for b in body(structure)]

    assert ruled.rows() == [list(row) for row in corpus.ROWS]
    assert unruled.rows()[0] == ["Depot", "Staff", "Vans", "Docks"]
    assert unruled.rows()[1] == ["Harbour", "8", "2", "1"]
    assert order == ["title", "paragraph", "caption", "table", "caption", "table"]
    assert all(cell.header for cell in ruled.cells if cell.row == 0)
    assert not any(cell.header for cell in ruled.cells if cell.row > 0)


def test_a_long_table_over_two_pages_is_one_table_with_its_header_row_once(read):
    [table] = kinds(read["long_table"], "table")
    rows = table.rows()

    assert len(rows) == 61
    assert rows[0] == ["Meter", "January", "February", "March"]
    assert [row[0] for row in rows[1:]] == [f"M-{100 + n}" for n in range(60)]
    assert {cell.page for cell in table.cells} == {None, 2}  # its rows on page 2 say so
    assert [page for page, _ in table.parts] == [2]


def test_line_numbers_and_a_turned_mark_in_the_margin_are_furniture(read):
    structure = read["line_numbers"]

    assert [b.text for b in kinds(structure, "line_number")] == [str(n) for n in range(1, 19)]
    assert [b.text for b in kinds(structure, "mark")] == ["DRAFT - NOT FOR FILING"]
    assert not any(b.text.isdigit() for b in body(structure))


def test_a_footnote_at_the_foot_of_the_page_is_one(read):
    [note] = kinds(read["footnotes"], "footnote")

    assert note.text.startswith("1 The survey ran from March to May")


def test_boxes_are_in_points_from_the_shown_pages_top_left_corner(read):
    report = read["report"]
    title = kinds(report, "title")[0]
    number = kinds(report, "page_number")[0]

    assert report.pages[0].width == pytest.approx(595.28, abs=0.1)
    assert title.box.y0 < 100 < number.box.y0 > 780  # the title high, the number low
    assert 0 < title.box.x0 < title.box.x1 < report.pages[0].width


@pytest.mark.parametrize(
    ("rotation", "landscape", "sideways"),
    [(90, False, True), (180, False, False), (270, False, True), (90, True, False)],
)
def test_a_turned_page_reads_as_upright_and_its_boxes_are_where_it_shows_them(
    read, rotation, landscape, sideways
):
    upright = read["columns"]
    structure = read_structure(
        corpus.turned(corpus.columns().pdf, rotation, landscape=landscape), max_pages=1
    )
    [title] = kinds(structure, "title")
    [was] = kinds(upright, "title")
    shown = structure.pages[0]

    assert [b.text for b in structure.blocks] == [b.text for b in upright.blocks]
    assert (shown.width > shown.height) == sideways
    assert (title.box.height > title.box.width) == sideways
    assert 0 <= title.box.x0 < title.box.x1 <= shown.width
    assert 0 <= title.box.y0 < title.box.y1 <= shown.height
    assert title.box.width * title.box.height == pytest.approx(
        was.box.width * was.box.height, rel=0.05
    )


def test_a_passage_is_on_the_lines_it_overlaps(read):
    report = read["report"]
    [across] = [b for b in body(report) if b.text.startswith(corpus.paragraph(4, 44)[:60])]
    end = across.text.index("(note 4-1)")

    first = across.where(0, end)
    last = across.where(len(across.text) - 20)

    assert [page for page, _ in first] == [1, 1]  # the first sentence: two lines of page 1
    assert [page for page, _ in last] == [2]
    assert across.where() == [(across.page, across.box), *across.parts]


def test_the_structure_comes_back_the_same_through_its_dict(read):
    for structure in read.values():
        assert Structure.from_dict(structure.as_dict()).as_dict() == structure.as_dict()


def printed_sample(name: str) -> Structure:
    from tests.bench.structure import printed

    [sample] = [s for s in printed.tuned() if s.name.endswith(name)]
    return read_structure(sample.pdf, max_pages=20)


def test_three_narrow_columns_of_prose_are_read_as_text_not_as_a_table():
    observatory = printed_sample("observatory")
    headings = {(b.text, b.level) for b in kinds(observatory, "heading")}

    assert not [b for b in kinds(observatory, "table") if b.page == 1]
    assert {("Jupiter at opposition", 2), ("The Sun", 2), ("A faint comet", 2)} <= headings


def test_a_pull_quote_set_large_and_a_run_in_label_are_not_headings():
    guild = printed_sample("guild")
    headings = [b.text for b in guild.blocks if b.kind in ("title", "heading")]

    assert "1 About the Guild" in headings
    assert not [text for text in headings if text.startswith("Bread is the first thing")]
    assert not [text for text in headings if ". " in text]


def test_boxes_are_measured_from_the_crop_boxs_corner(read):
    document = pypdfium2.PdfDocument(corpus.columns().pdf)
    document[0].set_cropbox(40, 100, 560, 800)  # left, bottom, right, top in PDF space
    cropped = io.BytesIO()
    document.save(cropped)
    structure = read_structure(cropped.getvalue(), max_pages=1)
    [title] = kinds(structure, "title")
    [was] = kinds(read["columns"], "title")

    assert (structure.pages[0].width, structure.pages[0].height) == (520, 700)
    assert title.box.x0 == pytest.approx(was.box.x0 - 40, abs=0.2)
    assert title.box.y0 == pytest.approx(was.box.y0 - (841.89 - 800), abs=0.2)
