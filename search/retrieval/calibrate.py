"""Measure an embedding's floor (search/retrieval/floors.py) on the chunks the database holds.

The queries can match nothing: nonsense words (`nonsense`: pronounceable strings of random
syllables, seeded), real English words (`ABSENT_CANDIDATES`) that no ready chunk holds,
checked by full text first, and as many queries of several of those words at random. Each
is embedded by the configured provider and compared with every ready chunk the configured
embedding made (exactly: a sequential scan of the vectors; during a re-embedding the others'
are another model's); its nearest chunk's cosine similarity is what unrelated
text scores. The floor is the highest of those, rounded up to STEP, plus MARGIN: a floor
under any measured noise would let that query answer it. A query whose vector search
would not trust (search/retrieval/floors.py `trusts_vectors`) is left out.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from django.db import connection, transaction

from search.embedding import embed
from search.embedding.signature import current_signature
from search.models import SimilarityFloor
from search.retrieval import floors, vector
from search.retrieval.scope import ready_chunks as ready_chunks_sql
from search.retrieval.text import any_word_text

MARGIN = 0.05
STEP = 0.01
SYLLABLES = [c + v for c in "bdfgklmnprstvxz" for v in ("a", "e", "i", "o", "u", "y")]

# Ordinary words of everyday life, few of which turn up in contracts, forms or papers; those
# a database's chunks do hold are left out of a measurement there (`absent_words`).
ABSENT_CANDIDATES = tuple(
    (  # noqa: SIM905
        "giraffe pancake saxophone tangerine hedgehog lullaby trombone walrus meadowlark "
        "marshmallow kangaroo pistachio accordion flamingo dandelion toboggan platypus cinnamon "
        "harmonica porcupine gingerbread xylophone chipmunk buttercup lollipop pelican mandolin "
        "ostrich cupcake iguana snowflake tambourine raccoon popcorn sunflower banjo penguin "
        "doughnut armadillo ukulele pineapple caterpillar bagpipe hummingbird waffle chameleon "
        "kazoo peacock blueberry jellyfish tulip parakeet nutmeg hippopotamus ladybug "
        "strawberry squirrel cello zucchini lobster cauliflower gazelle tortoise avocado "
        "woodpecker clarinet coconut seahorse broccoli reindeer meerkat oboe artichoke "
        "butterfly toucan cranberry sparrow bassoon mushroom lemur pumpkin koala harpsichord "
        "raspberry dolphin asparagus mongoose eggplant otter marigold spinach salamander "
        "piccolo gorilla papaya cockatoo dragonfly chestnut narwhal"
    ).split()
)


@dataclass(frozen=True)
class Measurement:
    signature: str
    floor: float
    highest: float | None  # the highest nearest-chunk similarity; None: nothing was near
    queries: int
    chunks: int
    nearest: tuple[float, ...]  # each query's nearest-chunk similarity (none left out)


def nonsense(count: int, seed: int) -> list[str]:
    """`count` queries of one to three made-up words, each of two to four syllables."""
    rng = random.Random(seed)

    def word() -> str:
        return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))

    return [" ".join(word() for _ in range(rng.randint(1, 3))) for _ in range(count)]


def absent_words(words: list[str] | tuple[str, ...]) -> list[str]:
    """Those of `words` that no ready chunk holds (as full text finds words: any stem)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT w FROM unnest(%(words)s::text[]) w WHERE NOT EXISTS (SELECT 1 FROM "
            f"{ready_chunks_sql()} WHERE "
            "c.search_vector @@ websearch_to_tsquery('english'::regconfig, w)"
            " OR c.search_vector @@ websearch_to_tsquery('simple'::regconfig, w))",
            {"words": list(words)},
        )
        return [row[0] for row in cursor.fetchall()]


# Of the ready chunks, those whose vectors the configured embedding made: during a
# re-embedding the others' vectors are another model's, which no search compares.
CONFIGURED = "d.ready_embed_model = %(signature)s"


def ready_chunks() -> int:
    """The ready chunks whose vectors the configured embedding made: what is measured."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT count(*) FROM {ready_chunks_sql()} WHERE {CONFIGURED}",
            {"signature": current_signature()},
        )
        return int(cursor.fetchone()[0])


def nearest_similarity(embedding: list[float], *, sharing: str | None) -> float | None:
    """The highest cosine similarity of any ready chunk the configured embedding made to
    `embedding` (of those sharing a word with `sharing`, when given), exactly; None when
    no chunk is left."""
    condition = CONFIGURED
    params = {"v": vector.literal(embedding), "signature": current_signature()}
    if sharing is not None:
        condition += " AND " + vector.SHARES_A_WORD.format(c="c")
        params["any_words"] = any_word_text(sharing)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_indexscan = off")  # exact: not the HNSW index
        cursor.execute(
            "SELECT max(1 - (c.embedding <=> %(v)s::vector)) "
            f"FROM {ready_chunks_sql()} WHERE {condition}",
            params,
        )
        value = cursor.fetchone()[0]
    return None if value is None else float(value)


def measure(queries: list[str], *, shared_word: bool | None = None) -> Measurement:
    """The floor for the configured embedding from `queries` (that can match nothing).
    `shared_word` as the search would ask (None: as search/retrieval/floors.py decides)."""
    gate = floors.needs_shared_word() if shared_word is None else shared_word
    # What a search would not compare by vector (search/retrieval/floors.py) sets no floor either.
    queries = [q for q in queries if floors.trusts_vectors(q)]
    nearest = []
    for start in range(0, len(queries), 64):
        batch = queries[start : start + 64]
        for query, embedding in zip(batch, embed(batch), strict=True):
            found = nearest_similarity(embedding, sharing=query if gate else None)
            if found is not None:
                nearest.append(found)
    highest = max(nearest) if nearest else None
    if highest is None:
        floor = floors.LEXICAL_FLOOR if gate else 0.0
    else:
        floor = math.ceil(highest / STEP) * STEP + MARGIN
    return Measurement(
        signature=current_signature(),
        floor=round(floor, 4),
        highest=highest,
        queries=len(queries),
        chunks=ready_chunks(),
        nearest=tuple(nearest),
    )


def made_up_queries(count: int, seed: int) -> list[str]:
    """`count` nonsense queries none of whose words a ready chunk holds (a made-up word
    can be a real one: "data")."""
    kept: list[str] = []
    attempt = 0
    while len(kept) < count and attempt < 10:
        made_up = nonsense(2 * (count - len(kept)), seed + attempt)
        absent = set(absent_words(sorted({w for q in made_up for w in q.split()})))
        kept += [q for q in made_up if all(w in absent for w in q.split())]
        attempt += 1
    return kept[:count]


def default_queries(*, nonsense_count: int = 100, seed: int = 25) -> list[str]:
    """The nonsense queries, the absent words, and as many queries of two to eight of them
    at random (module docstring)."""
    absent = absent_words(ABSENT_CANDIDATES)
    rng = random.Random(seed)
    mixed = [" ".join(rng.sample(absent, min(len(absent), rng.randint(2, 8)))) for _ in absent]
    return made_up_queries(nonsense_count, seed) + absent + mixed


def save(measurement: Measurement) -> SimilarityFloor:
    row, _ = SimilarityFloor.objects.update_or_create(
        signature=measurement.signature,
        defaults={
            "floor": measurement.floor,
            "highest": measurement.highest,
            "queries": measurement.queries,
            "chunks": measurement.chunks,
        },
    )
    return row


def measure_and_store() -> Measurement:
    """Measure the configured embedding's floor with the default queries and keep it, as
    `manage.py calibrate_search_floor` does: what the sweeper runs once a re-embedding to a
    new embedding is done (documents/upkeep/embedding_change.py). Raises the provider's
    PipelineError when the queries cannot be embedded."""
    measurement = measure(default_queries())
    save(measurement)
    return measurement
