"""Full-text search over chunks: a generated tsvector column and its GIN index.

`search_words(text)` first turns < and > into spaces: Postgres's parser takes anything
like `<b ...>` for an HTML tag and indexes none of its words. (The highlight runs on the
HTML-escaped text, where they are entities, which the parser skips the same way.)

Then it puts a separator (U+001F, which the cleaning step removes from every
chunk, so it never occurs in one) around each CJK character: Postgres's parser makes one
token of a whole run of Chinese or Japanese, so without it only an identical run would
match. With it each character is a token, and a query's run becomes a phrase of
characters (search/retrieval/text.py), which matches it anywhere inside a longer run.

The column holds the 'english' configuration's lexemes (stemmed: "reports" finds
"report") and the 'simple' configuration's (exact words in any language, stop words
kept), so the query ORs the two. It is not a model field: only search/retrieval/query.py reads it,
with SQL, and the ORM should never load it with every Chunk.
"""

from django.db import migrations

CJK = r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\uff66-\uff9f]"

FORWARD = [
    f"""
    CREATE FUNCTION search_words(t text) RETURNS text
        LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
        RETURN regexp_replace(translate(t, '<>', '  '), '({CJK})', E'\\x1f\\\\1\\x1f', 'g')
    """,
    """
    ALTER TABLE search_chunk ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
        to_tsvector('english'::regconfig, search_words(text))
        || to_tsvector('simple'::regconfig, search_words(text))
    ) STORED
    """,
    "CREATE INDEX chunk_search_vector_gin ON search_chunk USING gin (search_vector)",
]

BACKWARD = [
    "DROP INDEX chunk_search_vector_gin",
    "ALTER TABLE search_chunk DROP COLUMN search_vector",
    "DROP FUNCTION search_words(text)",
]


class Migration(migrations.Migration):
    dependencies = [("search", "0001_initial")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
