"""The pages read, told as the reader goes: by both readers, and from the sandboxed child
in small frames before its answer, throttled, checked, and able to stop the child."""

import io
from pathlib import Path

import pytest

from search.pipeline.errors import TransientError
from search.pipeline.reader import read_pdf
from search.pipeline.sandbox import process
from search.pipeline.sandbox.pool import Pool
from search.pipeline.sandbox.process import PROGRESS_SECONDS, Sandbox
from tests.factories import make_pdf

PAGES = 60


@pytest.fixture(scope="module")
def long_pdf(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("progress") / "long.pdf"
    path.write_bytes(make_pdf(pages=PAGES, words_per_page=300))
    return path


@pytest.mark.parametrize("extractor", ["pdfminer", "pdfium"])
def test_each_reader_tells_the_count_first_then_every_page(extractor):
    told: list[tuple[int, int]] = []

    texts = read_pdf(
        io.BytesIO(make_pdf(pages=5, words_per_page=200)),
        max_pages=10,
        extractor=extractor,
        on_pages=lambda done, total: told.append((done, total)),
    )

    assert len(texts) == 5
    assert told[0] == (0, 5)
    assert told[-1] == (5, 5)
    assert [done for done, _ in told] == sorted({done for done, _ in told})


def test_the_child_tells_the_pages_read_throttled_before_its_answer(long_pdf):
    reader = Sandbox(memory_mb=512)
    told: list[tuple[int, int]] = []
    try:
        texts = reader.read(
            long_pdf, max_pages=100, timeout=60, on_pages=lambda d, t: told.append((d, t))
        )
    finally:
        reader.stop()

    assert len(texts) == PAGES
    assert told[0] == (0, PAGES)  # the count, before any page is read
    assert all(total == PAGES for _, total in told)
    assert [done for done, _ in told] == sorted(done for done, _ in told)
    # A frame every PROGRESS_SECONDS at most, not one per page (unless it read that slowly).
    assert 1 < len(told) < PAGES
    assert len(told) <= 2 + round(60 / PROGRESS_SECONDS)


def test_what_the_listener_raises_stops_the_child_and_comes_back_to_the_caller(long_pdf):
    class Stop(Exception):
        pass

    def stop_at_once(done: int, total: int) -> None:
        raise Stop

    pool = Pool(size=1, recycle_after=10, memory_mb=512, extractor="pdfminer")
    try:
        with pytest.raises(Stop):
            pool.read(long_pdf, max_pages=100, timeout=60, on_pages=stop_at_once)
        # The child that was stopped is replaced: the next document is read as usual.
        assert len(pool.read(long_pdf, max_pages=100, timeout=60)) == PAGES
    finally:
        pool.close()


@pytest.mark.parametrize(
    "progress",
    [{"done": 3, "total": 2}, {"done": -1, "total": 2}, {"done": "1", "total": 2}, {"total": 2}],
)
def test_a_progress_frame_that_is_not_two_sensible_counts_is_a_garbled_answer(progress):
    with pytest.raises(ValueError, match="a progress frame"):
        process._pages_read({"progress": progress}, max_pages=10)


def test_a_count_over_the_page_limit_is_garbled_too():
    with pytest.raises(ValueError, match="a progress frame"):
        process._pages_read({"progress": {"done": 0, "total": 11}}, max_pages=10)


def test_a_garbled_frame_ends_the_reading_as_a_crash(long_pdf, monkeypatch):
    monkeypatch.setattr(process, "_pages_read", lambda payload, max_pages: int("garbled"))
    reader = Sandbox(memory_mb=512)
    try:
        with pytest.raises(TransientError) as caught:
            reader.read(long_pdf, max_pages=100, timeout=60)
    finally:
        reader.stop()
    assert caught.value.code == "extractor_crashed"
    assert not reader.alive()
