"""Word documents (search/pipeline/formats/word.py), written by python-docx."""

import io
import zipfile

import docx
import pytest
from docx.oxml import OxmlElement
from docx.oxml.ns import qn

from search.pipeline.errors import Corrupt
from tests.search.formats.files import read


def save(document) -> bytes:
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def report() -> bytes:
    document = docx.Document()
    document.core_properties.title = "Annual report"
    document.core_properties.author = "Alice"
    document.add_paragraph("Annual report", style="Title")
    document.add_heading("Costs", level=1)
    document.add_paragraph("Costs rose.")
    document.add_paragraph("Staff", style="List Bullet")
    document.add_heading("Detail", level=3)
    table = document.add_table(rows=3, cols=3)
    for r in range(3):
        for c in range(3):
            table.cell(r, c).text = f"r{r}c{c}"
    table.cell(0, 0).merge(table.cell(0, 1))
    table.cell(1, 2).merge(table.cell(2, 2))
    header = table.rows[0]._tr.get_or_add_trPr()
    header.append(OxmlElement("w:tblHeader"))
    document.add_paragraph("Table 1: costs", style="Caption")
    section = document.sections[0]
    section.header.paragraphs[0].text = "ACME confidential"
    section.footer.paragraphs[0].text = "Printed in house"
    document.add_section()  # a second section, its header linked to the first's
    document.add_paragraph("After the break.")
    return save(document)


def test_a_word_heading_keeps_its_level_and_the_body_its_order():
    blocks = read(report(), "docx").structure.blocks
    body = [(b.kind, b.text, b.level) for b in blocks if not b.furniture]

    assert body == [
        ("title", "Annual report", 0),
        ("heading", "Costs", 1),
        ("paragraph", "Costs rose.", 0),
        ("list_item", "Staff", 0),
        ("heading", "Detail", 3),
        ("table", "r0c0 r0c1 | r0c2\nr1c0 | r1c1 | r1c2 r2c2\nr2c0 | r2c1", 0),
        ("caption", "Table 1: costs", 0),
        ("paragraph", "After the break.", 0),
    ]


def test_a_word_table_keeps_its_spans_and_header_row():
    table = next(b for b in read(report(), "docx").structure.blocks if b.kind == "table")

    found = [(c.row, c.column, c.rows, c.columns, c.header) for c in table.cells]
    assert found == [
        (0, 0, 1, 2, True),
        (0, 2, 1, 1, True),
        (1, 0, 1, 1, False),
        (1, 1, 1, 1, False),
        (1, 2, 2, 1, False),
        (2, 0, 1, 1, False),
        (2, 1, 1, 1, False),
    ]


def test_headers_and_footers_are_furniture_once_each():
    reading = read(report(), "docx")
    furniture = [(b.kind, b.text) for b in reading.structure.blocks if b.furniture]

    assert furniture == [("page_header", "ACME confidential"), ("page_footer", "Printed in house")]
    assert reading.structure.blocks[0].kind == "page_header"
    assert reading.structure.blocks[-1].kind == "page_footer"


def test_an_outline_level_makes_a_heading():
    document = docx.Document()
    paragraph = document.add_paragraph("Outlined")
    outline = OxmlElement("w:outlineLvl")
    outline.set(qn("w:val"), "1")
    paragraph._p.get_or_add_pPr().append(outline)

    assert [(b.kind, b.level) for b in read(save(document), "docx").structure.blocks] == [
        ("heading", 2)
    ]


def test_the_core_properties_are_the_metadata_and_the_file_is_pageless():
    reading = read(report(), "docx")

    assert reading.metadata == {"title": "Annual report", "author": "Alice"}
    assert reading.structure.paged is False
    assert len(reading.texts) == 1
    assert "Costs rose." in reading.texts[0]


def test_a_word_file_missing_its_document_part_is_damaged():
    buffer = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(report())) as source, zipfile.ZipFile(buffer, "w") as broken:
        for entry in source.infolist():
            if entry.filename != "word/document.xml":
                broken.writestr(entry, source.read(entry))

    with pytest.raises(Corrupt, match="This Word document is damaged"):
        read(buffer.getvalue(), "docx")


def test_a_word_file_with_broken_xml_is_damaged():
    buffer = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(report())) as source, zipfile.ZipFile(buffer, "w") as broken:
        for entry in source.infolist():
            data = source.read(entry)
            broken.writestr(entry, data[:200] if entry.filename == "word/document.xml" else data)

    with pytest.raises(Corrupt, match="This Word document is damaged"):
        read(buffer.getvalue(), "docx")
