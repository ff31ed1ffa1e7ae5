"""The parts of a hand-written INSERT of an unsaved model instance: its columns,
placeholders and parameters, the values computed as Model.save() would. For the upload's
one statement (documents/services/insert.py), where each app writes its own row's part.
"""

import uuid
from datetime import datetime
from functools import cache

from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.models import Field, Model


def insert_parts(row: Model, now: datetime, *, cast: bool) -> tuple[str, str, list]:
    """Columns, placeholders and parameters to INSERT an unsaved model instance, the
    values computed as Model.save() would (defaults), but `now` for auto_now(_add)
    fields. With `cast`, placeholders carry their column's type, for an INSERT ...
    SELECT where nothing else types them.
    """
    columns, placeholders = _insert_sql(type(row), cast)
    db = connections[DEFAULT_DB_ALIAS]  # the thread's connection, looked up once, not per field
    params = []
    for field, stamped, plain_type in _fields(type(row)):
        if stamped:
            setattr(row, field.attname, now)
            value: object = now
        else:
            value = field.pre_save(row, add=True)
        # Values psycopg adapts as they are (None, or the field's own Python type) skip
        # Field.get_db_prep_save, which was most of the upload's Python time here.
        if value is None or (plain_type is not None and type(value) is plain_type):
            params.append(value)
        else:
            params.append(field.get_db_prep_save(value, db))
    return columns, placeholders, params


# Field classes whose get_db_prep_save gives a value of this Python type back unchanged on
# PostgreSQL (native uuid, text, integers, booleans). Datetimes keep Django's handling
# (a naive one is made aware).
_PLAIN_TYPES: dict[str, type] = {
    "UUIDField": uuid.UUID,
    "CharField": str,
    "TextField": str,
    "IntegerField": int,
    "BigIntegerField": int,
    "PositiveIntegerField": int,
    "PositiveSmallIntegerField": int,
    "SmallIntegerField": int,
    "BooleanField": bool,
}


@cache
def _fields(model: type[Model]) -> list[tuple[Field, bool, type | None]]:
    """Each concrete field, whether it is stamped with `now`, and its plain Python type."""
    return [
        (
            field,
            bool(getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False)),
            _PLAIN_TYPES.get(field.get_internal_type()),
        )
        for field in model._meta.local_concrete_fields
    ]


def _column(field: Field) -> str:
    # A concrete field is one with a column: Django sets `concrete = column is not None`.
    assert field.column is not None
    return field.column


@cache
def _insert_sql(model: type[Model], cast: bool) -> tuple[str, str]:
    fields = model._meta.local_concrete_fields
    columns = ", ".join(connection.ops.quote_name(_column(field)) for field in fields)
    placeholders = ", ".join(
        f"%s::{field.cast_db_type(connection)}" if cast else "%s" for field in fields
    )
    return columns, placeholders
