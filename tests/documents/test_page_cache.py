"""Drawn pages kept on disk (documents/page_cache.py): read back whole, the least recently
used going first past the budget, a document's forgotten with it, none kept with no
budget."""

import os
import time
import uuid

import pytest

from documents import page_cache

IMAGE = 100 * 1024  # bytes: ten to the budget's MB


@pytest.fixture
def cache(settings, tmp_path):
    settings.PAGE_IMAGE_CACHE_DIR = tmp_path / "page-images"
    settings.INGEST_PAGE_IMAGE_CACHE_MB = 1
    return settings.PAGE_IMAGE_CACHE_DIR


def kept_bytes(root) -> int:
    return sum(entry.stat().st_size for entry in root.rglob("*.png"))


def test_an_image_is_read_back_as_it_was_kept(cache):
    document = uuid.uuid4()
    page_cache.put(document, "job-1-1000", b"\x89PNG one")

    assert page_cache.get(document, "job-1-1000") == b"\x89PNG one"
    assert page_cache.get(document, "job-1-600") is None
    assert page_cache.get(uuid.uuid4(), "job-1-1000") is None
    assert [p.name for p in (cache / str(document)).iterdir()] == ["job-1-1000.png"]


def test_past_the_budget_the_least_recently_used_go_first(cache):
    documents = [uuid.uuid4() for _ in range(3)]
    for number in range(15):
        page_cache.put(documents[number % 3], f"page-{number}", bytes(IMAGE))
        time.sleep(0.002)  # each its own modification time
        if number >= 1:
            assert page_cache.get(documents[0], "page-0") is not None  # used: kept

    assert kept_bytes(cache) <= 0.9 * 1024 * 1024
    assert page_cache.get(documents[0], "page-0") is not None
    assert page_cache.get(documents[1], "page-1") is None  # the oldest not used since
    assert page_cache.get(documents[2], "page-14") is not None  # the newest


def test_a_documents_images_are_forgotten_with_it_and_empty_directories_go(cache):
    gone, kept = uuid.uuid4(), uuid.uuid4()
    page_cache.put(gone, "a", b"\x89PNG a")
    page_cache.put(kept, "b", b"\x89PNG b")

    page_cache.forget(gone)
    os.unlink(cache / str(kept) / "b.png")
    page_cache.trim(1024 * 1024)

    assert page_cache.get(gone, "a") is None
    assert list(cache.iterdir()) == []


def test_no_budget_keeps_nothing(cache, settings):
    settings.INGEST_PAGE_IMAGE_CACHE_MB = 0
    document = uuid.uuid4()

    page_cache.put(document, "a", b"\x89PNG a")

    assert page_cache.get(document, "a") is None
    assert not cache.exists()
