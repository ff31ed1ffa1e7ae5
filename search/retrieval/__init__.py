"""The query side of search: `query.search` answers a caller's question from their ready
chunks, through the full-text list (text_search.py, text.py) and the vector list
(vector.py, with the query's embedding from query_vector.py), fused and cut at the
embedding's measured floor (floors.py, calibrate.py), within the caller's scope
(scope.py), as Hits with their highlights (hits.py, answer.py); and a result's whole
passage for the document's page (passage.py)."""
