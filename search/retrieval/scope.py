"""Which chunks a search may return: the owner's, of each document's ready version only,
and of documents with the tags and metadata asked for (`Filters`).

The SQL reads the table that each chunk's own foreign key points to (Chunk.document): its
`owner_id`, `ready_version`, `filename`, `tags` and `metadata` columns. That relation is
search's schema; no documents code is imported (pyproject.toml's import contracts).
"""

import json
import uuid
from dataclasses import dataclass
from typing import Any

from search.models import Chunk


def document_table() -> str:
    """The table of the documents the chunks belong to, as Chunk's foreign key names it."""
    return Chunk._meta.get_field("document").related_model._meta.db_table


def ready_chunks() -> str:
    """FROM every document's ready chunks, `c` joined to its document `d` (Scope.sql says
    why the join is on the ready version)."""
    return (
        f"{Chunk._meta.db_table} c JOIN {document_table()} d "
        "ON d.id = c.document_id AND c.version = d.ready_version"
    )


@dataclass(frozen=True)
class Filters:
    """Conditions on a chunk's document, as documents.labels parses them from a request.

    `tags`: the document has each. `metadata`: for each (key, values), the document's
    metadata holds one of the values under the key (`"2024"` or `2024`). Both are
    containment (`@>`), which the GIN indexes on the two columns serve.
    """

    tags: tuple[str, ...] = ()
    metadata: tuple[tuple[str, tuple[str | int | float | bool, ...]], ...] = ()

    def __bool__(self) -> bool:
        return bool(self.tags or self.metadata)

    def sql(self) -> tuple[str, dict[str, Any]]:
        """An SQL condition on `d` (the document, "" for none) and its parameters."""
        parts: list[str] = []
        params: dict[str, Any] = {}
        if self.tags:
            parts.append("d.tags @> %(filter_tags)s::varchar[]")
            params["filter_tags"] = list(self.tags)
        for n, (key, values) in enumerate(self.metadata):
            either = []
            for m, value in enumerate(values):
                name = f"filter_meta_{n}_{m}"
                either.append(f"d.metadata @> %({name})s::jsonb")
                params[name] = json.dumps({key: value})
            parts.append("(" + " OR ".join(either) + ")")
        return " AND ".join(parts), params


NO_FILTERS = Filters()


@dataclass(frozen=True)
class Scope:
    owner_id: int
    document_id: uuid.UUID | None = None
    filters: Filters = NO_FILTERS

    def sql(self) -> tuple[str, str, dict[str, Any]]:
        """(FROM …, a WHERE condition, its parameters) over `c` (the chunk) and `d` (its
        document).

        The join on `c.version = d.ready_version` is what keeps out a version still being
        written, and one that a newer ready version replaced but whose chunks are not yet
        deleted; a document with no ready version joins nothing.
        """
        tables = ready_chunks()
        condition = "d.owner_id = %(owner_id)s"
        params: dict[str, Any] = {"owner_id": self.owner_id}
        if self.document_id is not None:
            condition += " AND d.id = %(document_id)s"
            params["document_id"] = self.document_id
        if self.filters:
            filtered, filter_params = self.filters.sql()
            condition += f" AND {filtered}"
            params.update(filter_params)
        return tables, condition, params
