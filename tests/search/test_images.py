"""Images as documents, read in the sandboxed child: every image, and every page of a
TIFF, is a page OCR reads, upright as its EXIF orientation says, its words' boxes on it;
a picture too large to decode is refused before it is. Real Tesseract, real Pillow."""

import io

import pytest
from django.conf import settings as django_settings

from search.pipeline.errors import TooComplex, TooManyPages
from search.pipeline.extract import pages_to_index, read_document
from search.pipeline.page import OcrOrder
from tests.factories import scanned_image

RENT = "The tenant pays the rent on the first day of each month to the landlord."
KEYS = "The keys are returned to the agent when the lease ends next spring."
LIMITS = {"max_pages": 50, "timeout": 120, "memory_mb": django_settings.INGEST_OCR_MEMORY_MB}


def read(path, order: OcrOrder, **limits):
    return read_document(path, ocr=order, structure=True, **(LIMITS | limits))


@pytest.mark.parametrize(("form", "suffix"), [("PNG", ".png"), ("JPEG", ".jpg"), ("WEBP", ".webp")])
def test_an_image_of_text_is_one_page_read_by_ocr(tmp_path, form, suffix):
    path = tmp_path / f"scan{suffix}"
    path.write_bytes(scanned_image(RENT, form=form))

    extracted = read(path, OcrOrder("read"))

    [page] = pages_to_index(extracted, OcrOrder("read"))
    assert page.source == "ocr"
    assert "tenant pays the rent" in page.text
    assert extracted.scans == [1]
    structure = extracted.structure
    assert structure is not None
    [size] = structure.pages
    assert any("tenant" in block.text for block in structure.blocks)
    for block in structure.blocks:
        assert block.source == "ocr"
        assert 0 <= block.box.x0 < block.box.x1 <= size.width
        assert 0 <= block.box.y0 < block.box.y1 <= size.height


def test_each_page_of_a_tiff_is_a_page(tmp_path):
    path = tmp_path / "fax.tif"
    path.write_bytes(scanned_image(RENT, KEYS, form="TIFF"))

    extracted = read(path, OcrOrder("read"))

    first, second = pages_to_index(extracted, OcrOrder("read"))
    assert "tenant" in first.text
    assert "keys are returned" in second.text
    assert (first.number, second.number) == (1, 2)


def test_a_photograph_taken_sideways_is_read_upright(tmp_path):
    path = tmp_path / "photo.jpg"
    path.write_bytes(scanned_image(RENT, form="JPEG", turned=True))

    extracted = read(path, OcrOrder("read"))

    [page] = extracted.pages
    assert "tenant pays the rent" in page.text
    [size] = extracted.structure.pages
    assert size.height > size.width  # the page as it stands, not as it was stored


def test_finding_the_pages_of_an_image_reads_none_and_names_them_all(tmp_path):
    path = tmp_path / "fax.tif"
    path.write_bytes(scanned_image(RENT, KEYS, form="TIFF"))

    extracted = read_document(path, ocr=OcrOrder("find"), **LIMITS)

    assert extracted.scans == [1, 2]
    assert [page.text for page in extracted.pages] == ["", ""]


def test_a_picture_past_the_pixel_cap_is_refused_before_it_is_decoded(tmp_path):
    path = tmp_path / "huge.png"
    path.write_bytes(scanned_image(RENT, dpi=300))

    with pytest.raises(TooComplex, match="decompression bomb"):
        read(path, OcrOrder("read", max_pixels=1_000_000))


def test_a_tiff_of_more_pages_than_the_limit_is_refused(tmp_path):
    path = tmp_path / "fax.tif"
    path.write_bytes(scanned_image(RENT, KEYS, form="TIFF", dpi=50))

    with pytest.raises(TooManyPages):
        read(path, OcrOrder("read"), max_pages=1)


def test_light_letters_on_a_dark_ground_are_read(tmp_path):
    path = tmp_path / "dark.png"
    path.write_bytes(scanned_image(RENT, dark=True))

    extracted = read(path, OcrOrder("read"))

    assert "tenant pays the rent" in extracted.pages[0].text


def test_a_transparent_ground_is_read_as_white(tmp_path):
    path = tmp_path / "clear.png"
    path.write_bytes(scanned_image(RENT, transparent=True))

    extracted = read(path, OcrOrder("read"))

    assert "tenant pays the rent" in extracted.pages[0].text


def test_a_tiffs_page_is_drawn_alone_upright_and_a_missing_one_says_how_many(tmp_path):
    from PIL import Image

    from search.pipeline.errors import NoSuchPage
    from search.pipeline.sandbox.process import Sandbox

    path = tmp_path / "fax.tif"
    path.write_bytes(scanned_image(RENT, KEYS, form="TIFF", turned=True))
    sandbox = Sandbox(memory_mb=django_settings.INGEST_EXTRACT_MEMORY_MB)
    try:
        drawn = sandbox.render_page(path, number=2, width=300, timeout=30)
        with pytest.raises(NoSuchPage) as missing:
            sandbox.render_page(path, number=3, width=300, timeout=30)
    finally:
        sandbox.stop()

    picture = Image.open(io.BytesIO(drawn))
    assert picture.format == "PNG"
    assert picture.width == 300
    assert picture.height > picture.width  # upright: the page stands, as EXIF says
    assert missing.value.pages == 2
