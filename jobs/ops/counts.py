"""Jobs by state and lane, read from ops_jobcount (jobs.ops.models.JobCount), which
triggers on jobs_job keep exact: a scrape sums a handful of rows instead of counting a
history of millions."""

from django.db import connection

from jobs.models import JobStatus, Lane

# One statement, so the folded rows and their sum change places atomically; rows that
# concurrent statements add meanwhile are not in its snapshot and stay for the next fold.
_FOLD = """
WITH folded AS (DELETE FROM ops_jobcount RETURNING status, lane, n)
INSERT INTO ops_jobcount (status, lane, n)
SELECT status, lane, sum(n) FROM folded GROUP BY status, lane HAVING sum(n) <> 0
"""


def jobs_by_status_and_lane() -> dict[tuple[str, str], int]:
    """Every (status, lane) pair, zero where there are none."""
    pairs = ((status, lane) for status in JobStatus.values for lane in Lane.values)
    counts = dict.fromkeys(pairs, 0)
    with connection.cursor() as cursor:
        cursor.execute("SELECT status, lane, sum(n) FROM ops_jobcount GROUP BY status, lane")
        for status, lane, n in cursor.fetchall():
            counts[(status, lane)] = int(n)
    return counts


def fold() -> None:
    """Fold the rows the triggers added into one per (status, lane). The sweeper calls it
    each pass, so a scrape never sums more than a pass's worth of changes."""
    with connection.cursor() as cursor:
        cursor.execute(_FOLD)
