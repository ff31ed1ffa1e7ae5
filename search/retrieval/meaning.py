"""Which documents in a search's scope it cannot compare by meaning: ready, but made by
another embedding than the configured one (while they are re-embedded after a change,
documents/upkeep/embedding_change.py), so the vector side leaves them out
(search/retrieval/vector.py) and their words alone find them. A search in `vector` or
`hybrid` mode says how many (up to COUNTED), and names LISTED of them.

One statement on the documents' own record of what made their vectors, through the index
of (owner, ready_embed_model) on ready documents: the signatures below and above the
configured one are two ranges of it, empty once every document is caught up, so in the
usual case it reads no row; in the middle of a re-embedding it reads at most COUNTED index
entries and LISTED rows, however large the account.
"""

from django.db import connection

from search.embedding.signature import current_signature
from search.retrieval.answer import ByWordsOnly
from search.retrieval.scope import Scope, document_table

COUNTED = 10_000  # counted up to this many: a long account is not counted through
LISTED = 20  # documents named in an answer


def by_words_only(scope: Scope) -> ByWordsOnly:
    """How many of the scope's ready documents another embedding made (counted up to
    COUNTED), and LISTED of them, in order of file name."""
    _, condition, params = scope.sql()  # conditions on the document `d` alone
    ready = f"{document_table()} d WHERE {condition} AND d.ready_version IS NOT NULL"
    # Each side a range of the index on (owner, ready_embed_model), which holds the id too:
    # the owner's condition and one of these, never their OR, which the planner may apply
    # as a filter to every one of the owner's documents. The few named are read by id.
    sides = ["d.ready_embed_model < %(signature)s", "d.ready_embed_model > %(signature)s"]
    other = " UNION ALL ".join(
        f"(SELECT d.id FROM {ready} AND {side} LIMIT %(counted)s)" for side in sides
    )
    sql = (
        f"WITH other AS MATERIALIZED ({other}) "
        "SELECT (SELECT count(*) FROM other), f.id, f.filename FROM (SELECT 1) one "
        f"LEFT JOIN {document_table()} f "
        "ON f.id IN (SELECT id FROM other LIMIT %(listed)s)"
    )
    arguments = {**params, "signature": current_signature(), "listed": LISTED, "counted": COUNTED}
    with connection.cursor() as cursor:
        cursor.execute(sql, arguments)
        rows = cursor.fetchall()
    shown = sorted((row[2], row[1]) for row in rows if row[1] is not None)
    count = min(rows[0][0], COUNTED)
    return ByWordsOnly(count, [(document_id, filename) for filename, document_id in shown])
