"""`python -m tests.bench.search`: search quality on the corpus, speed and filtered recall at scale.

On a private Postgres (PG 18, pgvector 0.8) and Redis, as `make bench`, with the `hashing`
embedding provider (lexical: it finds shared words, knows nothing of meaning):

1. Quality (bench/search/quality.py): the corpus files the manifest expects to succeed go
   through the real pipeline for one account; sentences sampled from each document's own
   chunks are searched verbatim and with 30 % of their words dropped, in every mode:
   recall@1, recall@5 and MRR (a hit: a result from the sentence's document); and 200
   queries that can match nothing (bench/search/noise.py), which must answer nothing.
2. Meaning (bench/search/semantic.py): hand-written paraphrase queries, with the `hashing`
   provider and the `local` model (where it is installed), each on an account of its own:
   recall@5 per mode, the local model's measured floor, its speed and the ingest time.
3. Speed (bench/search/synthetic.py): 200,000 ready chunks (`--chunks`) over 100 accounts
   (`--accounts`), one of 200 chunks, the rest falling with rank; Zipf-like synthetic
   text and its hashing vectors, loaded with COPY, indexes built after. Queries of 2-4
   words from a random chunk of the account, each text new (no embedding cache): p50/p95
   of `search()` minus its embedding, for random accounts, the small one and the largest,
   and the embedding apart.
4. Filtered recall@10 of vector mode against an exact scan (numpy over the account's
   ready chunks) for the small, the median and the largest account; hybrid search with
   tag and metadata filters on the largest account (bench/search/filtered.py); then the
   vector list alone for the largest account, path by path (bench/search/vectors.py), to
   say why.

Targets (issues 15 and 25): hybrid verbatim recall@5 >= 0.9, and no lower than before the
noise rules (0.995 verbatim, 0.955 dropped); no answer to a query that can match nothing;
the local model's hybrid recall on paraphrases above the hashing provider's; hybrid p95 <=
50 ms without the embedding; filtered recall@10 >= 0.95 for the small account; with a
filter keeping 1 % of an account's documents, hybrid recall@10 >= 0.95 against an exact
scan of the filtered set and p95 <= 50 ms. Writes the
`bench-search` block of docs/working/benchmark-results.md (not with --quick or --no-write)
and the results as JSON (var/bench/bench-search-<time>.json, or `--json PATH`);
exits non-zero when a target is missed (not with --quick).

With `--rerank-url URL` it measures only what that rerank service gains on the paraphrase
queries, with and without it (bench/search/rerank.py); `make bench` never passes one.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import time
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
from pgvector.psycopg import register_vector

from tests.bench.report import (
    RESULTS,
    code_version,
    describe_machine,
    percentile,
    write_json,
    write_section,
)
from tests.bench.search import filtered as search_filtered
from tests.bench.search import noise as search_noise
from tests.bench.search import quality as search_quality
from tests.bench.search import rerank as search_rerank
from tests.bench.search import semantic as search_semantic
from tests.bench.search import synthetic as search_synthetic
from tests.bench.search import vectors as search_vectors
from tests.bench.search.queries import query_texts, ready_chunks_sql
from tests.bench.search.synthetic import Corpus, say
from tests.bench.services import BASE_DIR, django_on_private_services

RECALL5_TARGET = 0.9
# Hybrid known-item recall@5 before the noise rules, as issue 25 gave them (on an earlier
# draw of the sample); the verdict compares with the rules switched off on this run's.
HYBRID_RECALL5_BEFORE = {"verbatim": 0.995, "dropped": 0.955}
P95_TARGET_MS = 50.0
RECALL10_TARGET = 0.95
K = 10


def _timed(owner_id: int, q: str, mode: str) -> tuple[float, Any]:
    # Imported once run() has set Django up: they load models.
    from search.retrieval.query import search

    started = time.perf_counter()
    answer = search(owner_id=owner_id, q=q, k=K, mode=mode)
    return (time.perf_counter() - started) * 1000, answer


def measure_speed(
    database_url: str, corpus: Corpus, queries: int, seed: int
) -> list[dict[str, Any]]:
    """Per mode and group of accounts: search time without the embedding, the embedding."""
    # Imported once run() has set Django up: they load models.
    from search.retrieval.query import MODES

    rng = random.Random(seed)
    groups = {
        "random accounts": [rng.choice(corpus.accounts) for _ in range(queries)],
        f"the small account ({corpus.small.ready_chunks} chunks)": [corpus.small]
        * max(queries // 4, 1),
        f"the largest account ({corpus.largest.ready_chunks:,} chunks)": [corpus.largest]
        * max(queries // 4, 1),
    }
    plan: list[tuple[str, str, int, str]] = []  # group, mode, owner, text
    used: set[str] = set()
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("SELECT setseed(%s)", (seed / 1000,))
        for group, accounts in groups.items():
            for mode in MODES:
                for account in accounts:
                    for text in query_texts(conn, account.user_id, 3, rng):
                        if text not in used:
                            used.add(text)
                            plan.append((group, mode, account.user_id, text))
                            break
    rng.shuffle(plan)  # modes and groups interleaved: noise spread over all
    for mode in MODES:  # warm: connections, plans, caches
        for owner, text in [(a.user_id, f"warm {n} {mode}") for n, a in enumerate(corpus.accounts[:5])]:  # fmt: skip  # noqa: E501
            _timed(owner, text, mode)
    samples: dict[tuple[str, str], list[tuple[float, float, bool]]] = {}
    for group, mode, owner, text in plan:
        ms, answer = _timed(owner, text, mode)
        samples.setdefault((group, mode), []).append((ms - answer.embed_ms, answer.embed_ms, answer.degraded))  # fmt: skip  # noqa: E501
    rows: list[dict[str, Any]] = []
    for (group, mode), values in samples.items():
        searched = [v[0] for v in values]
        embedded = [v[1] for v in values if v[1] > 0]
        rows.append(
            {
                "group": group,
                "mode": mode,
                "queries": len(values),
                "p50": percentile(searched, 50),
                "p95": percentile(searched, 95),
                "max": max(searched),
                "embed_p50": percentile(embedded, 50),
                "embed_p95": percentile(embedded, 95),
                "embedded": len(embedded),
                "degraded": sum(v[2] for v in values),
            }
        )
    order = {g: n for n, g in enumerate(groups)}
    rows.sort(key=lambda r: (order[r["group"]], MODES.index(r["mode"])))
    return rows


def measure_recall(
    database_url: str, corpus: Corpus, queries: int, dimensions: int, seed: int
) -> list[dict[str, Any]]:
    """Recall@10 of vector mode (the owner filter on the index) against an exact scan."""
    # Imported once run() has set Django up: they load models.
    from search.embedding.hashing import hashing_embed
    from search.retrieval.floors import floor
    from search.retrieval.text import any_word_text
    from search.retrieval.vector import SHARES_A_WORD

    rng = random.Random(seed + 1)
    ordered = sorted(corpus.accounts, key=lambda a: a.ready_chunks)
    picks = {"small": corpus.small, "median": ordered[len(ordered) // 2], "largest": ordered[-1]}
    rows = []
    with psycopg.connect(database_url, autocommit=True) as conn:
        register_vector(conn)
        conn.execute("SELECT setseed(%s)", (seed / 1000 + 0.5,))
        for label, account in picks.items():
            stored = conn.execute(
                ready_chunks_sql("c.id, c.embedding"), (account.user_id,)
            ).fetchall()
            ids = [row[0] for row in stored]
            matrix = np.array([row[1].to_numpy() for row in stored], dtype=np.float32)
            recalls, returned = [], []
            for text in query_texts(conn, account.user_id, queries, rng):
                vector = np.array(hashing_embed([text], dimensions)[0], dtype=np.float32)
                distance = 1.0 - matrix @ vector  # all unit vectors: cosine distance
                # What vector mode may answer with these vectors: chunks sharing a word
                # with the query, more similar than the floor (search/retrieval/floors.py).
                sharing = {row[0] for row in conn.execute(
                    ready_chunks_sql("c.id") + " AND " + SHARES_A_WORD.format(c="c").replace(
                        "%(any_words)s", "%s"), (account.user_id, any_word_text(text)),
                ).fetchall()}  # fmt: skip
                allowed = np.array([i in sharing for i in ids]) & (1.0 - distance > floor())
                distance = np.where(allowed, distance, np.inf)
                tenth = np.partition(distance, K - 1)[K - 1]
                # Ties at the tenth distance: any of them is a right answer.
                exact = {ids[n] for n in np.flatnonzero((distance <= tenth + 1e-6) & allowed)}
                wanted = min(K, len(exact))
                _, answer = _timed(account.user_id, text, "vector")
                found = [hit.chunk_id for hit in answer.results]
                recalls.append(min(K, sum(1 for c in found if c in exact)) / max(wanted, 1))
                returned.append(len(found))
            rows.append(
                {
                    "account": label,
                    "chunks": len(ids),
                    "queries": len(recalls),
                    "recall": sum(recalls) / max(len(recalls), 1),
                    "worst": min(recalls, default=math.nan),
                    "short_answers": sum(1 for n in returned if n < K),
                }
            )
    return rows


def verdicts(quality: dict, speed: list[dict], recall: list[dict]) -> list[dict[str, Any]]:
    hybrid = quality["scores"][("hybrid", "verbatim")]
    p95 = next(r["p95"] for r in speed if r["group"] == "random accounts" and r["mode"] == "hybrid")
    small = next(r["recall"] for r in recall if r["account"] == "small")
    noise = quality["noise"]
    answered = sum(noise.answered.values())
    return [
        {"target": "hybrid, verbatim sentences: recall@5", "value": f"{hybrid.recall(5):.3f}",
         "limit": f">= {RECALL5_TARGET}", "passed": hybrid.recall(5) >= RECALL5_TARGET},
        *({"target": f"hybrid, {kind}: recall@5 with the noise rules, against without them",
           "value": f"{quality['scores'][('hybrid', kind)].recall(5):.3f}",
           "limit": f">= {quality['before_rules'][('hybrid', kind)].recall(5):.3f}",
           "passed": quality["scores"][("hybrid", kind)].recall(5)
           >= quality["before_rules"][("hybrid", kind)].recall(5)}
          for kind in HYBRID_RECALL5_BEFORE),
        {"target": "queries that can match nothing, every mode: answers with a result",
         "value": str(answered), "limit": "0", "passed": answered == 0},
        {"target": "hybrid, random accounts: p95 without the embedding", "value": f"{p95:.1f} ms",
         "limit": f"<= {P95_TARGET_MS:g} ms", "passed": p95 <= P95_TARGET_MS, "timed": True},
        {"target": "vector, the small account: filtered recall@10", "value": f"{small:.3f}",
         "limit": f">= {RECALL10_TARGET}", "passed": small >= RECALL10_TARGET},
    ]  # fmt: skip


def _ms(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.1f}"


def report(results: dict[str, Any]) -> str:
    meta, quality, corpus = results["meta"], results["quality"], results["corpus"]
    skipped = ", ".join(quality["skipped"]) or "none"
    passaged = ", ".join(quality["passaged"]) or "none"
    lines = [
        f"Run {meta['date']} with `{meta['command']}`, code {meta['code']}. Embedding provider "
        f"`hashing` ({meta['dimensions']} dimensions, lexical).",
        "",
        f"Machine: {meta['machine']}. Postgres shared_buffers {meta['shared_buffers']}.",
        "",
        f"**Quality.** {quality['files']} corpus files, {quality['documents']} ready documents, "
        f"{quality['chunks']} chunks, ingested through the pipeline in "
        f"{quality['timings']['ingest']:.0f} s; {quality['queries']} sentences from "
        f"{quality['sampled_documents']} documents (up to {meta['per_document']} each; runs "
        f"of 12 words or 20 characters instead from documents without a whole sentence: "
        f"{passaged}; nothing from: {skipped}), {quality['unspaced']} of them in a script "
        "without spaces; "
        f"{quality['ambiguous']} also appear verbatim in another document (a passage is "
        f"shown once, so a result from such a twin counts as found). k = {K}.",
        "",
        "| mode | query | recall@1 | recall@5 | MRR | search p50 ms (embedding included) "
        "| degraded |",
        "|---|---|---|---|---|---|---|",
    ]
    for (mode, kind), s in quality["scores"].items():
        lines.append(
            f"| {mode} | {kind} | {s.recall(1):.3f} | {s.recall(5):.3f} | {s.mrr:.3f} "
            f"| {_ms(percentile(s.took_ms, 50))} | {s.degraded} |"
        )
    for (mode, kind), s in quality["before_rules"].items():
        lines.append(
            f"| {mode}, the noise rules off | {kind} | {s.recall(1):.3f} | {s.recall(5):.3f} "
            f"| {s.mrr:.3f} | {_ms(percentile(s.took_ms, 50))} | {s.degraded} |"
        )
    lines += search_noise.report(quality["noise"])
    lines += search_semantic.report(results["semantic"])
    t = corpus["timings"]
    builds = ", ".join(f"{k[6:]} {v:.0f} s" for k, v in t.items() if k.startswith("index "))
    lines += [
        "",
        f"**Speed.** {corpus['ready']:,} ready chunks over {corpus['accounts']} accounts "
        f"(the small one {corpus['small']}, the largest {corpus['largest']:,}), plus "
        f"{corpus['rows'] - corpus['ready']:,} rows search must not serve (a newer version half "
        f"written, a first version still processing), {corpus['documents']:,} documents. "
        "Text: words of a 30,000-word vocabulary drawn Zipf-like; vectors: the `hashing` "
        f"provider's of that text. Loaded with COPY in {t['copy']:.0f} s, then indexes "
        f"built ({builds}) and VACUUM ANALYZE ({t['vacuum analyze']:.0f} s). Queries: 2-4 "
        "words of a random ready chunk of the account, each text used once; the time is "
        "`search()` as its caller sees it minus `embed_ms`.",
        "",
        "| accounts | mode | queries | p50 ms | p95 ms | max ms | embedding p50 / p95 ms "
        "(queries that embedded) | degraded |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results["speed"]:
        lines.append(
            f"| {r['group']} | {r['mode']} | {r['queries']} | {_ms(r['p50'])} | {_ms(r['p95'])} "
            f"| {_ms(r['max'])} | {_ms(r['embed_p50'])} / {_ms(r['embed_p95'])} "
            f"({r['embedded']}) | {r['degraded']} |"
        )
    lines += [
        "",
        "**Filtered recall.** Vector mode's top 10 against an exact scan (cosine distance "
        "over all the account's ready chunks, in numpy; ties at the tenth count as right).",
        "",
        "| account | ready chunks | queries | mean recall@10 | worst query | answers under 10 |",
        "|---|---|---|---|---|---|",
    ]
    for r in results["recall"]:
        lines.append(
            f"| {r['account']} | {r['chunks']:,} | {r['queries']} | {r['recall']:.3f} "
            f"| {r['worst']:.1f} | {r['short_answers']} |"
        )
    lines += search_filtered.report(results["filtered"])
    lines += search_vectors.report(results["vectors"])
    lines += ["", "| target | measured | limit | result |", "|---|---|---|---|"]
    for v in results["verdicts"]:
        verdict = "PASS" if v["passed"] else "**FAIL**"
        lines.append(f"| {v['target']} | {v['value']} | {v['limit']} | {verdict} |")
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Everything, inside a process whose environment points at the private services."""
    import django  # this process's environment names the private services only now

    django.setup()
    from django.conf import settings
    from django.db import connection

    database_url = os.environ["DATABASE_URL"]
    dimensions = settings.INGEST_EMBED_DIMENSIONS
    say(
        f"quality: {'three' if args.quick else 'every'} succeeding corpus file through the pipeline"
    )
    quality = search_quality.measure(args.per_document, args.seed, args.quick)
    say("meaning: paraphrase queries, each offline provider")
    semantic = search_semantic.measure(args.quick)
    say(f"speed: loading {args.chunks:,} chunks over {args.accounts} accounts")
    corpus = search_synthetic.load(
        database_url, chunks=args.chunks, accounts=args.accounts, dimensions=dimensions,
        seed=args.seed,
    )  # fmt: skip
    connection.close()  # the indexes were rebuilt under it: a fresh session for the plans
    say("speed: queries")
    speed = measure_speed(database_url, corpus, args.queries, args.seed)
    say("filtered recall")
    recall = measure_recall(database_url, corpus, args.recall_queries, dimensions, args.seed)
    say("filtered hybrid search: tags and metadata on the largest account")
    filtered = search_filtered.measure(database_url, corpus, args.filter_queries, args.seed)
    say("the vector list alone, path by path, for the largest account")
    vectors = search_vectors.diagnose(
        database_url, corpus, args.diagnose_queries, dimensions, args.seed
    )
    with connection.cursor() as cursor:
        cursor.execute("SHOW shared_buffers")
        shared_buffers = cursor.fetchone()[0]
    return {
        "meta": {
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "command": args.command,
            "code": code_version(),
            "machine": describe_machine(dict(os.environ)),
            "dimensions": dimensions,
            "per_document": args.per_document,
            "shared_buffers": shared_buffers,
        },
        "quality": quality,
        "semantic": semantic,
        "corpus": {
            "accounts": len(corpus.accounts),
            "ready": sum(a.ready_chunks for a in corpus.accounts),
            "small": corpus.small.ready_chunks,
            "largest": corpus.largest.ready_chunks,
            "rows": corpus.rows,
            "documents": corpus.documents,
            "timings": corpus.timings,
        },
        "speed": speed,
        "recall": recall,
        "vectors": vectors,
        "filtered": filtered,
        "verdicts": verdicts(quality, speed, recall)
        + search_filtered.verdicts(filtered)
        + search_semantic.verdicts(semantic, quick=args.quick),
    }


def _json(results: dict[str, Any]) -> dict[str, Any]:
    """The results with the scores as plain figures."""
    scores = results["quality"]["scores"]
    quality = dict(results["quality"])
    quality["before_rules"] = [
        {"mode": mode, "kind": kind, "recall@5": s.recall(5)}
        for (mode, kind), s in quality["before_rules"].items()
    ]
    quality["scores"] = [
        {"mode": mode, "kind": kind, "recall@1": s.recall(1), "recall@5": s.recall(5),
         "mrr": s.mrr, "queries": len(s.ranks), "degraded": s.degraded}
        for (mode, kind), s in scores.items()
    ]  # fmt: skip
    noise = quality["noise"]
    quality["noise"] = {
        "queries": {kind: len(q) for kind, q in noise.queries.items()},
        "answered": [{"queries": k, "mode": m, "count": c} for (k, m), c in noise.answered.items()],
        "nearest": noise.nearest,
        "floor": noise.floor,
    }
    semantic = [
        {"provider": r.provider, "signature": r.signature, "floor": r.floor,
         "highest_unrelated": r.highest_unrelated, "pages": r.pages, "chunks": r.chunks,
         "ingest_seconds": r.ingest_seconds, "noise_answered": r.noise_answered,
         "chunks_per_cpu_second": r.chunks_per_cpu_second,
         "recall@5": {mode: r.recall(mode) for mode in r.ranks},
         "hybrid recall@5 by part": {name: recall for name, (recall, _) in r.parts().items()}}
        for r in results["semantic"]
    ]  # fmt: skip
    return dict(results, quality=quality, semantic=semantic)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.search", description=__doc__)
    parser.add_argument("--chunks", type=int, default=200_000, help="ready synthetic chunks")
    parser.add_argument("--accounts", type=int, default=100)
    parser.add_argument("--per-document", type=int, default=10, help="sentences per document")
    parser.add_argument("--queries", type=int, default=200, help="per mode, random accounts")
    parser.add_argument("--recall-queries", type=int, default=50, help="per account")
    parser.add_argument("--filter-queries", type=int, default=100, help="per filter")
    parser.add_argument(
        "--diagnose-queries", type=int, default=30, help="per kind, the vector list alone"
    )
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--quick", action="store_true", help="a smoke run: small, not written")
    parser.add_argument("--no-write", action="store_true", help="leave the results page alone")
    parser.add_argument(
        "--json", type=Path, default=None, help="the results' file (var/bench/ without it)"
    )
    reranking = parser.add_argument_group(
        "re-ranking", "with --rerank-url, only what a rerank service gains on the paraphrase "
        "queries is measured (tests/bench/search/rerank.py); the results page is left alone",
    )  # fmt: skip
    reranking.add_argument("--rerank-url", default="", help="the endpoint, as INGEST_RERANK_URL")
    reranking.add_argument(
        "--rerank-key",
        default=os.environ.get("INGEST_RERANK_KEY", ""),
        help="its Bearer key (default: INGEST_RERANK_KEY from the environment)",
    )
    reranking.add_argument(
        "--rerank-model", default=os.environ.get("INGEST_RERANK_MODEL", ""), help="sent as model"
    )
    reranking.add_argument("--rerank-format", choices=["auto", "cohere", "tei"], default="auto")
    reranking.add_argument("--rerank-top", type=int, default=30, help="candidates it orders")
    reranking.add_argument(
        "--rerank-timeout-ms", type=int, default=5000, help="budget per search (generous)"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.chunks, args.accounts = min(args.chunks, 5000), min(args.accounts, 10)
        args.per_document, args.queries, args.recall_queries = 3, 20, 10
        args.filter_queries = 10
        args.diagnose_queries = 5
        args.no_write = True
    args.command = "python -m tests.bench.search" + (" --quick" if args.quick else "")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    # Measured with the lexical `hashing` provider, whatever the shell says (the paraphrase
    # stage also runs the `local` one, where it is installed).
    os.environ["INGEST_EMBED_PROVIDER"] = "hashing"
    if args.rerank_url:
        return main_rerank(args)
    with django_on_private_services("ingest-search-bench-"):
        results = run(args)
    text = report(results)
    print(text)
    payload = _json(results)
    if args.json is not None:
        args.json.write_text(json.dumps(payload, indent=1, default=str))
        path = args.json
    else:
        stamp = "search-" + time.strftime("%Y%m%d-%H%M%S")
        path = write_json(BASE_DIR / "var" / "bench", stamp, payload)
    say(f"results in {path}")
    if not args.no_write:
        write_section(RESULTS, "bench-search", text, by="python -m tests.bench.search")
    failed = [v["target"] for v in results["verdicts"] if not v["passed"]]
    if failed and not args.quick:
        raise SystemExit(f"missed: {'; '.join(failed)}")


def main_rerank(args: argparse.Namespace) -> None:
    """The paraphrase queries with and without the rerank service (bench/search/rerank.py)."""
    with django_on_private_services("ingest-search-bench-"):
        import django  # this process's environment names the private services only now

        django.setup()
        say(f"re-ranking: paraphrase queries, each offline provider, against {args.rerank_url}")
        runs = search_rerank.measure(args)
    print(search_rerank.report(runs, args))
    payload = search_rerank.as_json(runs, args)
    if args.json is not None:
        args.json.write_text(json.dumps(payload, indent=1))
        path = args.json
    else:
        path = write_json(BASE_DIR / "var" / "bench", "search-rerank-" + time.strftime("%Y%m%d-%H%M%S"), payload)  # fmt: skip  # noqa: E501
    say(f"results in {path}")


if __name__ == "__main__":
    main()
