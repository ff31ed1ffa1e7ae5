"""OpenDocument files (search/pipeline/formats/opendocument/), written by hand."""

import io
import zipfile

import pytest

from search.pipeline.errors import Corrupt, TooManyPages
from tests.search.formats.files import kinds, odf, read

ODT = "application/vnd.oasis.opendocument.text"
ODS = "application/vnd.oasis.opendocument.spreadsheet"
ODP = "application/vnd.oasis.opendocument.presentation"

TEXT_BODY = """<office:automatic-styles/>
<office:text>
<text:sequence-decls/>
<text:p text:style-name="Title">The plan</text:p>
<text:h text:outline-level="2">Scope</text:h>
<text:p>Words<text:s text:c="3"/>spaced<text:note><text:note-citation>1</text:note-citation>
<text:note-body><text:p>A note.</text:p></text:note-body></text:note> here.</text:p>
<text:list><text:list-item><text:p>One</text:p>
<text:list><text:list-item><text:p>One.one</text:p></text:list-item></text:list>
</text:list-item></text:list>
<table:table><table:table-header-rows><table:table-row>
<table:table-cell table:number-columns-spanned="2"><text:p>Head</text:p></table:table-cell>
<table:covered-table-cell/></table:table-row></table:table-header-rows>
<table:table-row><table:table-cell><text:p>a</text:p></table:table-cell>
<table:table-cell><text:p>b</text:p></table:table-cell></table:table-row>
</table:table>
<text:p text:style-name="Caption">Table 1</text:p>
</office:text>"""
STYLES = """<office:master-styles><style:master-page style:name="Standard">
<style:header><text:p>Plan header</text:p></style:header>
<style:footer><text:p>Plan footer</text:p></style:footer>
</style:master-page></office:master-styles>"""
META = "<dc:title>The plan</dc:title><meta:initial-creator>Alice</meta:initial-creator>"


def test_an_odt_keeps_kinds_levels_notes_and_furniture_in_order():
    reading = read(odf(ODT, TEXT_BODY, styles=STYLES, meta=META), "odt")

    assert kinds(reading) == [
        ("page_header", "Plan header"),
        ("title", "The plan"),
        ("heading", "Scope"),
        ("paragraph", "Words spaced here."),
        ("list_item", "One"),
        ("list_item", "One.one"),
        ("table", "Head\na | b"),
        ("caption", "Table 1"),
        ("footnote", "A note."),
        ("page_footer", "Plan footer"),
    ]
    assert reading.structure.blocks[2].level == 2
    assert reading.metadata == {"title": "The plan", "author": "Alice"}
    assert reading.structure.paged is False


def test_an_odt_table_keeps_spans_and_header_rows():
    table = next(b for b in read(odf(ODT, TEXT_BODY), "odt").structure.blocks if b.kind == "table")

    assert [(c.row, c.column, c.columns, c.header) for c in table.cells] == [
        (0, 0, 2, True),
        (1, 0, 1, False),
        (1, 1, 1, False),
    ]


SPREADSHEET = """<office:spreadsheet>
<table:table table:name="Costs">
<table:table-row table:number-rows-repeated="2">
 <table:table-cell table:number-columns-repeated="3"/></table:table-row>
<table:table-row><table:table-cell/>
 <table:table-cell office:value-type="string"><text:p>Item</text:p></table:table-cell>
 <table:table-cell office:value-type="string"><text:p>When</text:p></table:table-cell>
</table:table-row>
<table:table-row><table:table-cell/>
 <table:table-cell office:value-type="float" office:value="3"><text:p>3.00</text:p>
 </table:table-cell>
 <table:table-cell office:value-type="date" office:date-value="2025-03-04">
 <text:p>04/03/25</text:p></table:table-cell>
 <table:table-cell table:number-columns-repeated="16000"/></table:table-row>
<table:table-row table:number-rows-repeated="1048000">
 <table:table-cell table:number-columns-repeated="16384"/></table:table-row>
</table:table>
<table:table table:name="Second"><table:table-row>
 <table:table-cell office:value-type="float" office:value="2.5"/></table:table-row>
</table:table>
</office:spreadsheet>"""


def test_an_ods_sheet_is_a_heading_and_its_used_range():
    reading = read(odf(ODS, SPREADSHEET), "ods")

    assert [text for kind, text in kinds(reading) if kind == "heading"] == ["Costs", "Second"]
    table = reading.structure.blocks[1]
    assert table.rows() == [["Item", "When"], ["3", "2025-03-04"]]
    assert [c.header for c in table.cells] == [True, True, False, False]


def test_too_many_ods_sheets():
    with pytest.raises(TooManyPages, match="2 sheets, more than the 1"):
        read(odf(ODS, SPREADSHEET), "ods", max_pages=1)


def slide(n: int) -> str:
    return f"""<draw:page draw:name="p{n}" draw:master-page-name="Default">
<draw:frame presentation:class="outline"
 svg:x="2cm" svg:y="5cm" svg:width="20cm" svg:height="8cm"><draw:text-box>
 <text:list><text:list-item><text:p>Point {n}</text:p></text:list-item></text:list>
</draw:text-box></draw:frame>
<draw:frame presentation:class="title"
 svg:x="2cm" svg:y="1cm" svg:width="24cm" svg:height="3cm">
 <draw:text-box><text:p>Slide {n}</text:p></draw:text-box></draw:frame>
<presentation:notes><draw:frame presentation:class="notes"><draw:text-box>
 <text:p>Say {n}</text:p></draw:text-box></draw:frame></presentation:notes>
</draw:page>"""


SLIDE_STYLES = """<office:automatic-styles><style:page-layout style:name="PM1">
<style:page-layout-properties fo:page-width="28cm" fo:page-height="15.75cm"/></style:page-layout>
</office:automatic-styles><office:master-styles>
<style:master-page style:name="Default" style:page-layout-name="PM1"/></office:master-styles>"""


def presentation(count: int) -> bytes:
    slides = "".join(slide(n) for n in range(1, count + 1))
    return odf(ODP, f"<office:presentation>{slides}</office:presentation>", styles=SLIDE_STYLES)


def test_odp_slides_are_pages_the_size_of_their_master():
    reading = read(presentation(3), "odp")

    assert len(reading.structure.pages) == 3
    assert len(reading.texts) == 3
    assert reading.structure.pages[0].width == pytest.approx(28 * 72 / 2.54)
    assert reading.structure.pages[0].height == pytest.approx(15.75 * 72 / 2.54)


def test_an_odp_with_one_draw_page_is_one_slide_whatever_its_masters_and_thumbnails():
    master = (
        '<style:master-page style:name="Default" style:page-layout-name="PM1">'
        '<draw:frame presentation:class="title"><draw:text-box><text:p>Master title</text:p>'
        "</draw:text-box></draw:frame></style:master-page>"
    )
    styles = SLIDE_STYLES.replace(
        '<style:master-page style:name="Default" style:page-layout-name="PM1"/>', master
    )
    page = slide(1).replace(
        "<presentation:notes>",
        '<presentation:notes><draw:page-thumbnail draw:page-number="1" presentation:class="page"/>',
    )
    body = f"<office:presentation>{page}<presentation:settings/></office:presentation>"

    reading = read(odf(ODP, body, styles=styles), "odp")

    assert len(reading.structure.pages) == 1
    assert "Master title" not in reading.texts[0]


def test_an_odp_slide_reads_title_first_with_boxes_and_notes_last():
    blocks = [b for b in read(presentation(2), "odp").structure.blocks if b.page == 2]

    assert [(b.kind, b.text) for b in blocks] == [
        ("heading", "Slide 2"),
        ("list_item", "Point 2"),
        ("footnote", "Say 2"),
    ]
    title = blocks[0].box
    assert (title.x0, title.y0, title.x1, title.y1) == pytest.approx(
        (2 * 72 / 2.54, 72 / 2.54, 26 * 72 / 2.54, 4 * 72 / 2.54)
    )
    assert blocks[2].box.width == pytest.approx(28 * 72 / 2.54)


def test_too_many_odp_slides():
    with pytest.raises(TooManyPages, match="4 slides, more than the 3"):
        read(presentation(4), "odp", max_pages=3)


def test_odf_with_broken_xml_is_damaged():
    with pytest.raises(Corrupt, match="This OpenDocument text is damaged"):
        read(odf(ODT, "<office:text><text:p>unclosed</office:text>"), "odt")


def test_an_odt_whose_meta_and_styles_parts_are_damaged_is_read_without_them():
    data = bytearray(odf(ODT, TEXT_BODY, styles=STYLES, meta=META))
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as archive:
        damaged = [archive.getinfo(name).header_offset for name in ("styles.xml", "meta.xml")]
    for offset in damaged:  # where the central directory says the part starts: no part there
        data[offset : offset + 4] = b"\0\0\0\0"

    reading = read(bytes(data), "odt")

    assert ("title", "The plan") in kinds(reading)
    assert "Plan header" not in reading.texts[0]
    assert reading.metadata == {}


def test_odf_whose_content_part_is_damaged_is_damaged():
    data = bytearray(odf(ODT, TEXT_BODY))
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as archive:
        offset = archive.getinfo("content.xml").header_offset
    data[offset : offset + 4] = b"\0\0\0\0"

    with pytest.raises(Corrupt, match="This OpenDocument text is damaged"):
        read(bytes(data), "odt")


def test_odf_that_declares_an_entity_does_not_expand_it(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("the secret")
    doctype = f'<!DOCTYPE x [<!ENTITY secret SYSTEM "{secret.as_uri()}">]>'
    body = "<office:text><text:p>before &secret; after</text:p></office:text>"

    reading = read(odf(ODT, body, doctype=doctype), "odt")

    assert "the secret" not in reading.texts[0]
    assert "before" in reading.texts[0]
