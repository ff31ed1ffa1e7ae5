"""The search API's input and answer shapes (the answer's mirror search.retrieval.answer)."""

from rest_framework import serializers

from search.retrieval.query import MODES

MAX_QUERY_CHARS = 1000
SOURCES = ["text", "ocr"]  # search.models.Chunk.source
MAX_K = 50


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


class HitOut(serializers.Serializer):
    chunk_id = serializers.UUIDField()
    document_id = serializers.UUIDField()
    filename = serializers.CharField()
    version = serializers.IntegerField(help_text="The document's ready version.")
    page = serializers.IntegerField(help_text="1-based page the chunk comes from.")
    index = serializers.IntegerField(help_text="The chunk's position in the document.")
    score = serializers.FloatField(
        help_text="Higher is better; comparable within one answer only: `text` ts_rank_cd, "
        "`vector` cosine similarity, `hybrid` the reciprocal rank fusion."
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


class SearchOut(serializers.Serializer):
    query = serializers.CharField()
    mode = serializers.ChoiceField(choices=MODES)
    took_ms = serializers.FloatField(help_text="The whole search, the query's embedding included.")
    degraded = serializers.BooleanField(
        help_text="true: the query could not be embedded (the provider failed or is rate "
        "limited), so the results come from the words alone."
    )
    pending_documents = serializers.IntegerField(
        min_value=0,
        help_text="Your documents (or the one `document`) not searched yet because their "
        "first version is still being processed: search again once they are ready.",
    )
    results = HitOut(many=True, help_text="Best first; each passage once.")


class SearchErrorOut(serializers.Serializer):
    code = serializers.CharField(help_text="Stable: act on this.")
    detail = serializers.CharField(
        help_text="For people. With `invalid` the body also has `fields`: each wrong "
        "parameter and what is wrong with it."
    )
