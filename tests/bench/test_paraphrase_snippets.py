"""The paraphrase set against the pages our pipeline extracts: every snippet is verbatim
(spaces collapsed) on its page, as a job reads the file (tests.bench.search.paraphrases.
page_texts), and most queries share no content word with their page (tests/bench/search/
words.py). Extracts the 30 files the queries name, two at a time: some seconds."""

from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.bench.search.paraphrases import PARAPHRASES, page_texts
from tests.bench.search.words import shares_a_word

NO_SHARED_WORD = 0.5  # the least share of queries that share no content word with the page


@pytest.fixture(scope="module")
def pages() -> dict[str, dict[int, str]]:
    """Each file's pages, by number (each read is its own process; 2 cores)."""
    files = sorted({p.file for p in PARAPHRASES})
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(files, pool.map(page_texts, files), strict=True))


def test_every_snippet_is_on_its_page(pages):
    missing = [
        f"{p.file} page {p.page}: {p.snippet!r}"
        for p in PARAPHRASES
        if " ".join(p.snippet.split()) not in pages[p.file].get(p.page, "")
    ]
    assert missing == []


def test_most_queries_share_no_content_word_with_their_page(pages):
    sharing = [shares_a_word(p.query, pages[p.file][p.page]) for p in PARAPHRASES]
    assert sharing.count(False) / len(sharing) >= NO_SHARED_WORD
