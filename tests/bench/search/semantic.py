"""Meaning, not words, for `tests.bench.search`: hand-written paraphrase queries against both
offline providers.

For each provider, `hashing` and `local` (all-MiniLM-L6-v2, where it is installed), the files
the queries name (tests/bench/search/paraphrases.py) go through the pipeline for an account of
its own, under that provider's settings. The `local` provider's floor is measured on them
first (search/retrieval/calibrate.py, as `manage.py calibrate_search_floor` does) and kept.
Then every query runs in every mode: a hit is a result on the answer's page of the answer's
file; and the queries that can match nothing (tests/bench/search/noise.py) run again. Beside
the quality: the chunks the local model embeds per CPU-second on one thread, and each
provider's ingest time per page (extraction, cleaning, splitting, embedding and storing, in
this process).
"""

from __future__ import annotations

import importlib.util
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.bench.search import noise as search_noise
from tests.bench.search.paraphrases import PARAPHRASES, Paraphrase
from tests.factories import CORPUS, corpus_rows

K = 5
SPEED_CHUNKS = 256
QUICK_PAGES = 8  # --quick: only the queries on files of at most this many pages


@dataclass
class ProviderRun:
    provider: str
    signature: str = ""
    documents: int = 0
    pages: int = 0
    chunks: int = 0
    ingest_seconds: float = 0.0
    floor: float | None = None
    highest_unrelated: float | None = None
    ranks: dict[str, list[int | None]] = field(default_factory=dict)  # mode: each query's
    noise_answered: int = 0
    noise_examples: list[str] = field(default_factory=list)
    chunks_per_cpu_second: float | None = None

    def recall(self, mode: str, at: int = K) -> float:
        ranks = self.ranks[mode]
        return sum(1 for r in ranks if r is not None and r <= at) / max(len(ranks), 1)

    def mrr(self, mode: str) -> float:
        ranks = self.ranks[mode]
        return sum(1 / r for r in ranks if r is not None) / max(len(ranks), 1)


def local_available() -> bool:
    return importlib.util.find_spec("sentence_transformers") is not None


def _settings(provider: str) -> dict:
    return {"INGEST_EMBED_PROVIDER": provider, "INGEST_SEARCH_MIN_SIMILARITY": None}


def _rank(owner_id: int, query: Paraphrase, mode: str) -> int | None:
    from search.retrieval.query import search

    answer = search(owner_id=owner_id, q=query.query, k=10, mode=mode)
    name = Path(query.file).name
    for rank, hit in enumerate(answer.results, start=1):
        if hit.filename == name and hit.page == query.page:
            return rank
    return None


def chosen(quick: bool) -> tuple[Paraphrase, ...]:
    """Every query; with `quick`, those on short files."""
    if not quick:
        return PARAPHRASES
    pages = {row["file"]: int(row["pages"] or 0) for row in corpus_rows()}
    return tuple(p for p in PARAPHRASES if 0 < pages.get(p.file, 0) <= QUICK_PAGES)


def run_provider(provider: str, queries: tuple[Paraphrase, ...]) -> ProviderRun:
    """Ingest, calibrate (a semantic model), query. Django must be set up."""
    from django.test import override_settings

    from documents.models import Document
    from search.embedding.signature import current_signature
    from search.models import Chunk
    from search.retrieval import calibrate, floors
    from search.retrieval.query import MODES
    from tests.bench.search.quality import ingest

    files = sorted({CORPUS / p.file for p in queries})
    run = ProviderRun(provider)
    with override_settings(**_settings(provider)):
        run.signature = current_signature()
        owner_id, timings = ingest(files, f"search-bench-paraphrase-{provider}")
        run.ingest_seconds = timings["ingest"]
        ready = Document.objects.filter(owner_id=owner_id, ready_version__isnull=False)
        run.documents = ready.count()
        # A document whose new version is not yet read has no page count (None).
        run.pages = sum(pages or 0 for pages in ready.values_list("page_count", flat=True))
        run.chunks = Chunk.objects.filter(document__owner_id=owner_id).count()
        if not floors.needs_shared_word():
            measurement = calibrate.measure(calibrate.default_queries())
            calibrate.save(measurement)
            run.highest_unrelated = measurement.highest
        run.floor = floors.floor()
        run.ranks = {mode: [_rank(owner_id, q, mode) for q in queries] for mode in MODES}
        noise = search_noise.measure(owner_id, MODES)
        run.noise_answered = sum(noise.answered.values())
        run.noise_examples = sorted(set(noise.examples.values()))
        if provider == "local":
            run.chunks_per_cpu_second = _local_speed(owner_id)
    return run


def _local_speed(owner_id: int) -> float:
    """Chunks of the account embedded per CPU-second by the local model (loaded already)."""
    from search.embedding import local_provider
    from search.models import Chunk

    texts = list(
        Chunk.objects.filter(document__owner_id=owner_id)
        .order_by("id")
        .values_list("text", flat=True)[:SPEED_CHUNKS]
    )
    started = time.process_time()
    local_provider.embed(texts)
    return len(texts) / (time.process_time() - started)


def measure(quick: bool = False) -> list[ProviderRun]:
    providers = ["hashing", "local"] if local_available() else ["hashing"]
    queries = chosen(quick)
    return [run_provider(provider, queries) for provider in providers]


def report(runs: list[ProviderRun]) -> list[str]:
    from search.retrieval.query import MODES

    queries = len(runs[0].ranks["hybrid"]) if runs else 0
    lines = [
        "",
        f"**Meaning.** {queries} paraphrase queries written by hand over the corpus "
        "corpus files (tests/bench/search/paraphrases.py): each says what a passage says in "
        "other words, sharing at most two content words with it. A hit: a result on the "
        f"passage's page. Each provider's account holds the same files. k = 10, recall@{K}.",
        "",
        "| provider | mode | recall@1 | recall@5 | MRR |",
        "|---|---|---|---|---|",
    ]
    for run in runs:
        for mode in MODES:
            lines.append(
                f"| {run.provider} | {mode} | {run.recall(mode, 1):.3f} | {run.recall(mode):.3f} "
                f"| {run.mrr(mode):.3f} |"
            )
    lines += [
        "",
        "| provider | documents, pages, chunks | ingest, s per page | floor (highest "
        "unrelated similarity) | noise answers | chunks per CPU-second |",
        "|---|---|---|---|---|---|",
    ]
    for run in runs:
        highest = "" if run.highest_unrelated is None else f" ({run.highest_unrelated:.3f})"
        speed = "" if run.chunks_per_cpu_second is None else f"{run.chunks_per_cpu_second:.1f}"
        lines.append(
            f"| {run.provider} | {run.documents}, {run.pages}, {run.chunks} "
            f"| {run.ingest_seconds / max(run.pages, 1):.3f} | {run.floor:.2f}{highest} "
            f"| {run.noise_answered} | {speed} |"
        )
    for run in runs:
        if run.noise_examples:
            shown = ", ".join(f"“{q}”" for q in run.noise_examples[:5])
            lines += ["", f"Noise that {run.provider} answered: {shown}."]
    if len(runs) == 1:
        lines += ["", "The `local` provider is not installed here: make install-local-embeddings."]
    return lines


def verdicts(runs: list[ProviderRun], *, quick: bool = False) -> list[dict]:
    """The local model's noise; with every query (not `quick`'s few), its recall too."""
    by = {run.provider: run for run in runs}
    if "local" not in by:
        return []
    local, hashing = by["local"].recall("hybrid"), by["hashing"].recall("hybrid")
    noise = by["local"].noise_answered
    found = [
        {"target": "queries that can match nothing, local model, every mode",
         "value": str(noise), "limit": "0", "passed": noise == 0},
    ]  # fmt: skip
    if not quick:
        found.append({"target": "paraphrases, hybrid recall@5: local against hashing",
                      "value": f"{local:.3f} against {hashing:.3f}", "limit": "higher",
                      "passed": local > hashing})  # fmt: skip
    return found
