import pytest

from search.pipeline.classify import classify_text, unreadable
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


SENTENCE = "The committee reviewed the spring timetable before the holiday and then left. "
# Cyrillic letters that look like Latin ones.
LOOKALIKES = str.maketrans(
    {"e": "\u0435", "o": "\u043e", "a": "\u0430", "i": "\u0456", "p": "\u0440"}
)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("(cid:12)(cid:40)(cid:7) " * 20, "its glyphs map to no character"),
        (
            "".join(chr(0xE000 + ord(c)) for c in SENTENCE),
            "its glyphs map to private-use characters",
        ),
        ("\x01\x02\x03\x04 " * 20, "its glyphs map to control characters"),
        # Cyrillic letters that look Latin, inside Latin words: an old OCR's wrong alphabet.
        (SENTENCE.translate(LOOKALIKES) * 2, "its words mix alphabets"),
        (
            "Qxzt Prvb Klmn Strw Bcdf Ghjk Lmnp Qrst Vwxz Bcdfg Hjklm Npqrs " * 2,
            "its letters make no words",
        ),
    ],
)
def test_a_text_layer_that_cannot_be_read_says_why(text, why):
    assert unreadable(text) == why


@pytest.mark.parametrize(
    "text",
    [
        SENTENCE * 3,
        "Peněžní prostředky na účtech jsou splatné na požádání; zbývající částky prst krk. " * 2,
        "Съешь же ещё этих мягких французских булок да выпей чаю, сказал Иван. " * 2,
        "Faktura nr FV 1/2021 Data wystawienia 2021-04-26 Termin płatności przelew " * 3,
        "(cid:12) The one odd glyph in a page of text is no reason to read it again. " * 3,
        "Too short: (cid:1)(cid:2)",
    ],
)
def test_a_readable_text_layer_or_one_too_short_to_judge_is_left_alone(text):
    assert unreadable(text) is None
