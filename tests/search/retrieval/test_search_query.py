"""search.retrieval.query.search over chunks written straight into the table: scope, modes,
ranking."""

import pytest

from search.retrieval.query import MODES, rrf, search
from search.retrieval.text import websearch_text
from tests.search.chunks import add_chunks, ready_document

pytestmark = pytest.mark.django_db

ALICE_TEXTS = [
    "The quarterly report shows revenue growth in every region.",
    "Employees must file travel expenses within thirty days.",
    "Die Quartalszahlen wurden im Bericht veröffentlicht.",
    "التقرير السنوي للشركة يظهر نموا في الإيرادات",
    "東京都の人口は約1400万人です。日本の首都です。",
    "北京是中国的首都 上海是最大的城市。",
]


@pytest.mark.parametrize("mode", MODES)
def test_only_the_callers_documents_are_searched(alice, bob, mode):
    ready_document(alice, ["alice writes about the quarterly report"])
    theirs = ready_document(bob, ["bob writes about the quarterly report"], filename="b.pdf")

    answer = search(owner_id=alice.pk, q="quarterly report", mode=mode)

    assert [hit.text for hit in answer.results] == ["alice writes about the quarterly report"]
    assert theirs.id not in {hit.document_id for hit in answer.results}
    assert (answer.query, answer.mode, answer.degraded) == ("quarterly report", mode, False)
    assert answer.took_ms > 0


@pytest.mark.parametrize("mode", MODES)
def test_only_each_documents_ready_version_is_searched(alice, mode):
    document = ready_document(alice, ["old version: invoice from march"])
    # Version 2 is being processed: its chunks are written, ready_version is still 1.
    document.version = 2
    document.save(update_fields=["version"])
    add_chunks(document, 2, ["new version: invoice from april"])
    # A document whose first version is still being processed has no ready version.
    unready = ready_document(alice, ["unready: invoice from may"], filename="c.pdf")
    unready.ready_version = None
    unready.save(update_fields=["ready_version"])

    answer = search(owner_id=alice.pk, q="invoice", mode=mode)

    assert [(hit.text, hit.version) for hit in answer.results] == [
        ("old version: invoice from march", 1)
    ]

    document.ready_version = 2  # version 2 completes; version 1's rows are not yet deleted
    document.save(update_fields=["ready_version"])

    answer = search(owner_id=alice.pk, q="invoice", mode=mode)

    assert [(hit.text, hit.version) for hit in answer.results] == [
        ("new version: invoice from april", 2)
    ]


def test_a_document_filter_keeps_to_that_document(alice):
    first = ready_document(alice, ["contract terms for the lease"])
    second = ready_document(alice, ["lease renewal terms"], filename="second.pdf")

    answer = search(owner_id=alice.pk, q="lease terms", document_id=second.id)

    assert [hit.document_id for hit in answer.results] == [second.id]
    assert first.id != second.id


def test_text_mode_ranks_the_closest_match_first_and_stems_english(alice):
    ready_document(
        alice,
        [
            "Nothing about it here at all.",
            "A report was filed; much later, somewhere else, growth happened.",
            "The report shows strong growth.",
            "Growing reports.",
        ],
    )

    answer = search(owner_id=alice.pk, q="report growth", mode="text")

    # The words close together rank first.
    assert [hit.index for hit in answer.results] == [2, 1]
    assert answer.results[0].score > answer.results[1].score > 0
    assert answer.embed_ms == 0
    # English stemming: "reporting" finds "report" and "reports", "grows" finds "growing".
    stemmed = search(owner_id=alice.pk, q="reporting grows", mode="text")
    assert [hit.index for hit in stemmed.results] == [3]
    reporting = search(owner_id=alice.pk, q="reporting", mode="text")
    assert {hit.index for hit in reporting.results} == {1, 2, 3}


@pytest.mark.parametrize(
    ("q", "expected"),
    [
        ("Quartalszahlen", 2),  # German, as written ('simple')
        ("للشركة", 3),  # Arabic, as written
        ("東京", 4),  # Japanese: a phrase inside a longer run
        ("首都 上海", 5),  # Chinese: two phrases
        ("expenses", 1),
    ],
)
def test_text_mode_finds_words_in_each_language_of_the_corpus(alice, q, expected):
    ready_document(alice, ALICE_TEXTS)

    answer = search(owner_id=alice.pk, q=q, mode="text")

    assert [hit.index for hit in answer.results][:1] == [expected]
    assert "<mark>" in answer.results[0].highlight


def test_a_cjk_query_matches_the_characters_in_order_not_anywhere(alice):
    ready_document(alice, ["京都と東北", "東京タワー"])

    answer = search(owner_id=alice.pk, q="東京", mode="text")

    assert [hit.text for hit in answer.results] == ["東京タワー"]
    assert answer.results[0].highlight == "<mark>東京</mark>タワー"


def test_cjk_runs_become_phrases_inside_and_outside_quotes():
    assert websearch_text("東京 tower") == ' "東 京"  tower'
    assert websearch_text('"visit 東京 now"') == '"visit  東 京  now"'
    assert websearch_text("plain words -not") == "plain words -not"


def test_highlights_escape_the_text_and_mark_only_the_matches(alice):
    ready_document(
        alice,
        ["<script>alert('x')</script> the report & \"summary\" <b>bold</b>"],
    )

    [hit] = search(owner_id=alice.pk, q="report script", mode="text").results

    assert "<script>" not in hit.highlight
    assert "<b>" not in hit.highlight
    assert "<mark>script</mark>&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in hit.highlight
    assert "<mark>report</mark> &amp; &quot;summary" in hit.highlight
    assert hit.highlight.replace("<mark>", "").replace("</mark>", "").count("<") == 0
    assert hit.text.startswith("<script>")  # the text itself is returned as stored


def test_a_vector_hit_without_a_word_match_is_shown_by_its_escaped_beginning(alice):
    ready_document(alice, ["<i>first</i> " + "word " * 100])

    # It shares "word" with the query, which as text (both words) matches nothing.
    [hit] = search(owner_id=alice.pk, q="word zzz", mode="vector").results

    assert hit.highlight.startswith("&lt;i&gt;first&lt;/i&gt; word word")
    assert hit.highlight.endswith(" …")
    assert len(hit.highlight) < 300


def test_vector_mode_ranks_by_cosine_similarity(alice):
    ready_document(alice, ["red apples and green pears", "fast cars", "green pears"])

    answer = search(owner_id=alice.pk, q="green pears", mode="vector", k=3)

    # "fast cars" shares no word: the hashing vectors can say nothing of it.
    assert [hit.text for hit in answer.results] == ["green pears", "red apples and green pears"]
    assert answer.results[0].score == pytest.approx(1.0)
    assert answer.results[0].score > answer.results[1].score


def test_k_limits_the_results(alice):
    ready_document(alice, [f"invoice number {n}" for n in range(30)])

    for mode in MODES:
        assert len(search(owner_id=alice.pk, q="invoice", k=7, mode=mode).results) == 7


def test_rrf_adds_reciprocal_ranks_with_k_60():
    a, b, c = "a", "b", "c"

    scores = rrf([[a, b], [b, c]])

    assert scores == {a: 1 / 61, b: 1 / 62 + 1 / 61, c: 1 / 62}


def test_hybrid_fuses_both_lists(alice):
    # Chunk 0 matches the words and is near in vector space; chunk 1 only shares words
    # (text list), chunk 2 is the nearest vector but shares no exact word.
    ready_document(
        alice,
        [
            "solar panel installation guide",
            "the guide, in many pages, later mentions one solar thing and a panel",
            "solar panels installations guides",
        ],
    )

    hybrid = search(owner_id=alice.pk, q="solar panel installation guide", mode="hybrid", k=3)
    text = search(owner_id=alice.pk, q="solar panel installation guide", mode="text", k=3)
    vector = search(owner_id=alice.pk, q="solar panel installation guide", mode="vector", k=3)

    assert hybrid.results[0].index == 0  # first in both lists
    ranks = {hit.chunk_id: 1 / (60 + r) for r, hit in enumerate(text.results, start=1)}
    for r, hit in enumerate(vector.results, start=1):
        ranks[hit.chunk_id] = ranks.get(hit.chunk_id, 0) + 1 / (60 + r)
    assert [hit.score for hit in hybrid.results] == sorted(ranks.values(), reverse=True)
