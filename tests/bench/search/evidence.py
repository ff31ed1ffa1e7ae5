"""Fit the packaged model's floor line (search/retrieval/floors.py `WordsFloor`), for
`tests.bench.search`.

Each query's 20 nearest chunks by vector alone, from two sets: the paraphrase queries the
benchmark tunes on (a candidate is right when it runs over the query's page) and the
queries `manage.py calibrate_search_floor` asks, which can match nothing (every candidate
wrong). The line is the one of a grid (one word's floor, what each further word takes off)
under which no calibration query keeps a candidate and the most tuned-on queries keep
their passage among their first 5 candidates; of equals, the highest. Beside it, the
relevance weights (search/retrieval/relevance.py): a logistic regression of right on each
query's 5 nearest chunks' similarity, the words the model knows in the query (at most 12,
over 12) and how far each is behind the query's best. Never the held-out queries, nor the
noise sets the benchmark reports (other seeds, other words).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.bench.search.paraphrases import Paraphrase

DEPTH = 20
ONE_WORD = [round(0.30 + 0.002 * i, 3) for i in range(76)]  # 0.30 to 0.45
PER_WORD = [round(0.0005 * i, 4) for i in range(61)]  # 0 to 0.03
SHOWN = 5  # the relevance is fitted on each query's nearest SHOWN chunks
BINS = ((0.0, 0.1), (0.1, 0.3), (0.3, 0.5), (0.5, 1.01))


@dataclass
class Fit:
    one_word: float
    per_word: float
    found: float  # the share of tuned-on queries whose passage the line keeps in the top 5
    candidates: int
    # search/retrieval/relevance.py's weights, fitted on the same queries' nearest SHOWN
    relevance: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)


def _logistic(x: Any, y: Any) -> Any:
    """Weights of a logistic regression of `y` on the columns of `x` (Newton's method, a
    little ridge to keep them finite)."""
    import numpy as np

    w = np.zeros(x.shape[1])
    for _ in range(100):
        p = 1 / (1 + np.exp(-x @ w))
        step = np.linalg.solve(
            (x.T * (p * (1 - p))) @ x + 1e-3 * np.eye(x.shape[1]), x.T @ (p - y) + 1e-3 * w
        )
        w -= step
        if np.abs(step).max() < 1e-9:
            break
    return w


def _right(query: Paraphrase, filename: str, pages: list[int]) -> bool:
    return filename == query.file.rsplit("/", 1)[-1] and query.page in pages


def calibration(owner_id: int, queries: list[Paraphrase]) -> list[tuple[str, int, float]]:
    """Of the nearest SHOWN chunks of each query, by relevance as search gives it: (the
    bin, how many, the share that were the query's passage)."""
    from search.retrieval import relevance

    weights = relevance.weights()
    found: list[tuple[float, bool]] = []
    for query in queries:
        known, nearest = _candidates(owner_id, query.query)
        if weights is None or not nearest:
            continue
        best = nearest[0][2]
        found += [
            (weights.relevance(similarity, known, best), _right(query, filename, pages))
            for filename, pages, similarity in nearest[:SHOWN]
        ]
    table = []
    for low, high in BINS:
        picked = [right for value, right in found if low <= value < high]
        share = sum(picked) / len(picked) if picked else 0.0
        table.append((f"{low:.1f} to {min(high, 1.0):.1f}", len(picked), share))
    return table


def _candidates(owner_id: int, q: str) -> tuple[int, list[tuple[str, list[int], float]]]:
    """(the words the model knows in `q`, [(file name, pages, similarity)] of its nearest
    chunks)."""
    from search.embedding import local_provider
    from search.models import Chunk, page_range
    from search.retrieval import vector
    from search.retrieval.scope import Scope

    [embedding] = local_provider.embed([q])
    nearest = vector.nearest(Scope(owner_id=owner_id), embedding, DEPTH, exact=True)
    rows = Chunk.objects.select_related("document").in_bulk([i for i, _ in nearest])
    found = []
    for chunk_id, distance in nearest:
        chunk = rows[chunk_id]
        pages = page_range(chunk.page, chunk.page_end)
        found.append((chunk.document.filename, pages, 1 - distance))
    return local_provider.known_words(q), found


def fit(owner_id: int, tuned: list[Paraphrase]) -> Fit:
    """The line for the configured (local) embedding. Django must be set up."""
    import numpy as np

    from search.retrieval import calibrate, floors

    shown: list[tuple[float, float, float, float]] = []  # similarity, known, behind, right
    tuned_found: list[tuple[int, list[float]]] = []  # known, similarities of the right ones
    noise: list[tuple[int, float]] = []  # each calibration query: known, best similarity
    asked: list[tuple[str, Paraphrase | None]] = [(query.query, query) for query in tuned]
    asked += [(q, None) for q in calibrate.default_queries() if floors.trusts_vectors(q)]
    candidates = 0
    for text, query in asked:
        known, found = _candidates(owner_id, text)
        candidates += len(found)
        if not found:
            continue
        best = found[0][2]
        right = [query is not None and _right(query, f, pages) for f, pages, _ in found]
        for place, (_, _, similarity) in enumerate(found[:SHOWN]):
            shown.append((similarity, min(known, 12) / 12, similarity - best, float(right[place])))
        if query is None:
            noise.append((known, best))
        else:
            firsts = zip(found[:5], right[:5], strict=True)
            tuned_found.append((known, [s for (_, _, s), r in firsts if r]))

    def keeps(line: floors.WordsFloor) -> int:
        if any(best > line.at(known) for known, best in noise):
            return -1
        return sum(1 for known, sims in tuned_found if any(s > line.at(known) for s in sims))

    lines = [floors.WordsFloor(one, per) for one in ONE_WORD for per in PER_WORD]
    kept = max(reversed(lines), key=keeps)  # of equals, the highest floor (listed last)
    r = _logistic(
        np.array([[1.0, s, k, b] for s, k, b, _ in shown]), np.array([row[3] for row in shown])
    )
    return Fit(
        kept.one_word,
        kept.per_word,
        max(keeps(kept), 0) / max(len(tuned), 1),
        candidates,
        relevance=tuple(round(float(v), 3) for v in r),  # type: ignore[arg-type]
    )
