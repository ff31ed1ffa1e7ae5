"""No chunk stored twice, and each succeeded job's chunks all there, read with SQL, so a
test (Django's connection) and the load test (a psycopg connection of its own) check the
same thing the same way. The constraints make a duplicate impossible; this checks, not
trusts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# Positions (document, version, index) stored more than once.
DUPLICATE_POSITIONS_SQL = """
SELECT count(*) FROM (SELECT 1 FROM search_chunk
                      GROUP BY document_id, version, index HAVING count(*) > 1) AS twice
"""
DUPLICATE_IDS_SQL = "SELECT count(*) - count(DISTINCT id) FROM search_chunk"
# Succeeded jobs whose version holds another number of chunks than the job counted.
WRONG_COUNTS_SQL = """
SELECT job.id::text FROM jobs_job AS job
LEFT JOIN (SELECT document_id, version, count(*) AS n FROM search_chunk
           GROUP BY document_id, version) AS stored
       ON stored.document_id = job.document_id AND stored.version = job.version
WHERE job.status = 'succeeded' AND coalesce(stored.n, 0) <> job.progress_total
"""


@dataclass(frozen=True)
class Twice:
    positions: int  # (document, version, index) stored more than once
    ids: int  # chunk ids stored more than once
    wrong_counts: list[str]  # succeeded jobs whose chunks do not add up to their total

    @property
    def clean(self) -> bool:
        return self.positions == 0 and self.ids == 0 and not self.wrong_counts


def check(cursor: Any) -> Twice:
    """The check, on a DB-API cursor (Django's `connection.cursor()` or psycopg's)."""
    cursor.execute(DUPLICATE_POSITIONS_SQL)
    positions = cursor.fetchone()[0]
    cursor.execute(DUPLICATE_IDS_SQL)
    ids = cursor.fetchone()[0]
    cursor.execute(WRONG_COUNTS_SQL)
    wrong = [row[0] for row in cursor.fetchall()]
    return Twice(positions, ids, wrong)
