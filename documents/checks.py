"""A note for whoever starts the service (`migrate`, `manage.py check --database default`):
ready documents whose vectors another embedding made than the configured one, and what
happens to them (documents/upkeep/embedding_change.py)."""

from collections.abc import Sequence

from django.conf import settings
from django.core.checks import CheckMessage, Info, Tags, register
from django.db import DatabaseError, connections

from documents.models import Document
from documents.upkeep import reembed


@register(Tags.database)
def check_embedding_change(
    app_configs: Sequence[object] | None = None,
    databases: Sequence[str] | None = None,
    **kwargs: object,
) -> list[CheckMessage]:
    """documents.I001 while documents wait to be re-embedded for the configured embedding."""
    # Here, not at the top: search.embedding brings the OpenAI client, which a process
    # that only sends jobs never needs (search/checks.py does the same).
    from search.embedding.signature import current_signature

    if not databases:
        return []
    if Document._meta.db_table not in connections[databases[0]].introspection.table_names():
        return []  # before the first migrate
    target = current_signature()
    try:
        made_by = reembed.made_by(reembed.out_of_date(reembed.Scope(target=target)))
    except DatabaseError:  # a schema still to be migrated: migrate checks before it applies
        return []
    if not made_by:
        return []
    makers = ", ".join(
        f"{count} by {signature or 'an unrecorded embedding'}"
        # Most first; of equals, by name, the unrecorded last: the same words each time.
        for signature, count in sorted(made_by.items(), key=lambda i: (-i[1], not i[0], i[0]))
    )
    if settings.INGEST_AUTO_REEMBED:
        hint = (
            "The sweeper re-embeds them in the background, a wave at a time on the batch "
            "lane, then measures the new embedding's floor; search finds them by their words "
            "until each is done."
        )
    else:
        hint = (
            "INGEST_AUTO_REEMBED is off: `manage.py reprocess embeddings` re-embeds them; "
            "search finds them by their words until then."
        )
    return [
        Info(
            f"{sum(made_by.values())} ready documents were embedded by another embedding "
            f"than the configured {target}: {makers}.",
            hint=hint,
            id="documents.I001",
        )
    ]
