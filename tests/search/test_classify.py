import pytest

from search.pipeline.classify import classify_text
from search.pipeline.errors import NoText
from search.pipeline.page import Page

PROSE = "The quick brown fox jumps over the lazy dog, again and again. " * 20


def pages(*texts: str) -> list[Page]:
    return [Page(number, text) for number, text in enumerate(texts, start=1)]


def test_pages_without_a_letter_or_digit_have_no_text():
    with pytest.raises(NoText, match="it looks scanned, and OCR is off"):
        classify_text(pages("\x0c", "  \n", "-- . --"))


def test_glyphs_pdfminer_could_not_map_are_not_text():
    with pytest.raises(NoText):
        classify_text(pages("(cid:12)(cid:7) (cid:3)"))


def test_no_pages_at_all_have_no_text():
    with pytest.raises(NoText):
        classify_text([])


def test_a_label_on_some_images_and_nothing_on_the_others_looks_scanned():
    with pytest.raises(NoText):
        classify_text(pages("Background", "Background", "", "Background"))


def test_a_few_words_on_every_page_are_text():
    classify_text(pages("habibi", "habibi", "habibi", "habibi"))


def test_a_single_short_page_is_text():
    classify_text(pages("Test"))


def test_a_blank_page_in_a_document_with_real_text_is_fine():
    classify_text(pages(PROSE, "", PROSE))
