"""Which chunks a search may return: the owner's, of each document's ready version only.

The SQL reads the table that each chunk's own foreign key points to (Chunk.document): its
`owner_id`, `ready_version` and `filename` columns. That relation is search's schema; no
documents code is imported (pyproject.toml's import contracts).
"""

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
class Scope:
    owner_id: int
    document_id: uuid.UUID | None = None

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
        return tables, condition, params
