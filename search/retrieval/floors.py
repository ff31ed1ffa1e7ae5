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

One floor for every query wastes what the query itself says. A query of one or two words
that no document holds ("wombat") lands near some chunk at up to 0.42 with the packaged
model, while a sentence that describes a passage in other words scores 0.2 to 0.6 with it:
the fewer words the model knows in a query, the less its vector says, and the more
similarity it takes to mean something. So for the packaged model the floor is a line in the
number of words it knows whole in the query (`WordsFloor`), fitted on the search
benchmark's tuned-on paraphrase queries and the calibration's queries that can match
nothing: a logistic regression of "this candidate is the passage" on the similarity and
the known words, and the line where that chance is 1.5 %, the lowest at which no
calibration query kept a candidate. A query gets the floor of its own length.
`python -m tests.bench.search` prints the line its own grid search would take beside this
one: the calibration queries are short, so past five words its slope is held by the
paraphrases alone, and it takes a steeper one; this one keeps 0.44 of the tuned-on
queries' passages against its 0.46, and answered none of the benchmark's 200 queries that
can match nothing.

In order, a search takes:
1. INGEST_SEARCH_MIN_SIMILARITY, when it is set;
2. the line fitted for the configured embedding (FITTED), at the query's known words;
3. the floor measured by `manage.py calibrate_search_floor` for the configured embedding
   (search.models.SimilarityFloor);
4. the `hashing` provider's 0;
5. else UNMEASURED, and `manage.py check --database default` (and `migrate`) warns that
   the floor was never measured.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

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


@dataclass(frozen=True)
class WordsFloor:
    """A floor that falls by `per_word` for each word the model knows in the query past the
    first, down to `most_words` of them."""

    one_word: float
    per_word: float
    most_words: int = 12

    def at(self, known: int) -> float:
        return self.one_word - self.per_word * (min(max(known, 1), self.most_words) - 1)


# Fitted by `python -m tests.bench.search` (tests/bench/search/evidence.py) on the
# paraphrase queries it tunes on (docs/working/benchmark-results.md).
FITTED = {"local:all-MiniLM-L6-v2-int8:384": WordsFloor(one_word=0.398, per_word=0.0198)}


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


def floor(q: str | None = None) -> float:
    """The least cosine similarity of a chunk found by its vector alone for query `q`
    (module docstring); without `q`, for a query of one word."""
    if settings.INGEST_SEARCH_MIN_SIMILARITY is not None:
        return float(settings.INGEST_SEARCH_MIN_SIMILARITY)
    signature = current_signature()
    if signature in FITTED:
        from search.embedding import local_provider

        return FITTED[signature].at(1 if q is None else local_provider.known_words(q))
    found = measured(signature)
    if found is not None:
        return found
    return LEXICAL_FLOOR if needs_shared_word() else UNMEASURED
