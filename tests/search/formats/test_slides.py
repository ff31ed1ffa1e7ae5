"""PowerPoint presentations (search/pipeline/formats/slides.py), written by python-pptx."""

import io

import pytest
from pptx import Presentation
from pptx.util import Emu, Pt

from search.pipeline.errors import TooManyPages
from tests.search.formats.files import read


def deck(slides: int = 5) -> bytes:
    presentation = Presentation()
    for n in range(1, slides + 1):
        slide = presentation.slides.add_slide(presentation.slide_layouts[1])  # title and content
        slide.shapes.title.text = f"Slide {n}"
        slide.placeholders[1].text_frame.text = f"Point {n}"
        box = slide.shapes.add_textbox(Pt(400), Pt(20), Pt(200), Pt(40))
        box.text_frame.text = f"Corner {n}"
        slide.notes_slide.notes_text_frame.text = f"Say {n}"
    table = presentation.slides[0].shapes.add_table(2, 2, Pt(50), Pt(450), Pt(300), Pt(60)).table
    for r in range(2):
        for c in range(2):
            table.cell(r, c).text = f"t{r}{c}"
    presentation.slides[0].shapes.add_textbox(
        Emu(-12700 * 100), Pt(500), Pt(2000), Pt(100)
    ).text_frame.text = "Off the edge"
    buffer = io.BytesIO()
    presentation.save(buffer)
    return buffer.getvalue()


def test_a_five_slide_deck_reads_as_five_pages():
    calls = []

    reading = read(deck(5), "pptx", on_pages=lambda done, total: calls.append((done, total)))

    assert len(reading.structure.pages) == 5
    assert reading.structure.pages[0].width == pytest.approx(720.0)
    assert reading.structure.pages[0].height == pytest.approx(540.0)
    assert len(reading.texts) == 5
    assert "Slide 3" in reading.texts[2]
    assert calls == [(0, 5), (1, 5), (2, 5), (3, 5), (4, 5), (5, 5)]
    assert reading.structure.paged


def test_a_slide_reads_title_first_then_top_to_bottom_then_notes():
    blocks = [b for b in read(deck(2), "pptx").structure.blocks if b.page == 2]

    assert [(b.kind, b.text) for b in blocks] == [
        ("heading", "Slide 2"),
        ("paragraph", "Corner 2"),
        ("list_item", "Point 2"),
        ("footnote", "Say 2"),
    ]
    assert blocks[0].level == 1
    assert blocks[-1].box.width == pytest.approx(720.0)


def test_the_first_slides_title_is_the_documents():
    first = read(deck(2), "pptx").structure.blocks[0]

    assert (first.kind, first.text, first.level) == ("title", "Slide 1", 0)


def test_boxes_are_in_points_inside_the_slide():
    reading = read(deck(1), "pptx")
    corner = next(b for b in reading.structure.blocks if b.text == "Corner 1")
    edge = next(b for b in reading.structure.blocks if b.text == "Off the edge")

    assert (corner.box.x0, corner.box.y0, corner.box.x1, corner.box.y1) == pytest.approx(
        (400, 20, 600, 60)
    )
    for block in reading.structure.blocks:
        assert 0 <= block.box.x0 <= block.box.x1 <= 720
        assert 0 <= block.box.y0 <= block.box.y1 <= 540
    assert edge.box.x0 == 0
    assert edge.box.x1 == pytest.approx(720)


def test_a_slide_table_keeps_its_cells():
    table = next(b for b in read(deck(1), "pptx").structure.blocks if b.kind == "table")

    assert table.rows() == [["t00", "t01"], ["t10", "t11"]]
    assert [c.header for c in table.cells] == [True, True, False, False]


def test_too_many_slides_is_said_before_they_are_read():
    calls = []

    with pytest.raises(TooManyPages, match="6 slides, more than the 5"):
        read(deck(6), "pptx", max_pages=5, on_pages=lambda *args: calls.append(args))

    assert calls == []
