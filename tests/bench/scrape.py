"""`python -m tests.bench.scrape`: how long one /metrics scrape takes with a long history.

A private Postgres and Redis (as `make bench`), a million job rows (`--jobs`) over ten
thousand documents, in the proportions a busy week leaves: nearly all succeeded, some
failed and cancelled, a backlog of a few thousand queued and a few dozen processing, and
an attempt record for each of the last day's jobs. Then the view itself is called
(Django's test client, no HTTP) as Prometheus would call it, and the time per scrape is
reported: the target is under 50 ms.
"""

import argparse
import time

from tests.bench.report import RESULTS, percentile, write_section
from tests.bench.services import django_on_private_services

TARGET_MS = 50.0

# One statement per table: users, documents, jobs (statuses by share), attempts.
FILL_SQL = """
INSERT INTO auth_user (username, password, is_superuser, first_name, last_name, email,
                       is_staff, is_active, date_joined)
SELECT 'bench' || n, '!', false, '', '', '', false, true, now()
FROM generate_series(1, 100) AS n;

INSERT INTO documents_document (id, owner_id, filename, size, stored_bytes, sha256, storage_key,
                                version, page_count, created_at, updated_at)
SELECT md5('doc' || n)::uuid, (SELECT min(id) FROM auth_user) + n % 100, 'file' || n || '.pdf',
       100000, 100000, md5('doc' || n) || md5('doc' || n), 'bench/' || n, 1, 3, now(), now()
FROM generate_series(1, 10000) AS n;

INSERT INTO jobs_job (id, document_id, owner_id, version, storage_key, lane, status, attempts,
                      progress_done, progress_total, error_code, error_detail, worker,
                      created_at, queued_at, enqueued_at, started_at, heartbeat_at, finished_at)
SELECT md5('job' || n)::uuid, md5('doc' || (n % 10000 + 1))::uuid,
       (SELECT min(id) FROM auth_user) + (n % 10000 + 1) % 100, 1, 'bench/' || n,
       CASE WHEN n % 10 = 0 THEN 'batch' ELSE 'fast' END,
       CASE WHEN n <= QUEUED THEN 'queued'
            WHEN n <= QUEUED + 40 THEN 'processing'
            WHEN n % 50 = 0 THEN 'failed'
            WHEN n % 97 = 0 THEN 'cancelled'
            ELSE 'succeeded' END,
       1, 0, 0, '', '', '',
       now() - (n || ' seconds')::interval * 0.6, now() - (n || ' seconds')::interval * 0.6,
       now() - (n || ' seconds')::interval * 0.6, now() - (n || ' seconds')::interval * 0.6,
       now(), now() - (n || ' seconds')::interval * 0.6 + interval '20 seconds'
FROM generate_series(1, JOBS) AS n;

UPDATE jobs_job SET finished_at = NULL WHERE status IN ('queued', 'processing');

INSERT INTO jobs_jobattempt (job_id, number, worker, started_at, finished_at, outcome,
                             error_code, error_message, traceback)
SELECT id, 1, 'bench', started_at, finished_at, status, '', '', ''
FROM jobs_job WHERE status IN ('succeeded', 'failed') AND started_at > now() - interval '1 day';

VACUUM ANALYZE;
"""


def fill(jobs: int, queued: int) -> None:
    from django.db import connection

    started = time.perf_counter()
    with connection.cursor() as cursor:
        for statement in FILL_SQL.split(";\n"):
            if statement.strip():
                sql = statement.replace("JOBS", str(jobs)).replace("QUEUED", str(queued))
                cursor.execute(sql)
    print(f"filled {jobs} jobs in {time.perf_counter() - started:.0f} s")


def measure(jobs: int, queued: int, scrapes: int) -> dict[str, float]:
    import django

    django.setup()
    from django.test import Client

    fill(jobs, queued)
    client = Client(HTTP_HOST="localhost")
    for _ in range(3):  # warm: connections, plans, the multiprocess files
        client.get("/metrics")
    times = []
    for _ in range(scrapes):
        started = time.perf_counter()
        response = client.get("/metrics")
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200
    times.sort()
    return {
        "jobs": jobs,
        "queued": queued,
        "scrapes": scrapes,
        "p50": percentile(times, 50),
        "p95": percentile(times, 95),
        "max": times[-1],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1_000_000)
    parser.add_argument("--queued", type=int, default=3000)
    parser.add_argument("--scrapes", type=int, default=100)
    parser.add_argument("--no-write", action="store_true", help="leave the results page alone")
    args = parser.parse_args()
    with django_on_private_services("ingest-scrape-bench-"):
        result = measure(args.jobs, args.queued, args.scrapes)
    text = report(result)
    print(text)
    if not args.no_write:
        write_section(RESULTS, "bench-scrape", text, by="python -m tests.bench.scrape")
    if result["p95"] > TARGET_MS:
        raise SystemExit(f"a scrape took {result['p95']:.1f} ms at p95, over {TARGET_MS:g} ms")


def report(r: dict[str, float]) -> str:
    verdict = "PASS" if r["p95"] <= TARGET_MS else "FAIL"
    return (
        f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} with "
        f"`python -m tests.bench.scrape`: {r['jobs']:,} job rows ({r['queued']:,} queued, 40 "
        f"processing, the rest finished), {r['scrapes']} scrapes of /metrics through "
        "Django's test client, one after another.\n\n"
        "| p50 ms | p95 ms | max ms | target | verdict |\n|---|---|---|---|---|\n"
        f"| {r['p50']:.1f} | {r['p95']:.1f} | {r['max']:.1f} | p95 under {TARGET_MS:g} ms "
        f"| {verdict} |\n"
    )


if __name__ == "__main__":
    main()
