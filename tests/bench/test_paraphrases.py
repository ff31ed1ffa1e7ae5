"""The paraphrase set itself (tests/bench/search/paraphrases.py), without extracting anything:
its size, its documents in the corpus manifest, the held-out part, and the word count that
says which queries share a word with their page. The snippets and the share of queries
sharing no word need the pages' text: tests/bench/test_paraphrase_snippets.py."""

from collections import defaultdict
from pathlib import Path

from tests.bench.search.paraphrases import PARAPHRASES
from tests.bench.search.words import STOP_WORDS, content_stems, shared_words, stem
from tests.factories import CORPUS, corpus_rows

FILES = {p.file for p in PARAPHRASES}


def test_the_set_holds_at_least_150_queries_over_at_least_25_documents():
    assert len(PARAPHRASES) >= 150
    assert len(FILES) >= 25
    assert len({p.query for p in PARAPHRASES}) == len(PARAPHRASES)  # no query twice


def test_every_document_is_in_the_manifest_and_succeeds():
    rows = {row["file"]: row for row in corpus_rows(search_set=True)}
    assert FILES - set(rows) == set()
    assert all(rows[f]["expect"] == "succeeded" and (CORPUS / f).is_file() for f in FILES)
    for p in PARAPHRASES:
        assert 1 <= p.page <= int(rows[p.file]["pages"]), p


def test_file_names_tell_the_documents_apart():
    # The benchmark knows a hit's document by its file name alone.
    assert len({Path(f).name for f in FILES}) == len(FILES)


def test_a_third_of_the_queries_are_held_out_by_whole_documents():
    held = defaultdict(set)
    for p in PARAPHRASES:
        held[p.file].add(p.held_out)
    assert all(len(flags) == 1 for flags in held.values()), "a document is held out whole"
    held_out_files = [f for f, flags in held.items() if flags == {True}]
    assert len(held_out_files) >= 8
    held_out = sum(p.held_out for p in PARAPHRASES)
    assert len(PARAPHRASES) / 4 <= held_out <= len(PARAPHRASES) / 2
    # Both parts hold documents of the same kinds: a few of each are checked.
    for kind in ("slides", "ducks", "naacl06", "Vicksburg", "lppl"):
        assert any(kind in f for f in held_out_files), kind
    for kind in ("nlp2004slides", "beamer", "f1040nr", "GeoTopo", "dmca"):
        assert any(kind in f for f in FILES - set(held_out_files)), kind


def test_porter_stems_join_forms_of_a_word():
    # Examples from Porter's paper (1980).
    pairs = {
        "caresses": "caress",
        "ponies": "poni",
        "relational": "relat",
        "agreed": "agre",
        "hopping": "hop",
        "generalizations": "gener",
        "probate": "probat",
        "rate": "rate",
        "controll": "control",
        "triplicate": "triplic",
    }
    assert {word: stem(word) for word in pairs} == pairs
    assert stem("Files") == stem("file")
    assert stem("deductible") == stem("deduct")


def test_shared_words_leave_out_stop_words_and_compare_stems():
    assert {"how", "which", "does", "the", "und", "unless"} <= STOP_WORDS
    assert content_stems("How does the donut turn into a sphere?") == {"donut", "turn", "sphere"}
    assert shared_words("which files were copied", "The file is a copy.") == {"file", "copi"}
    assert shared_words("how much does a printed copy cost", "Ringbindung für 10 Euro") == set()
