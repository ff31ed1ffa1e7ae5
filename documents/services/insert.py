"""The upload's one statement: a new document and its first job in one round trip."""

import psycopg
from django.db import connection
from django.utils import timezone

from config.common.inserts import insert_parts
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
    The foreign keys between the rows are deferred, checked at commit. The job's half
    of the statement is jobs' (jobs.services.first_job_insert): one writer per table.
    """
    now = timezone.now()  # one clock for both rows: created, queued and sent at once
    document.created_at = now
    job = jobs.first_job(document=document, webhook_url=webhook_url, public_url=public_url)
    document.current_job_id = job.id
    doc_columns, doc_values, doc_params = insert_parts(document, now, cast=False)
    job_insert, job_params = jobs.first_job_insert(job=job, now=now, source="doc")
    statement = (
        f"WITH doc AS (INSERT INTO {Document._meta.db_table} ({doc_columns}) "
        f"VALUES ({doc_values}) ON CONFLICT (owner_id, sha256) DO NOTHING RETURNING 1) "
        f"{job_insert}"
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
