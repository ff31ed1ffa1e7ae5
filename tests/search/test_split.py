import itertools

import pytest

from search.pipeline.page import Page
from search.pipeline.split import split_pages

TEXT = " ".join(f"word{i}" for i in range(1000))


def test_chunks_respect_the_size_limit_and_cover_the_text():
    pieces = list(split_pages([Page(1, TEXT)], size=200, overlap=40))

    assert all(len(piece.text) <= 200 for piece in pieces)
    words = {word for piece in pieces for word in piece.text.split()}
    assert words == set(TEXT.split())


def test_consecutive_chunks_overlap():
    pieces = list(split_pages([Page(1, TEXT)], size=200, overlap=40))

    for first, second in itertools.pairwise(pieces):
        assert first.text.split()[-1] in second.text.split()[:10]


def test_chunks_never_cross_a_page_boundary():
    pages = [Page(1, "alpha " * 50), Page(2, "beta " * 50)]

    pieces = list(split_pages(pages, size=120, overlap=20))

    assert {piece.page for piece in pieces} == {1, 2}
    for piece in pieces:
        expected = "alpha" if piece.page == 1 else "beta"
        assert set(piece.text.split()) == {expected}


def test_indexes_run_on_across_pages_and_empty_pages_add_nothing():
    pages = [Page(1, "one two"), Page(2, "   "), Page(3, "three")]

    pieces = list(split_pages(pages, size=100, overlap=10))

    assert [(p.index, p.page, p.text) for p in pieces] == [(0, 1, "one two"), (1, 3, "three")]


def test_a_word_longer_than_a_chunk_is_cut_and_still_progresses():
    pieces = list(split_pages([Page(1, "x" * 450)], size=200, overlap=50))

    assert all(len(piece.text) <= 200 for piece in pieces)
    assert pieces[-1].text.endswith("x")


def test_overlap_must_be_smaller_than_size():
    with pytest.raises(ValueError, match="overlap"):
        list(split_pages([Page(1, TEXT)], size=100, overlap=100))
