"""The full-text list: `websearch_to_tsquery` on the generated `search_vector` column.

The column holds each chunk's 'english' lexemes (stemmed, English stop words dropped)
and its 'simple' ones (every word as written, in any language), so the query is the OR of
the same two parses: "reports" finds "report" through the first, "Quartalszahlen" or
"للشركة" exactly through the second, and CJK runs match as phrases of characters
(search/retrieval/text.py). Ranked by `ts_rank_cd` (cover density: matches close together rank
higher).
"""

import uuid

from django.db import connection

from search.retrieval.scope import Scope
from search.retrieval.text import websearch_text

# The tsquery, as an SQL expression of the parameter %(words)s.
TSQUERY = (
    "(websearch_to_tsquery('english'::regconfig, %(words)s)"
    " || websearch_to_tsquery('simple'::regconfig, %(words)s))"
)


def ranked(scope: Scope, q: str, limit: int) -> list[tuple[uuid.UUID, float]]:
    """The best `limit` (chunk id, ts_rank_cd) in scope for `q`, best first."""
    tables, condition, params = scope.sql()
    sql = (
        f"SELECT c.id, ts_rank_cd(c.search_vector, t.query) AS rank "
        f"FROM {tables} CROSS JOIN (SELECT {TSQUERY} AS query) t "
        f"WHERE {condition} AND c.search_vector @@ t.query "
        "ORDER BY rank DESC, c.id LIMIT %(limit)s"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, {**params, "words": websearch_text(q), "limit": limit})
        return [(row[0], float(row[1])) for row in cursor.fetchall()]
