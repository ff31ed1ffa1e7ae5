"""The stored vectors' size must match INGEST_EMBED_DIMENSIONS: a system check, and the
same test for a worker's start-up (search/middleware.py). And a warning while the floor of a
model's vectors was never measured (search/retrieval/floors.py)."""

from collections.abc import Sequence

from django.conf import settings
from django.core.checks import CheckMessage, Error, Tags, Warning, register
from django.core.exceptions import ImproperlyConfigured
from django.db import DEFAULT_DB_ALIAS, connections, router

from search.models import Chunk, SimilarityFloor

# pgvector keeps vector(N)'s N as the column's type modifier (-1: no size given).
_COLUMN_DIMENSIONS = """
    SELECT atttypmod FROM pg_attribute
    WHERE attrelid = to_regclass(%s) AND attname = %s AND NOT attisdropped
"""


@register(Tags.database)
def check_embedding_dimensions(
    app_configs: Sequence[object] | None = None,
    databases: Sequence[str] | None = None,
    **kwargs: object,
) -> list[CheckMessage]:
    """An error when search_chunk.embedding's size differs from INGEST_EMBED_DIMENSIONS.

    Runs where Django runs database checks (`migrate`, `check --database default`); silent
    when the table does not exist yet (before the first migrate).
    """
    errors: list[CheckMessage] = []
    for alias in databases or ():
        if not router.allow_migrate_model(alias, Chunk):
            continue
        stored = column_dimensions(alias)
        if stored is not None and stored != settings.INGEST_EMBED_DIMENSIONS:
            errors.append(_mismatch(stored, settings.INGEST_EMBED_DIMENSIONS))
    return errors


def verify_embedding_column(alias: str = DEFAULT_DB_ALIAS) -> None:
    """Raise ImproperlyConfigured (message and hint) where the check would report an error."""
    for error in check_embedding_dimensions(databases=[alias]):
        raise ImproperlyConfigured(f"{error.msg} {error.hint}")


def column_dimensions(alias: str = DEFAULT_DB_ALIAS) -> int | None:
    """N of the vector(N) column in database `alias`; None without the table or a size."""
    connection = connections[alias]
    if connection.vendor != "postgresql":
        return None
    field = Chunk._meta.get_field("embedding")
    with connection.cursor() as cursor:
        cursor.execute(_COLUMN_DIMENSIONS, [Chunk._meta.db_table, field.column])
        row = cursor.fetchone()
    if row is None or row[0] < 1:
        return None
    return row[0]


def _mismatch(stored: int, configured: int) -> Error:
    table = Chunk._meta.db_table
    return Error(
        f"The {table}.embedding column holds {stored}-dimensional vectors, but "
        f"INGEST_EMBED_DIMENSIONS is {configured}.",
        hint=(
            f"Set INGEST_EMBED_DIMENSIONS={stored} to match the database, or change the "
            f"column in a new migration (delete the chunks, ALTER TABLE {table} ALTER COLUMN "
            f"embedding TYPE vector({configured}), then re-process the documents) and apply "
            f"it with `manage.py migrate --skip-checks`."
        ),
        obj=Chunk,
        id="search.E001",
    )


@register(Tags.database)
def check_similarity_floor(
    app_configs: Sequence[object] | None = None,
    databases: Sequence[str] | None = None,
    **kwargs: object,
) -> list[CheckMessage]:
    """A warning when a model's vectors are searched with a floor nobody measured."""
    # Here, not at the top: this module loads with the app, and search.embedding brings
    # the OpenAI client, which a process that only sends jobs never needs.
    from search.embedding.signature import current_signature
    from search.retrieval import floors

    if not databases or settings.INGEST_SEARCH_MIN_SIMILARITY is not None:
        return []
    if floors.needs_shared_word() or current_signature() in floors.FITTED:
        return []
    tables = connections[databases[0]].introspection.table_names()
    if SimilarityFloor._meta.db_table not in tables:  # before the first migrate
        return []
    if floors.measured(current_signature()) is not None:
        return []
    return [
        Warning(
            f"The similarity floor of {current_signature()} was never measured: results found "
            f"by their vector alone must be more similar than {floors.UNMEASURED}, a guess.",
            hint="The sweeper measures it once it has re-embedded the documents another "
            "embedding made (INGEST_AUTO_REEMBED); else run `manage.py calibrate_search_floor` "
            "once documents are ready, or set INGEST_SEARCH_MIN_SIMILARITY.",
            obj=Chunk,
            id="search.W001",
        )
    ]
