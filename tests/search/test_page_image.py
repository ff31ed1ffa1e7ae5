"""A page's image made ready for OCR (search/pipeline/page_image.py): rules out, letters
and bars kept; and what that does for Tesseract on the corpus's ruled table and tax form.
"""

import pypdfium2  # type: ignore[import-untyped]
import pytest
from django.conf import settings as django_settings
from PIL import Image, ImageDraw

from search.pipeline.ocr import Engine
from search.pipeline.page_image import without_rules
from tests.bench.ocr.metric import cer
from tests.factories import CORPUS

DPI = 300
GOOGLE_DOC = "py-pdf__sample-files/011-google-doc-document/google-doc-document.pdf"
TAX_FORM = "pdfminer__pdfminer.six/samples/nonfree/f1040nr.pdf"


def inked(image: Image.Image, box: tuple[int, int, int, int]) -> int:
    """Dark pixels of `image` inside `box`."""
    return sum(image.crop(box).histogram()[:128])


def test_thin_long_lines_go_and_short_or_thick_ink_stays():
    page = Image.new("L", (1200, 900), 255)
    draw = ImageDraw.Draw(page)
    draw.rectangle((100, 100, 1100, 102), fill=0)  # a rule across: 3 px, 3.3 inches
    draw.rectangle((600, 150, 602, 850), fill=0)  # a rule down
    draw.rectangle((100, 300, 180, 302), fill=0)  # a dash: 0.27 inch, shorter than a rule
    draw.rectangle((100, 400, 500, 440), fill=0)  # a black bar: 0.13 inch thick
    draw.rectangle((700, 500, 730, 800), fill=0)  # a headline letter's stem: 1 inch tall

    cleaned, area = without_rules(page, DPI)

    assert inked(cleaned, (100, 95, 1100, 108)) == 0
    assert inked(cleaned, (595, 150, 608, 850)) == 0
    assert inked(cleaned, (100, 300, 181, 303)) == inked(page, (100, 300, 181, 303)) > 0
    assert inked(cleaned, (100, 400, 501, 441)) == inked(page, (100, 400, 501, 441))
    assert inked(cleaned, (700, 500, 731, 801)) == inked(page, (700, 500, 731, 801))
    # Two rules, 1000 and 700 pixels long and 3 thick.
    assert area == pytest.approx((1001 * 3 + 701 * 3) / DPI**2, rel=0.01)


def test_a_page_without_rules_is_given_back_as_it_is():
    page = Image.new("L", (600, 600), 255)
    ImageDraw.Draw(page).rectangle((100, 100, 140, 140), fill=0)
    assert without_rules(page, DPI) == (page, 0.0)


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine("eng", django_settings.INGEST_OCR_TESSDATA)


def page_image(name: str, number: int) -> tuple[Image.Image, str]:
    """Page `number` of a corpus file rendered as a 300 dpi scan, and its text layer."""
    pdf = pypdfium2.PdfDocument(CORPUS / name)
    try:
        page = pdf[number - 1]
        textpage = page.get_textpage()
        truth = textpage.get_text_bounded()
        image = page.render(scale=DPI / 72, grayscale=True).to_pil()
        textpage.close()
        page.close()
    finally:
        pdf.close()
    image.info["dpi"] = (DPI, DPI)
    return image, truth


def test_a_ruled_table_is_read_cell_by_cell(engine):
    # Boxed in by its rules, Tesseract took this table for a picture and read 2 of these.
    image, _ = page_image(GOOGLE_DOC, 1)
    words = set(engine.read(image).text.split())
    cells = "Continent Asia Europe Capital Jakarta Berlin Vienna Paris Vatican Currency Rupia"
    assert set(cells.split()) <= words


def test_a_form_the_layout_analysis_garbles_is_read_again_line_by_line(engine):
    # Read as a page of columns and blocks, this form page scored 38 % CER; as sparse
    # text, 6 %.
    image, truth = page_image(TAX_FORM, 4)
    reading = engine.read(image)
    assert cer(reading.text, truth).rate < 0.15
    assert reading.confidence >= 0.9
