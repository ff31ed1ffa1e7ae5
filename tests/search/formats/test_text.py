"""Plain text (search/pipeline/formats/text.py) and the encodings of bare bytes."""

from search.pipeline.layout.model import PageSize
from tests.search.formats.files import kinds, read


def test_paragraphs_split_on_blank_lines_and_their_lines_join_with_a_space():
    reading = read(b"First line\nsecond line of it.\n\nAnother para-\ngraph here.\n", "text")

    assert kinds(reading) == [
        ("paragraph", "First line second line of it."),
        ("paragraph", "Another para- graph here."),
    ]


def test_underlined_numbered_and_capital_headings_keep_their_levels():
    text = (
        "Report\n======\n\nIntro text.\n\nMethods\n-------\n\n2.3 Costs\n\n"
        "2.3.1 Staff costs\n\nRESULTS\n\n1. Scope\n\nA sentence that ends.\n"
    )

    reading = read(text.encode(), "text")

    headings = [(b.text, b.level) for b in reading.structure.blocks if b.kind == "heading"]
    assert headings == [
        ("Report", 1),
        ("Methods", 2),
        ("2.3 Costs", 2),
        ("2.3.1 Staff costs", 3),
        ("RESULTS", 1),
        ("1. Scope", 1),
    ]


def test_a_line_with_a_full_stop_or_a_year_is_no_heading():
    reading = read(b"This is short.\n\n2024 was a good year\n", "text")

    assert [b.kind for b in reading.structure.blocks] == ["paragraph", "paragraph"]


def test_a_text_file_is_one_pageless_page():
    calls = []

    reading = read(
        b"Hello\n\nWorld", "text", on_pages=lambda done, total: calls.append((done, total))
    )

    assert reading.structure.paged is False
    assert reading.structure.pages == [PageSize(0.0, 0.0)]
    assert {(b.page, b.box.width, b.box.height) for b in reading.structure.blocks} == {(1, 0, 0)}
    assert reading.texts == ["Hello\n\nWorld"]
    assert calls == [(0, 1), (1, 1)]
    assert reading.structure.as_dict()["paged"] is False


def test_latin_1_cp1252_and_utf_16_with_a_mark_are_decoded():
    latin = "Caf\xe9 cr\xe8me br\xfbl\xe9e, d\xe9j\xe0 vu, na\xefve fa\xe7ade. " * 8
    quoted = "\u201cQuoted\u201d \u2013 dashed \u2014 r\xe9sum\xe9s and caf\xe9s. " * 8

    assert read(latin.encode("latin-1"), "text").texts[0] == latin.strip()
    assert read(quoted.encode("cp1252"), "text").texts[0] == quoted.strip()
    assert read(b"\xff\xfe" + "Gr\xfc\xdfe aus K\xf6ln".encode("utf-16-le"), "text").texts == [
        "Gr\xfc\xdfe aus K\xf6ln"
    ]


def test_english_with_one_latin_1_letter_is_not_read_as_a_dos_code_page():
    # In DOS cp850, which charset-normalizer ranks first here, 0xE7 is "\xfe".
    text = "The original info page was graciously provided by Fran\xe7ois Pinard."

    assert read(text.encode("latin-1"), "text").texts == [text]


def test_control_characters_and_nuls_are_dropped():
    reading = read(b"A\x00B\x07C  D\n", "text")

    assert reading.texts == ["ABC D"]


def test_bytes_no_encoding_fits_still_read():
    reading = read(bytes(range(0x80, 0x100)) * 4, "text")

    assert reading.texts
    assert isinstance(reading.texts[0], str)
