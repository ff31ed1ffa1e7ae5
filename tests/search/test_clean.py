from search.pipeline.clean import clean_text


def test_it_removes_nul_and_control_characters():
    assert clean_text("ab\x00c\x07d\x1b") == "abcd"


def test_it_joins_words_hyphenated_across_lines():
    assert clean_text("docu-\nment pro-\n  cessing") == "document processing"


def test_it_keeps_a_hyphen_that_is_not_at_a_line_break():
    assert clean_text("state-of-the-art") == "state-of-the-art"


def test_it_collapses_spaces_and_blank_lines():
    assert clean_text("a   b\t\tc\n\n\n\nd  \n") == "a b c\n\nd"


def test_it_normalises_unicode_compatibility_forms():
    assert clean_text("ﬁle") == "file"


def test_it_drops_unmapped_glyph_placeholders():
    assert clean_text("Th(cid:12)e (cid:3)end") == "The end"
