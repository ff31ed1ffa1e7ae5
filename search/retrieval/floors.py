"""How similar to the query a chunk found by its vector alone must be: the floor, per embedding.

A vector list always has nearest neighbours: ask for a word no document holds and it still
gives the chunks nearest to it, at whatever similarity the model gives unrelated text. That
similarity is the model's own (a nonsense word: 0.27 to 0.31 with all-MiniLM-L6-v2; with
the `hashing` vectors anything up to 0.7), so no fixed floor serves every provider. The
floor of an embedding is measured (`calibrate`): queries that can match nothing, nonsense
words and real words no document holds, each one's nearest chunk, and the floor just over
the highest of those similarities.

The `hashing` provider's vectors cannot mean anything but shared words (one coordinate a
word, chosen by its hash), and that is also why they answered noise: a one-word query is a
vector with one coordinate, and among thousands of chunks some short one holds a word whose
hash falls on the same coordinate with the same sign, a cosine of 1/√(its words): 0.58 for
a three-word heading, 0.51 for "xyzzyplugh" in the corpus. So its vector side keeps only
chunks that share a word with the query (`needs_shared_word`; search/retrieval/vector.py), and its
floor is 0: what is left is lexical evidence, ranked by how many words it shares.

The `local` model has a like blind spot: a query of made-up words, cut into sub-word pieces,
lands near some chunk at 0.4 to 0.6, above what most paraphrases score with their passage
(0.33, the median on the benchmark's), so no floor could keep both. Its vectors are trusted
only for a query with a word the model knows whole (`trusts_vectors`).

In order, a search takes:
1. INGEST_SEARCH_MIN_SIMILARITY, when it is set;
2. the floor measured by `manage.py calibrate_search_floor` for the configured embedding
   (search.models.SimilarityFloor);
3. the floor the search benchmark measured on the test corpus for the packaged local model
   (MEASURED), or the `hashing` provider's 0;
4. else UNMEASURED, and `manage.py check --database default` (and `migrate`) warns that
   the floor was never measured.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import DatabaseError

from search.embedding.signature import current_signature

log = logging.getLogger(__name__)

# The floor of an embedding whose floor was never measured: above what unrelated text
# scores with the models measured here (all-MiniLM-L6-v2's nonsense words 0.27 to 0.31).
UNMEASURED = 0.35
# Providers whose vectors stand for words, not meaning.
LEXICAL_PROVIDERS = frozenset({"hashing"})
LEXICAL_FLOOR = 0.0
# Floors `python -m tests.bench.search` measured on the corpus (docs/working/benchmark-results.md).
MEASURED = {"local:all-MiniLM-L6-v2:384": 0.37}


def trusts_vectors(q: str) -> bool:
    """Whether the vectors of query `q` can mean anything: not when the `local` model knows
    none of its words (local_provider.knows_a_word; made-up words score up to 0.59 with
    all-MiniLM-L6-v2, real ones no document holds 0.35). Such a query is answered by its
    words alone."""
    if settings.INGEST_EMBED_PROVIDER != "local":
        return True
    from search.embedding import local_provider

    return local_provider.knows_a_word(q)


def needs_shared_word() -> bool:
    """Whether a vector hit must share a word with the query (the configured provider's
    vectors mean nothing else)."""
    return settings.INGEST_EMBED_PROVIDER in LEXICAL_PROVIDERS


def measured(signature: str) -> float | None:
    """The calibrated floor of `signature`, None when it was never measured."""
    from search.models import SimilarityFloor

    try:
        row = SimilarityFloor.objects.filter(signature=signature).first()
    except DatabaseError:  # a search still answers, with the fallback
        log.warning("could not read the similarity floor", exc_info=True)
        return None
    return None if row is None else row.floor


def floor() -> float:
    """The least cosine similarity of a chunk found by its vector alone (module docstring)."""
    if settings.INGEST_SEARCH_MIN_SIMILARITY is not None:
        return float(settings.INGEST_SEARCH_MIN_SIMILARITY)
    signature = current_signature()
    found = measured(signature)
    if found is not None:
        return found
    if signature in MEASURED:
        return MEASURED[signature]
    return LEXICAL_FLOOR if needs_shared_word() else UNMEASURED
