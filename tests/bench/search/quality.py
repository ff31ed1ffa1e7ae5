"""Known-item retrieval on the corpus for `tests.bench.search`: can a document be found again
from one of its own sentences?

The corpus files the manifest expects to succeed go through the real pipeline (as
`tests.bench.pipeline` runs them: upload, claim, process) for one account. From each ready
document's own chunk texts, sentences are sampled (seeded); each becomes two queries,
verbatim and with 30 % of its words dropped, and each query runs in every mode. A result
is a hit when its document is the sentence's document.
"""

from __future__ import annotations

import random
import re
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from tests.bench.search import noise as search_noise
from tests.factories import CORPUS, corpus_rows

KINDS = ("verbatim", "dropped")
DROP = 0.3
MIN_WORDS, MAX_WORDS = 6, 60
MIN_CHARS_UNSPACED = 15  # a sentence of a script without spaces (Japanese, Chinese)
MAX_CHARS = 1000  # the API's limit on q
PASSAGE_WORDS, PASSAGE_CHARS = 12, 20  # what a document without a whole sentence gives
K = 10
# Sentence ends: . ! ? ; : and the ideographic full stop, exclamation and question marks.
_SENTENCE_END = re.compile("(?<=[.!?;:\u3002\uff01\uff1f])\\s+|(?<=[\u3002\uff01\uff1f])")


def corpus_files(quick: bool) -> list[Path]:
    """The files the manifest expects to succeed; with quick, three short ones."""
    rows = [row for row in corpus_rows() if row["expect"] == "succeeded"]
    if quick:
        rows = sorted(
            (r for r in rows if 3 <= int(r["pages"]) <= 8 and r["category"] == "text-normal"),
            key=lambda r: (int(r["pages"]), r["file"]),
        )[:3]
    return [CORPUS / row["file"] for row in rows]


def ingest(files: list[Path], username: str) -> tuple[int, dict[str, float]]:
    """Upload and process every file for a new account; its id and the timings."""
    # Imported once Django is set up (tests.bench.search's run()): they load models.
    from django.contrib.auth.models import User
    from django.core.files.uploadedfile import SimpleUploadedFile

    from documents.services.uploads import create_upload
    from jobs import services
    from jobs.worker import processing

    owner = User.objects.create_user(username)
    started = time.perf_counter()
    jobs = []
    for path in files:
        upload = SimpleUploadedFile(path.name, path.read_bytes(), "application/pdf")
        accepted = create_upload(owner=owner, upload=upload)
        if not accepted.duplicate:
            jobs.append(accepted.job)
    for job in jobs:
        claimed = services.claim_job(job_id=job.id, worker="bench-search")
        if claimed is not None:
            processing.run(claimed)
    return owner.pk, {"ingest": time.perf_counter() - started, "files": len(files)}


def ready_texts(owner_id: int) -> dict[uuid.UUID, tuple[str, list[str]]]:
    """Each ready document of the owner: its name and its ready chunks' texts, in order."""
    # Imported once Django is set up (tests.bench.search's run()): they load models.
    from django.db.models import F

    from documents.models import Document
    from search.models import Chunk

    names = dict(
        Document.objects.filter(owner_id=owner_id, ready_version__isnull=False).values_list(
            "id", "filename"
        )
    )
    texts: dict[uuid.UUID, tuple[str, list[str]]] = {d: (n, []) for d, n in names.items()}
    chunks = Chunk.objects.filter(
        document__owner_id=owner_id, version=F("document__ready_version")
    ).order_by("document_id", "index")
    for document_id, text in chunks.values_list("document_id", "text"):
        texts[document_id][1].append(text)
    return texts


def _eligible(sentence: str) -> bool:
    if len(sentence) > MAX_CHARS:
        return False
    words = sentence.split()
    if len(words) >= MIN_WORDS:
        return len(words) <= MAX_WORDS
    # Scripts without spaces between words: one long run of characters.
    unspaced = max((len(w) for w in words), default=0)
    return unspaced >= MIN_CHARS_UNSPACED and len(sentence) <= 200


def sentences(chunks: list[str]) -> list[str]:
    """Whole sentences of the chunks, long enough to say something: the first and the
    last piece of a chunk are left out when it has more, as they may be cut."""
    found: list[str] = []
    for text in chunks:
        pieces = [p.strip() for p in _SENTENCE_END.split(" ".join(text.split())) if p.strip()]
        if len(pieces) > 2:
            pieces = pieces[1:-1]
        found += [p for p in pieces if _eligible(p)]
    return list(dict.fromkeys(found))


def passages(chunks: list[str]) -> list[str]:
    """For a document without a sentence to take: runs of 12 words, or of 20 characters
    of a script without spaces, side by side through its text."""
    found: list[str] = []
    for text in chunks:
        words = text.split()
        if len(words) >= 2 * PASSAGE_WORDS:
            found += [
                " ".join(words[i : i + PASSAGE_WORDS])
                for i in range(0, len(words) - PASSAGE_WORDS + 1, PASSAGE_WORDS)
            ]
        for word in words:
            if len(word) >= 2 * PASSAGE_CHARS:
                found += [word[i : i + PASSAGE_CHARS] for i in range(0, len(word), PASSAGE_CHARS)]
    return [
        p for p in dict.fromkeys(found) if len(p.split()) >= MIN_WORDS or len(p) == PASSAGE_CHARS
    ]


def drop_words(sentence: str, rng: random.Random) -> str:
    """The sentence without 30 % of its words (order kept); a sentence of fewer than
    four words (a script without spaces) loses 30 % of its characters instead."""
    words = sentence.split()
    if len(words) >= 4:
        keep = sorted(rng.sample(range(len(words)), len(words) - round(DROP * len(words))))
        return " ".join(words[i] for i in keep)
    chars = list(sentence)
    keep = sorted(rng.sample(range(len(chars)), len(chars) - round(DROP * len(chars))))
    return "".join(chars[i] for i in keep)


@dataclass
class Query:
    document_id: uuid.UUID
    kind: str
    text: str
    ambiguous: bool  # the verbatim sentence is also in another document
    # Those documents: a search shows a passage once (search/retrieval/query.py), so a twin of the
    # passage found in one of them is the same result to the person, and counts as found.
    twins: frozenset[uuid.UUID] = frozenset()


def sample_queries(
    texts: dict[uuid.UUID, tuple[str, list[str]]], per_document: int, seed: int
) -> tuple[list[Query], list[str], list[str]]:
    """The queries; the names of the documents that gave passages instead of sentences,
    and of those that gave neither."""
    rng = random.Random(seed)
    passaged: list[str] = []
    flat = {d: " ".join(" ".join(chunks).split()) for d, (_, chunks) in texts.items()}
    queries: list[Query] = []
    skipped: list[str] = []
    # By name, then text: two files of one name (in two folders) in the same order each run.
    for document_id in sorted(texts, key=lambda d: (texts[d][0], texts[d][1][:1])):
        name, chunks = texts[document_id]
        candidates = sentences(chunks)
        if not candidates:
            candidates = passages(chunks)
            (passaged if candidates else skipped).append(name)
        if not candidates:
            continue
        for sentence in rng.sample(candidates, min(per_document, len(candidates))):
            twins = frozenset(
                d for d, other in flat.items() if d != document_id and sentence in other
            )
            dropped = drop_words(sentence, rng)
            queries.append(Query(document_id, "verbatim", sentence, bool(twins), twins))
            queries.append(Query(document_id, "dropped", dropped, bool(twins), twins))
    return queries, passaged, skipped


@dataclass
class Score:
    """Known-item figures of one mode and one kind of query."""

    ranks: list[int | None] = field(default_factory=list)  # 1-based rank of the first hit
    took_ms: list[float] = field(default_factory=list)
    degraded: int = 0

    def recall(self, at: int) -> float:
        return sum(1 for r in self.ranks if r is not None and r <= at) / max(len(self.ranks), 1)

    @property
    def mrr(self) -> float:
        return sum(1 / r for r in self.ranks if r is not None) / max(len(self.ranks), 1)


def evaluate(owner_id: int, queries: list[Query], modes: tuple[str, ...]) -> dict:
    """Scores by (mode, kind): every query in every mode, k = 10."""
    # Imported once Django is set up (tests.bench.search's run()): they load models.
    from search.retrieval.query import search

    scores: dict[tuple[str, str], Score] = {(m, k): Score() for m in modes for k in KINDS}
    for query in queries:
        for mode in modes:
            answer = search(owner_id=owner_id, q=query.text, k=K, mode=mode)
            score = scores[(mode, query.kind)]
            wanted = {query.document_id, *query.twins}
            found = [n for n, hit in enumerate(answer.results, 1) if hit.document_id in wanted]
            rank = found[0] if found else None
            score.ranks.append(rank)
            score.took_ms.append(answer.took_ms)
            score.degraded += answer.degraded
    return scores


def without_the_noise_rules(owner_id: int, queries: list[Query]) -> dict:
    """Hybrid scores of the same queries with the noise rules off, as search was before
    them: every vector hit of the hashing provider trusted, above a fixed 0.2 floor
    (search/retrieval/floors.py). The rules must not lose what that found. An ablation: the two
    functions are swapped for the run and put back."""
    from unittest import mock

    from search.retrieval import floors

    with (
        mock.patch.object(floors, "needs_shared_word", return_value=False),
        mock.patch.object(floors, "floor", return_value=0.2),
    ):
        return evaluate(owner_id, queries, ("hybrid",))


def measure(per_document: int, seed: int, quick: bool) -> dict:
    """Ingest, sample, search; everything the report needs. Django must be set up."""
    # Imported once Django is set up (tests.bench.search's run()): they load models.
    from search.retrieval.query import MODES

    files = corpus_files(quick)
    owner_id, timings = ingest(files, "search-bench-corpus")
    texts = ready_texts(owner_id)
    queries, passaged, skipped = sample_queries(texts, per_document, seed)
    started = time.perf_counter()
    scores = evaluate(owner_id, queries, MODES)
    timings["queries"] = time.perf_counter() - started
    before = without_the_noise_rules(owner_id, queries)
    noise = search_noise.measure(owner_id, MODES)
    return {
        "files": len(files),
        "documents": len(texts),
        "chunks": sum(len(chunks) for _, chunks in texts.values()),
        "sampled_documents": len({q.document_id for q in queries}),
        "queries": sum(1 for q in queries if q.kind == "verbatim"),
        "ambiguous": sum(1 for q in queries if q.kind == "verbatim" and q.ambiguous),
        "unspaced": sum(1 for q in queries if q.kind == "verbatim" and len(q.text.split()) < 4),
        "passaged": passaged,
        "skipped": skipped,
        "scores": scores,
        "before_rules": before,
        "timings": timings,
        "examples": [q.text for q in queries[:4]],
        "noise": noise,
    }
