"""The upload's one statement: a new document and its first job in one round trip."""

import uuid
from datetime import datetime
from functools import cache

import psycopg
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.models import Field, Model
from django.utils import timezone

from documents.models import Document
from jobs import services as jobs
from jobs.models import Job


def insert_document_with_job(
    *, document: Document, webhook_url: str = "", public_url: str = ""
) -> Job | None:
    """Insert a new (unsaved) document together with its first queued job, unless its
    owner already has a document with the same sha256: then nothing is written and None
    is returned. The job's id is sent after commit (at once outside a transaction: the
    statement commits itself).

    This is the upload hot path, so both rows go in one round trip: a data-modifying
    CTE whose document INSERT gives way on the (owner, sha256) unique constraint and
    whose job INSERT takes its rows from that one. A concurrent upload of the same
    bytes waits on the constraint until the other commits, so exactly one of them wins.
    The foreign keys between the rows are deferred, checked at commit.
    """
    now = timezone.now()  # one clock for both rows: created, queued and sent at once
    document.created_at = now
    job = jobs.first_job(document=document, webhook_url=webhook_url, public_url=public_url)
    document.current_job_id = job.id
    doc_columns, doc_values, doc_params = _insert_parts(document, now, cast=False)
    job_columns, job_values, job_params = _insert_parts(job, now, cast=True)
    statement = (
        f"WITH doc AS (INSERT INTO {Document._meta.db_table} ({doc_columns}) "
        f"VALUES ({doc_values}) ON CONFLICT (owner_id, sha256) DO NOTHING RETURNING 1) "
        f"INSERT INTO {Job._meta.db_table} ({job_columns}) SELECT {job_values} FROM doc"
    )
    connection.ensure_connection()
    # A plain psycopg cursor binds on the server and prepares the statement after a few
    # runs: this one is the same on every upload, and Django's client-side binding
    # (quoting 30 parameters in Python) cost more than the INSERTs themselves.
    with connection.wrap_database_errors, psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(statement, doc_params + job_params)
        if cursor.rowcount == 0:
            return None
    document._state.adding = False
    document.current_job = job
    jobs.first_job_inserted(job=job)
    return job


def _insert_parts(row: Model, now: datetime, *, cast: bool) -> tuple[str, str, list]:
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
