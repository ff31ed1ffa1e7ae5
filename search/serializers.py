"""The search API's input and answer shapes (the answer's mirror search.retrieval.answer)."""

from rest_framework import serializers

from search.retrieval.meaning import COUNTED, LISTED
from search.retrieval.query import MODES
from search.retrieval.rerank import ERRORS as RERANK_ERRORS

MAX_QUERY_CHARS = 1000
SOURCES = ["text", "ocr"]  # search.models.Chunk.source
MAX_K = 200
MAX_RESULTS = 1000  # how deep paging through one query's results goes


class SearchIn(serializers.Serializer):
    """Query parameters. `q` is checked by the view (its own error codes); the others here."""

    q = serializers.CharField(
        required=False,
        allow_blank=True,
        trim_whitespace=False,
        help_text=f"What to look for, 1 to {MAX_QUERY_CHARS} characters: words, "
        '"a phrase", OR, -excluded (websearch syntax). Chinese and Japanese text matches '
        "as written, anywhere inside longer text.",
    )
    k = serializers.IntegerField(
        required=False, default=10, min_value=1, max_value=MAX_K, help_text="How many results."
    )
    mode = serializers.ChoiceField(
        choices=MODES,
        required=False,
        default="hybrid",
        help_text="`hybrid` (both, fused by reciprocal rank), `vector` (meaning) or `text` "
        "(words).",
    )
    document = serializers.UUIDField(
        required=False, help_text="Search this one document only (yours; else 404)."
    )
    cursor = serializers.CharField(
        required=False,
        help_text=f"From an answer's `next`: the results after it (the best {MAX_RESULTS} "
        "of a query can be paged through).",
    )


class LinksOut(serializers.Serializer):
    chunk = serializers.URLField(help_text="The chunk; add `?neighbours=N` for wider context.")
    document = serializers.URLField()
    content = serializers.URLField(help_text="The version's content (Markdown by default).")
    chunks = serializers.URLField(help_text="The version's chunks in reading order.")
    view = serializers.URLField(
        help_text="The document's page, opened at the hit's page with its boxes highlighted."
    )
    page_image = serializers.URLField(help_text="The hit's page as a PNG (`?width=`).")


class Cited(serializers.Serializer):
    """Where a chunk's passage is: a search hit's and the chunks endpoints' alike."""

    section = serializers.ListField(
        child=serializers.CharField(),
        help_text="Its heading path, top level first; empty before the first heading.",
    )
    pages = serializers.ListField(
        child=serializers.IntegerField(), help_text="Every page it runs over, first to last."
    )
    boxes = serializers.ListField(
        child=serializers.ListField(child=serializers.FloatField()),
        help_text="Where its parts are: [page, x0, y0, x1, y1] each, in points from the "
        "shown page's top-left corner.",
    )


class HitOut(Cited):
    chunk_id = serializers.UUIDField()
    document_id = serializers.UUIDField()
    filename = serializers.CharField()
    version = serializers.IntegerField(help_text="The document's ready version.")
    page = serializers.IntegerField(help_text="1-based page the chunk comes from.")
    index = serializers.IntegerField(help_text="The chunk's position in the document.")
    score = serializers.FloatField(
        help_text="Higher is better; comparable within one answer only: `text` ts_rank_cd, "
        "`vector` cosine similarity, `hybrid` the reciprocal rank fusion. With `reranked: "
        "true` the first results are in the reranker's order, whatever their score."
    )
    text = serializers.CharField(help_text="The chunk's text, as stored (not escaped).")
    highlight = serializers.CharField(
        help_text="HTML: the best passage, escaped, the matched words in <mark>; the "
        "beginning of the text when no word matched (a vector hit)."
    )
    # A field named like Field.source: the serializer's metaclass takes it off the class.
    source = serializers.ChoiceField(  # type: ignore[assignment]
        choices=SOURCES,
        help_text="Where the text of the chunk's page came from: `text`, the PDF's own text "
        "layer; `ocr`, read by OCR from a scanned image of the page, so it may hold "
        "misread words.",
    )
    confidence = serializers.FloatField(
        allow_null=True,
        min_value=0,
        max_value=1,
        help_text="With `source: ocr`, the OCR engine's mean confidence on the chunk's page, "
        "0 to 1 (three decimals); a low one means more misread words. null with `source: "
        "text`.",
    )
    relevance = serializers.FloatField(
        allow_null=True,
        min_value=0,
        max_value=1,
        help_text="How likely this is the passage the query asks for, 0 to 1 (three "
        "decimals), from its similarity to the query, the words the model knows in the "
        "query and how far it is behind the query's best match; calibrated on the search "
        "benchmark's paraphrase queries (docs/using/search.md says what each level meant "
        "there). null when the configured embedding has no fitted weights (anything but "
        "the packaged local model), in `text` mode, or when the query was not embedded.",
    )
    links = LinksOut()


class ByWordsOnlyOut(serializers.Serializer):
    document_id = serializers.UUIDField()
    filename = serializers.CharField()


class SearchOut(serializers.Serializer):
    query = serializers.CharField()
    mode = serializers.ChoiceField(choices=MODES)
    took_ms = serializers.FloatField(help_text="The whole search, the query's embedding included.")
    degraded = serializers.BooleanField(
        help_text="true: the query could not be embedded (the provider failed or is rate "
        "limited), so the results come from the words alone."
    )
    reranked = serializers.BooleanField(
        help_text="true: the first results are in the order of the rerank service "
        "(INGEST_RERANK_URL), `hybrid` and `vector` only. false: the search's own order, the "
        "reranker being off, not needed (a page past its top) or failed (`rerank_error`)."
    )
    rerank_error = serializers.ChoiceField(
        choices=RERANK_ERRORS,
        allow_null=True,
        help_text="Why the reranker's order is not used: `timeout` (not within "
        "INGEST_RERANK_TIMEOUT_MS), `unreachable`, `rate_limited`, `refused` (another 4xx: "
        "key, model), `failed` (5xx) or `malformed`; the results are then as without it. "
        "null when reranked or not asked.",
    )
    pending_documents = serializers.IntegerField(
        min_value=0,
        help_text="Your documents (or the one `document`) not searched yet because their "
        "first version is still being processed: search again once they are ready.",
    )
    not_searchable_by_meaning = serializers.IntegerField(
        min_value=0,
        help_text="In `hybrid` and `vector` modes: your documents (or the one `document`) that "
        "are ready but whose vectors another embedding made than the one configured now, "
        f"counted up to {COUNTED:,}. They are being re-embedded in the background; until "
        "each is, it is found by its words only. 0 in `text` mode.",
    )
    not_searchable_by_meaning_documents = ByWordsOnlyOut(
        many=True, help_text=f"{LISTED} of them at most, in order of file name."
    )
    results = HitOut(many=True, help_text="Best first; each passage once.")
    next = serializers.URLField(
        allow_null=True, help_text="The next results for the same query; null when none."
    )


class SearchErrorOut(serializers.Serializer):
    code = serializers.CharField(help_text="Stable: act on this.")
    detail = serializers.CharField(
        help_text="For people. With `invalid` the body also has `fields`: each wrong "
        "parameter and what is wrong with it."
    )
