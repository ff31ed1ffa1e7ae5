"""`python -m tests.bench.scale [--runs 30]` (in `make bench`): the service over years of
data. The scale database (`make scale-data`, built first when it is not there) is copied to
a working database, which the run may change and then drops:

1. the read paths (tests/bench/scale/paths.py), `--runs` times each, p95 against 300 ms
   (a page of chunks and a chunk with its neighbours against 50 ms),
   with the plans of their statements on the large tables (written to
   docs/working/scale-plans.md);
2. the upload acknowledgement, the claim, a chunk's insert and the pipeline's pages per
   second (tests/bench/scale/writes.py), on the scale database and on an empty one;
3. erasing the 200,000-document account while another account uploads
   (tests/bench/scale/erase.py).

Before it starts, the copy is made to look live (`make_live`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psycopg

from tests.bench.report import RESULTS, write_section
from tests.bench.scale import build, erase, paths
from tests.bench.services import BASE_DIR, manage, start_services
from tests.factories import CORPUS, corpus_rows

PLANS = BASE_DIR / "docs" / "working" / "scale-plans.md"
COPY = "scale_run"
LARGE, SMALL, UPLOADER = "user1", "user2", "user3"
# The paths are timed one after another in one thread: no throttle, no fair-share wait.
ENV = {
    "INGEST_SEARCH_THROTTLE_RATE": "1000000/min",
    "INGEST_MAX_RUNNING_PER_USER": "1000000",
    "PYTHONPATH": str(BASE_DIR),
}
LIVE = """
UPDATE jobs_job SET enqueued_at = now(), queued_at = now(), created_at = now(), attempts = 0
 WHERE status = 'queued';
UPDATE jobs_job SET started_at = now(), heartbeat_at = now(), attempts = 1
 WHERE status = 'processing';
CREATE TEMPORARY TABLE given AS
 SELECT DISTINCT document_id AS id FROM search_chunk ORDER BY 1 LIMIT %(given)s;
UPDATE documents_document SET owner_id = (SELECT id FROM auth_user WHERE username = %(small)s)
 WHERE id IN (SELECT id FROM given);
UPDATE jobs_job SET owner_id = (SELECT id FROM auth_user WHERE username = %(small)s)
 WHERE document_id IN (SELECT id FROM given);
CREATE TEMPORARY TABLE long_document AS SELECT id FROM given ORDER BY id LIMIT 1;
INSERT INTO search_chunk (id, document_id, version, index, text, page, source, confidence,
  embedding, section, page_end, boxes)
 SELECT gen_random_uuid(), l.id, own.version, own.last + row_number() OVER (ORDER BY c.id),
  c.text, c.page, c.source, c.confidence, c.embedding, c.section, c.page_end, c.boxes
 FROM long_document l
 CROSS JOIN (SELECT max(version) AS version, max(index) AS last FROM search_chunk
  WHERE document_id = (SELECT id FROM long_document)) own
 CROSS JOIN LATERAL (SELECT * FROM search_chunk WHERE document_id IN (SELECT id FROM given)
  AND document_id <> l.id ORDER BY id LIMIT %(long)s) c;
UPDATE documents_document SET ready_embed_model = %(signature)s
 WHERE ready_version IS NOT NULL AND ready_embed_model <> %(signature)s;
ANALYZE documents_document;
ANALYZE jobs_job;
"""
GIVEN = 100  # documents, with their 4,000 chunks: what a small account has to search
LONG = 960  # chunks more for one of them: a document of 1,000, for the chunk list's pages
SIGNATURE = "from search.embedding.signature import current_signature; print(current_signature())"


def make_live(env: dict[str, str], url: str) -> None:
    """The copy as a running system would look: its backlog new and sent a moment ago, its
    processing jobs on their first attempt and beating (the snapshot's are as old as its
    build, and builds before 2026-12-05 gave them attempts); a small account given a
    hundred of the large one's documents with chunks, so that its search has something to
    find, one of them made 1,000 chunks long (copies of the others'), so that the chunk
    list has pages of 100 to give; and every ready version (the chunks' vectors are
    random) labelled as made by the embedding configured, which search compares only with
    its own (the build labels them as the default's, `hashing`). Then ANALYZE, as
    autovacuum would after so many changed rows."""
    signature = manage(env, "shell", "-c", SIGNATURE).strip().splitlines()[-1]
    params = {"given": GIVEN, "small": SMALL, "signature": signature, "long": LONG}
    with psycopg.connect(url, autocommit=True) as conn, conn.cursor() as cursor:
        for statement in LIVE.split(";\n"):
            if statement.strip():
                cursor.execute(
                    statement, {k: v for k, v in params.items() if f"%({k})s" in statement}
                )


def working_copy(server_url: str) -> tuple[str, float]:
    """A copy of the kept database to change; its URL and the seconds the copy took."""
    maintenance = server_url.rsplit("/", 1)[0] + "/template1"
    began = time.monotonic()
    with psycopg.connect(maintenance, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {COPY}")
        conn.execute(f"CREATE DATABASE {COPY} TEMPLATE postgres STRATEGY FILE_COPY")
    return server_url.rsplit("/", 1)[0] + f"/{COPY}", time.monotonic() - began


def drop_copy(server_url: str) -> None:
    with psycopg.connect(server_url.rsplit("/", 1)[0] + "/template1", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {COPY} WITH (FORCE)")


def writes_on(env: dict[str, str], files: list[Path]) -> dict[str, float]:
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        command = [sys.executable, "-m", "tests.bench.scale.writes", "--json", out.name]
        subprocess.run([*command, "--files", *map(str, files)], env=env, check=True)
        return json.loads(Path(out.name).read_text())


def writes_on_empty(files: list[Path]) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="ingest-scale-empty-") as root:
        services = start_services(Path(root))
        try:
            env = {**services.env, **ENV}
            manage(env, "migrate", "--noinput", "--verbosity", "0")
            return writes_on(env, files)
        finally:
            services.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--files", type=int, default=4, help="corpus files for pages/s")
    parser.add_argument("--no-erase", action="store_true", help="skip the erasure")
    parser.add_argument("--no-write", action="store_true", help="leave the results page alone")
    parser.add_argument("--root", type=Path, default=build.ROOT, help="the kept database")
    args = parser.parse_args()
    if not (args.root / "built.json").exists():
        build.main(["--root", str(args.root)])
    built = json.loads((args.root / "built.json").read_text())
    files = [CORPUS / row["file"] for row in corpus_rows() if row["expect"] == "succeeded"]
    files = files[: args.files]
    empty = writes_on_empty(files)
    services = start_services(args.root)
    try:
        url, copy_seconds = working_copy(services.database_url)
        env = {**services.env, **ENV, "DATABASE_URL": url}
        manage(env, "migrate", "--noinput", "--verbosity", "0")  # a build older than the code
        make_live(env, url)
        with psycopg.connect(url, autocommit=True) as conn:
            index_bytes = build._one(conn, "SELECT pg_relation_size('chunk_embedding_hnsw')")
        manage(env, "shell", "-c", OPERATOR)
        scale = writes_on(env, files)
        os.environ.update(env, DJANGO_SETTINGS_MODULE="config.settings")
        import django

        django.setup()
        print("read paths:", flush=True)
        measured = paths.measure(paths.read_paths(LARGE, SMALL), args.runs)
        erased = None if args.no_erase else erase.erase_while_uploading(env, LARGE, UPLOADER)
        from django.db import connections

        connections.close_all()
        drop_copy(services.database_url)
    finally:
        services.stop()
    figures = {"copy_seconds": copy_seconds, "index_bytes": index_bytes}
    text = report(built, measured, scale, empty, erased, figures, args.runs)
    print(text)
    if not args.no_write:
        write_section(RESULTS, "bench-scale", text, by="python -m tests.bench.scale")
        PLANS.write_text(plans_page(measured))
    slow = [path.name for path in measured if path.targeted and path.p95 > path.target_ms]
    if slow:
        raise SystemExit(f"over their targets at p95: {', '.join(slow)}")


OPERATOR = """
from django.contrib.auth import get_user_model
users = get_user_model().objects
if not users.filter(username="operator").exists():
    users.create_superuser("operator", "", "x")
"""


def report(
    built: dict,
    measured: list[paths.Path],
    scale: dict[str, float],
    empty: dict[str, float],
    erased: erase.Erasure | None,
    figures: dict[str, float],
    runs: int,
) -> str:
    holds, seconds = built["holds"], built["seconds"]
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    lines = [
        f"Run {when} with `python -m tests.bench.scale`, on the database `make scale-data` "
        f"built on {built['built'][:10]} in {seconds['total'] / 60:.0f} minutes: "
        f"{holds['accounts']:,} accounts, {holds['documents']:,} documents (the largest "
        f"account {holds['largest account' + chr(39) + 's documents']:,}), {holds['jobs']:,} "
        f"jobs ({holds['dead letters']:,} dead letters), {holds['attempts']:,} attempts, "
        f"{holds['chunks']:,} chunks of 384 dimensions; "
        f"{holds['database bytes'] / 2**30:.1f} GiB. Each path {runs} times after 3 to "
        "warm, one after another, through Django's test client (no HTTP) or as the sweeper "
        "calls it. Plans: [scale-plans](scale-plans.md).\n",
        "| path | p50 ms | p95 ms | target | verdict |",
        "|---|---|---|---|---|",
    ]
    for path in measured:
        verdict = "PASS" if path.p95 <= path.target_ms else "FAIL"
        target = f"p95 ≤ {path.target_ms:g} ms" if path.targeted else "measured"
        lines.append(
            f"| {path.name} | {path.p50:.1f} | {path.p95:.1f} | {target} | "
            f"{verdict if path.targeted else ''} |"
        )
    lines += [
        "\nThe write paths against the same on an empty database (a process each; a new "
        "one-page PDF each upload; `tests/bench/scale/writes.py`):\n",
        "| path | empty p50 | scale p50 | empty p95 | scale p95 | scale / empty (p50) |",
        "|---|---|---|---|---|---|",
    ]
    for name, key in (
        ("upload acknowledgement, ms", "upload"),
        ("claim, ms", "claim"),
        ("insert, ms per chunk (40 a batch)", "insert_per_chunk"),
    ):
        low, high = empty[f"{key}_p50"], scale[f"{key}_p50"]
        lines.append(
            f"| {name} | {low:.2f} | {high:.2f} | {empty[f'{key}_p95']:.2f} | "
            f"{scale[f'{key}_p95']:.2f} | {high / low:.2f}x |"
        )
    lines.append(
        f"| pipeline, pages per second ({scale['pages']} pages of corpus files, hashing "
        f"embedder) | {empty['pages_per_second']:.1f} | {scale['pages_per_second']:.1f} | | | "
        f"{scale['pages_per_second'] / empty['pages_per_second']:.2f}x |"
    )
    lines.append(
        f"\nThe vector index: HNSW (m 16, ef_construction 64, cosine) over "
        f"{holds['chunks']:,} vectors built in {seconds['hnsw index']:.0f} s with "
        f"`maintenance_work_mem` 4 GB"
        + (
            f", the server's memory {seconds['hnsw index peak MiB']:,.0f} MiB over its "
            "own at the peak"
            if "hnsw index peak MiB" in seconds
            else ""
        )
        + f"; it takes {figures['index_bytes'] / 2**20:,.0f} MiB on disk. The working copy "
        f"took {figures['copy_seconds']:.0f} s to make.\n"
    )
    if erased is not None:
        lines += [
            f"Erasing the largest account ({erased.documents:,} documents; `manage.py "
            f"erase_user`) took {erased.seconds:.0f} s "
            f"({erased.documents / erased.seconds:,.0f} documents a second). Another "
            "account's upload acknowledgements meanwhile, one every 100 ms or so:\n",
            "| when | uploads | p50 ms | p95 ms |",
            "|---|---|---|---|",
        ]
        for which in ("before", "during"):
            count, p50, p95 = erased.row(which)
            lines.append(f"| {which} the erasure | {count:.0f} | {p50:.1f} | {p95:.1f} |")
    return "\n".join(lines) + "\n"


VECTOR = re.compile(r"'\[[-0-9.,e ]{200,}\]'")
COLUMNS = re.compile(r'("\w+"\."\w+"(?: AS "\w+")?, ){3,}')
LINE = 1500  # characters of a statement or plan line kept: the page is read, not run


def shortened(text: str) -> str:
    """A query vector's 384 numbers as `'[…]'`, runs of selected columns as `…`, and each
    line cut at LINE characters."""
    lines = COLUMNS.sub("…, ", VECTOR.sub("'[…]'", text)).splitlines()
    return "\n".join(line if len(line) <= LINE else line[:LINE] + " …" for line in lines)


def plans_page(measured: list[paths.Path]) -> str:
    out = [
        "# Query plans at scale\n",
        "Written by `python -m tests.bench.scale` (see [Benchmark results]"
        "(benchmark-results.md#the-service-over-years-of-data)): each timed path's "
        "statements on the large tables, as captured from one call, with the planner's "
        "plan on the scale database (long statements and query vectors cut short).\n",
    ]
    for path in measured:
        out.append(f"## {path.name}\n")
        if not path.plans:
            out.append("No statement on the large tables.\n")
        for sql, plan in path.plans:
            out.append(f"```sql\n{shortened(sql)}\n```\n\n```\n{shortened(plan)}\n```\n")
    return "\n".join(out)


if __name__ == "__main__":
    main()
