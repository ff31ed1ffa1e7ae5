"""A hit's `relevance`, 0..1: how likely it is to be the passage the query asks for.

A logistic regression, fitted per embedding by the search benchmark
(tests/bench/search/evidence.py) on the paraphrase queries it tunes on, each query's five
nearest chunks by vector, and queries that can match nothing, of three things: the
chunk's cosine similarity to the query, the words the model knows in the query (at most
12, over 12: a longer query's vector says more), and how far the chunk is behind the
query's most similar chunk in scope (0 for that one). On the queries it was not fitted on,
hits given 0.3 to 0.5 were the passage asked for 33 % of the time, 0.1 to 0.3 15 %
(docs/working/benchmark-results.md). A hit that is relevant but not the one passage a
query was written for counts as wrong there, so the figure is a floor of what it means.

Only an embedding it was fitted for has one (FITTED, the packaged local model); with any
other, and for a query the model knows no word of, a hit's relevance is None.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from search.embedding.signature import current_signature


@dataclass(frozen=True)
class Weights:
    bias: float
    similarity: float
    known_words: float  # times min(known words, 12) / 12
    behind_best: float  # times (similarity - the query's best similarity)

    def relevance(self, similarity: float, known: int, best: float) -> float:
        logit = (
            self.bias
            + self.similarity * similarity
            + self.known_words * min(known, 12) / 12
            + self.behind_best * (similarity - best)
        )
        return 1 / (1 + math.exp(-logit))


# Fitted by `python -m tests.bench.search` (tests/bench/search/evidence.py).
FITTED = {
    "local:all-MiniLM-L6-v2-int8:384": Weights(
        bias=-8.476, similarity=10.482, known_words=3.708, behind_best=5.204
    )
}


def weights() -> Weights | None:
    """The configured embedding's weights, None when none were fitted for it."""
    return FITTED.get(current_signature())
