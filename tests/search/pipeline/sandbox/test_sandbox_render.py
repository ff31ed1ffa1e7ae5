"""Pages drawn as PNGs in the sandboxed child (search/pipeline/render.py): the width asked
for, the page as it is shown, the page count for a page the file lacks, and a page too
heavy to draw ended at its CPU time like a reading."""

import io
import zlib
from pathlib import Path

import pytest
from PIL import Image

from search.pipeline.errors import NoSuchPage, TooComplex
from search.pipeline.sandbox.pool import Pool
from tests.bench.structure import corpus
from tests.factories import make_pdf
from tests.search.handmade import pdf_with_content

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def pool():
    pool = Pool(size=1, recycle_after=50, memory_mb=512, extractor="pdfium")
    yield pool
    pool.close()


def write(directory: Path, content: bytes, name: str = "file.pdf") -> Path:
    path = directory / name
    path.write_bytes(content)
    return path


def drawn(png: bytes) -> Image.Image:
    assert png.startswith(PNG)
    return Image.open(io.BytesIO(png))


def test_a_page_is_drawn_at_the_width_asked_with_its_shape(pool, tmp_path):
    path = write(tmp_path, make_pdf(pages=3, words_per_page=60))

    narrow = drawn(pool.render_page(path, number=2, width=640, timeout=10))
    wide = drawn(pool.render_page(path, number=3, width=1999, timeout=10))

    assert narrow.width == 640
    assert abs(narrow.height - 640 * 297 / 210) < 1  # an A4 page
    assert wide.width == 1999
    assert narrow.mode == "L"  # black text on white: greys, no colour
    darkest, lightest = narrow.getextrema()
    assert darkest < 60  # black text...
    assert lightest == 255  # ...on a white page


def test_a_page_shown_turned_is_drawn_turned(pool, tmp_path):
    path = write(tmp_path, corpus.sideways().pdf)

    image = drawn(pool.render_page(path, number=1, width=1000, timeout=10))

    assert image.width == 1000
    assert abs(image.height - 1000 * 210 / 297) < 1


def test_a_page_the_file_does_not_have_says_how_many_it_has(pool, tmp_path):
    path = write(tmp_path, make_pdf(pages=3, words_per_page=10))

    with pytest.raises(NoSuchPage) as caught:
        pool.render_page(path, number=4, width=500, timeout=10)

    assert caught.value.pages == 3
    assert caught.value.code == "page_not_found"
    assert drawn(pool.render_page(path, number=3, width=500, timeout=10)).width == 500


def test_a_page_too_heavy_to_draw_ends_at_its_cpu_time(pool, tmp_path, patient_wall_clock):
    # 300,000 filled squares, 43 KB packed: seconds of drawing.
    squares = b"".join(b"%d %d 400 400 re f\n" % (i % 200, i % 300) for i in range(300_000))
    path = write(tmp_path, pdf_with_content(zlib.compress(squares, 9), filters=b"/FlateDecode"))

    with pytest.raises(TooComplex):
        pool.render_page(path, number=1, width=1000, timeout=0.5)

    assert pool.idle_pids() != []  # its successor is ready
    sound = write(tmp_path, make_pdf(pages=1, words_per_page=10), "sound.pdf")
    assert drawn(pool.render_page(sound, number=1, width=300, timeout=10)).width == 300
