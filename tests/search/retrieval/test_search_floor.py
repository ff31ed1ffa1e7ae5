"""No noise: a query that can match nothing answers nothing in every mode, whatever the
provider (search/retrieval/floors.py), and a passage appears once."""

import hashlib
import io
import itertools
import math

import pytest
from django.conf import settings
from django.core.management import call_command

from documents.models import Document
from search.embedding import hashing_embed
from search.embedding.signature import current_signature
from search.models import Chunk, SimilarityFloor
from search.retrieval import calibrate, floors
from search.retrieval.query import MODES, search
from search.retrieval.text import any_word_text
from tests.fakes.openai_server import vector_for
from tests.search.chunks import ready_document

pytestmark = pytest.mark.django_db


def _coordinate(word: str, dimensions: int) -> tuple[int, int]:
    digest = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest())
    return (digest >> 1) % dimensions, digest & 1


def colliding_word(word: str) -> str:
    """A made-up word whose hashing coordinate and sign are `word`'s."""
    target = _coordinate(word, settings.INGEST_EMBED_DIMENSIONS)
    for n in itertools.count():
        candidate = f"zq{n}x"
        if _coordinate(candidate, settings.INGEST_EMBED_DIMENSIONS) == target:
            return candidate
    raise AssertionError("unreachable")


@pytest.mark.parametrize("mode", MODES)
def test_a_nonsense_word_whose_hash_collides_answers_nothing(alice, mode):
    # The cause of the noise: a one-word query is one coordinate; a short chunk holding a
    # word hashed to the same coordinate and sign is 1/sqrt(3) similar to it.
    ready_document(alice, ["invoice due today", "a long passage about travel expenses"])
    nonsense = colliding_word("invoice")
    query, chunk = hashing_embed([nonsense, "invoice due today"], settings.INGEST_EMBED_DIMENSIONS)
    assert sum(a * b for a, b in zip(query, chunk, strict=True)) == pytest.approx(1 / math.sqrt(3))

    assert search(owner_id=alice.pk, q=nonsense, mode=mode).results == []


@pytest.mark.parametrize("mode", ["vector", "hybrid"])
def test_the_hashing_vector_side_keeps_the_chunks_sharing_a_word(alice, mode):
    ready_document(alice, ["the invoice is due today", "a long passage about travel expenses"])

    # As text the query matches nothing (both words are needed); by its vector, one chunk.
    answer = search(owner_id=alice.pk, q="invoice zzqx", mode=mode)

    assert [hit.text for hit in answer.results] == ["the invoice is due today"]


def test_any_word_text_ors_the_words_and_makes_cjk_runs_phrases():
    assert any_word_text('"quarterly report" -draft OR 東京') == (
        'quarterly or report or draft or "東 京"'
    )


def test_a_passage_in_two_documents_appears_once_and_k_is_still_filled(alice):
    ready_document(alice, ["the budget for march", "the budget for april"], filename="a.pdf")
    ready_document(alice, ["the  budget for march"], filename="a-copy.pdf")
    ready_document(alice, ["the budget for may"], filename="b.pdf")

    for mode in MODES:
        texts = [hit.text for hit in search(owner_id=alice.pk, q="budget", k=3, mode=mode).results]
        assert len(texts) == 3, mode
        assert len({" ".join(text.split()) for text in texts}) == 3, (mode, texts)


def test_the_floor_is_the_setting_then_the_measured_one_then_the_fallback(settings):
    settings.INGEST_SEARCH_MIN_SIMILARITY = None
    assert floors.floor() == floors.LEXICAL_FLOOR  # hashing, never measured
    SimilarityFloor.objects.create(
        signature=current_signature(), floor=0.42, highest=0.4, queries=1, chunks=1
    )
    assert floors.floor() == 0.42
    settings.INGEST_SEARCH_MIN_SIMILARITY = 0.7
    assert floors.floor() == 0.7
    settings.INGEST_SEARCH_MIN_SIMILARITY = None
    settings.INGEST_EMBED_PROVIDER = "openai"  # another signature, never measured
    assert floors.floor() == floors.UNMEASURED


def test_a_measured_floor_keeps_out_vector_hits_under_it(alice, settings):
    settings.INGEST_SEARCH_MIN_SIMILARITY = None
    ready_document(alice, ["green pears", "red apples and green pears"])
    SimilarityFloor.objects.create(
        signature=current_signature(), floor=0.8, highest=0.78, queries=1, chunks=2
    )

    answer = search(owner_id=alice.pk, q="green pears", mode="vector")

    assert [hit.text for hit in answer.results] == ["green pears"]  # 1.0; the other 0.63


def _embedded_by_the_fake(document) -> None:
    """Re-embed the document's chunks as the fake OpenAI server would (unit length)."""
    for chunk in Chunk.objects.filter(document=document):
        raw = vector_for(chunk.text, settings.INGEST_EMBED_DIMENSIONS)
        norm = math.sqrt(sum(v * v for v in raw))
        chunk.embedding = [v / norm for v in raw]
        chunk.save(update_fields=["embedding"])


def test_calibration_measures_unrelated_text_and_searches_keep_to_it(
    alice, settings, openai_server
):
    settings.INGEST_SEARCH_MIN_SIMILARITY = None
    texts = [f"passage number {n} about the budget of the year" for n in range(40)]
    _embedded_by_the_fake(ready_document(alice, texts))

    out = io.StringIO()
    call_command("calibrate_search_floor", "--nonsense", "30", stdout=out)

    row = SimilarityFloor.objects.get(signature=current_signature())
    assert row.signature == "openai:text-embedding-3-small:384"
    assert row.chunks == 40
    assert row.queries >= 30 + 50  # the absent words too
    # The fake's vectors of different texts are random: unrelated pairs score about 0 ± 0.05.
    assert 0.05 < row.highest < 0.4
    assert row.floor == pytest.approx(math.ceil(row.highest / 0.01) * 0.01 + calibrate.MARGIN)
    assert f"floor {row.floor:.2f}" in out.getvalue()
    assert floors.floor() == row.floor

    # A chunk's own text is found by its vector (similarity 1); nonsense finds nothing.
    [hit] = search(owner_id=alice.pk, q=texts[7], mode="vector", k=1).results
    assert hit.index == 7
    for made_up in calibrate.nonsense(20, seed=99):
        assert search(owner_id=alice.pk, q=made_up, mode="vector").results == [], made_up


def test_calibration_leaves_out_the_vectors_another_embedding_made(alice, openai_server):
    texts = [f"passage number {n} about the budget of the year" for n in range(10)]
    _embedded_by_the_fake(ready_document(alice, texts))
    [query] = calibrate.nonsense(1, seed=7)
    # Still to be re-embedded: vectors of another model, one of them the query's own.
    other = ready_document(alice, ["old vectors"], filename="old.pdf")
    Document.objects.filter(id=other.id).update(ready_embed_model="hashing::384")
    raw = vector_for(query, settings.INGEST_EMBED_DIMENSIONS)
    norm = math.sqrt(sum(v * v for v in raw))
    Chunk.objects.filter(document=other).update(embedding=[v / norm for v in raw])

    measured = calibrate.measure([query])

    assert measured.chunks == 10
    assert measured.highest is not None
    assert measured.highest < 0.4  # not the 1.0 of the other model's vector


def test_calibration_of_the_hashing_vectors_shows_the_noise_the_shared_word_removes(alice):
    ready_document(alice, ["invoice due today", "a long passage about travel expenses"])
    queries = [colliding_word("invoice"), "zzqx"]

    without = calibrate.measure(queries, shared_word=False)
    gated = calibrate.measure(queries, shared_word=True)

    assert without.highest == pytest.approx(1 / math.sqrt(3), abs=1e-6)
    assert without.floor > without.highest
    assert (gated.highest, gated.floor) == (None, floors.LEXICAL_FLOOR)


def test_calibration_refuses_an_empty_database():
    with pytest.raises(Exception, match="nothing to measure against"):
        call_command("calibrate_search_floor", stdout=io.StringIO())


def test_a_model_never_measured_is_warned_of_and_the_warning_goes_once_measured(settings):
    from search.checks import check_similarity_floor

    settings.INGEST_SEARCH_MIN_SIMILARITY = None
    assert check_similarity_floor(databases=["default"]) == []  # hashing: nothing to measure
    settings.INGEST_EMBED_PROVIDER = "openai"

    [warning] = check_similarity_floor(databases=["default"])

    assert warning.id == "search.W001"
    assert "calibrate_search_floor" in warning.hint
    SimilarityFloor.objects.create(
        signature=current_signature(), floor=0.3, highest=0.28, queries=200, chunks=10
    )
    assert check_similarity_floor(databases=["default"]) == []
