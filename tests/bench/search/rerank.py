"""`python -m tests.bench.search --rerank-url URL`: what a rerank service gains on the
hand-written paraphrase queries (tests/bench/search/paraphrases.py).

For each offline embedding provider (`hashing`, and `local` where it is installed), the
files the queries name go through the pipeline for an account of their own, as the
paraphrase stage does (tests/bench/search/semantic.py; the local model's floor measured
first). Every query then runs in `hybrid` and `vector` mode twice: without re-ranking, and
with INGEST_RERANK_URL set to the URL given (with --rerank-key, --rerank-model,
--rerank-format, --rerank-top and --rerank-timeout-ms as the INGEST_RERANK_* settings). A
hit is a result on the passage's page. Reported: recall@1, recall@5 and MRR each way, the
reranker's time per search (p50, p95) and the calls whose order was not used, by reason.

It runs only when given a URL: no reranker is part of `make bench` (the hosted ones need
their network and a key; no package carries a cross-encoder's weights for one to run here).
"""

from __future__ import annotations

import argparse
import collections
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.bench.report import percentile
from tests.bench.search import semantic
from tests.bench.search.paraphrases import Paraphrase
from tests.factories import CORPUS

K = 5
MODES = ("hybrid", "vector")  # text mode is never re-ranked (search/retrieval/rerank.py)


@dataclass
class RerankRun:
    provider: str
    chunks: int = 0
    # (mode, "off" | "on"): each query's rank of its passage, None when not in the top 10
    ranks: dict[tuple[str, str], list[int | None]] = field(default_factory=dict)
    rerank_ms: dict[str, list[float]] = field(default_factory=dict)  # mode: each reranked call
    errors: dict[str, collections.Counter[str]] = field(default_factory=dict)  # mode: reasons

    def recall(self, mode: str, way: str, at: int = K) -> float:
        ranks = self.ranks[(mode, way)]
        return sum(1 for r in ranks if r is not None and r <= at) / max(len(ranks), 1)

    def mrr(self, mode: str, way: str) -> float:
        ranks = self.ranks[(mode, way)]
        return sum(1 / r for r in ranks if r is not None) / max(len(ranks), 1)


def rerank_settings(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "INGEST_RERANK_URL": args.rerank_url,
        "INGEST_RERANK_KEY": args.rerank_key,
        "INGEST_RERANK_MODEL": args.rerank_model,
        "INGEST_RERANK_FORMAT": args.rerank_format,
        "INGEST_RERANK_TOP": args.rerank_top,
        "INGEST_RERANK_TIMEOUT_MS": args.rerank_timeout_ms,
    }


def _found(owner_id: int, query: Paraphrase, mode: str) -> tuple[int | None, Any]:
    """The rank of the query's passage (None past the top 10), and the answer."""
    from search.retrieval.query import search

    answer = search(owner_id=owner_id, q=query.query, k=10, mode=mode)
    name = Path(query.file).name
    for rank, hit in enumerate(answer.results, start=1):
        if hit.filename == name and query.page in hit.pages:
            return rank, answer
    return None, answer


def run_provider(
    provider: str, queries: tuple[Paraphrase, ...], reranking: dict[str, Any]
) -> RerankRun:
    """Ingest, calibrate (a semantic model), query each way. Django must be set up."""
    from django.test import override_settings

    from search.models import Chunk
    from search.retrieval import calibrate, floors
    from tests.bench.search.quality import ingest

    files = sorted({CORPUS / q.file for q in queries})
    run = RerankRun(provider)
    with override_settings(INGEST_EMBED_PROVIDER=provider, INGEST_SEARCH_MIN_SIMILARITY=None):
        owner_id, _ = ingest(files, f"search-bench-rerank-{provider}")
        run.chunks = Chunk.objects.filter(document__owner_id=owner_id).count()
        if not floors.needs_shared_word():
            calibrate.save(calibrate.measure(calibrate.default_queries()))
        for mode in MODES:
            with override_settings(INGEST_RERANK_URL=""):
                run.ranks[(mode, "off")] = [_found(owner_id, q, mode)[0] for q in queries]
            run.ranks[(mode, "on")], run.rerank_ms[mode] = [], []
            run.errors[mode] = collections.Counter()
            with override_settings(**reranking):
                for query in queries:
                    rank, answer = _found(owner_id, query, mode)
                    run.ranks[(mode, "on")].append(rank)
                    if answer.reranked:
                        run.rerank_ms[mode].append(answer.rerank_ms)
                    elif answer.rerank_error:
                        run.errors[mode][answer.rerank_error] += 1
    return run


def measure(args: argparse.Namespace) -> list[RerankRun]:
    providers = semantic.QUICK_EMBEDDINGS
    queries = semantic.chosen(args.quick)
    return [run_provider(provider, queries, rerank_settings(args)) for provider in providers]


def report(runs: list[RerankRun], args: argparse.Namespace) -> str:
    queries = len(runs[0].ranks[("hybrid", "off")]) if runs else 0
    model = f", model `{args.rerank_model}`" if args.rerank_model else ""
    lines = [
        f"**Re-ranking.** {queries} paraphrase queries (tests/bench/search/paraphrases.py), "
        f"k = 10; the best {args.rerank_top} candidates of each search sent to "
        f"`{args.rerank_url}`{model} (format {args.rerank_format}, budget "
        f"{args.rerank_timeout_ms} ms). A hit: a result on the passage's page.",
        "",
        "| provider | mode | recall@1 without, with | recall@5 without, with | MRR without, "
        "with | reranker ms p50 / p95 | not used |",
        "|---|---|---|---|---|---|---|",
    ]
    for run in runs:
        for mode in MODES:
            took = run.rerank_ms[mode]
            timing = f"{percentile(took, 50):.0f} / {percentile(took, 95):.0f}" if took else "n/a"
            errors = ", ".join(f"{n} {why}" for why, n in sorted(run.errors[mode].items()))
            lines.append(
                f"| {run.provider} | {mode} "
                f"| {run.recall(mode, 'off', 1):.3f}, {run.recall(mode, 'on', 1):.3f} "
                f"| {run.recall(mode, 'off'):.3f}, {run.recall(mode, 'on'):.3f} "
                f"| {run.mrr(mode, 'off'):.3f}, {run.mrr(mode, 'on'):.3f} "
                f"| {timing} | {errors or 'none'} |"
            )
    return "\n".join(lines) + "\n"


def as_json(runs: list[RerankRun], args: argparse.Namespace) -> dict[str, Any]:
    return {
        "reranker": {
            "url": args.rerank_url,
            "model": args.rerank_model,
            "format": args.rerank_format,
            "top": args.rerank_top,
            "timeout_ms": args.rerank_timeout_ms,
        },
        "runs": [
            {"provider": run.provider, "chunks": run.chunks, "mode": mode,
             "recall@1": {way: run.recall(mode, way, 1) for way in ("off", "on")},
             "recall@5": {way: run.recall(mode, way) for way in ("off", "on")},
             "mrr": {way: run.mrr(mode, way) for way in ("off", "on")},
             "rerank_ms": run.rerank_ms[mode], "not_used": dict(run.errors[mode])}
            for run in runs
            for mode in MODES
        ],
    }  # fmt: skip
