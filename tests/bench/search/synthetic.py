"""Synthetic chunks for `tests.bench.search`: many accounts, Zipf-like text, hashing vectors.

The text is words drawn from a fixed vocabulary with a Zipf-like distribution (20 English
function words first, then made-up words), so a text query meets posting lists as long
as real text gives. Each chunk's vector is what the `hashing` provider makes of its text
(computed here with numpy, checked against `hashing_embed`), so vector search ranks as it
would on real rows. Rows go in with COPY; the search indexes are dropped first and built
again after, as a bulk load should.
"""

from __future__ import annotations

import hashlib
import os
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np
import psycopg
from pgvector.psycopg import register_vector

FUNCTION_WORDS = (
    "the",
    "of",
    "and",
    "to",
    "in",
    "a",
    "is",
    "that",
    "for",
    "it",
    "as",
    "was",
    "with",
    "be",
    "by",
    "on",
    "not",
    "he",
    "this",
    "are",
)
SYLLABLES = [c + v for c in "bcdfghklmnprstvz" for v in "aeiou"] + ["qu", "th", "st", "ch"]
VOCABULARY = 30_000
WORDS_PER_CHUNK = (100, 170)  # about INGEST_CHUNK_SIZE (1,000) characters
CHUNKS_PER_DOCUMENT = (5, 60)
SMALL_ACCOUNT = 200  # ready chunks of the first account
NEW_VERSION_SHARE = 0.05  # documents with a newer version half written (not served)
UNREADY_SHARE = 0.03  # documents still processing their first version (not served)


def vocabulary(seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    words = list(FUNCTION_WORDS)
    seen = set(words)
    while len(words) < VOCABULARY:
        word = "".join(SYLLABLES[i] for i in rng.integers(0, len(SYLLABLES), rng.integers(2, 5)))
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words


def zipf_weights(size: int, exponent: float = 1.0, shift: float = 2.7) -> np.ndarray:
    """Zipf-Mandelbrot: the word of rank r is drawn with weight 1 / (r + shift)^exponent."""
    weights = 1.0 / (np.arange(1, size + 1) + shift) ** exponent
    return weights / weights.sum()


class Embedder:
    """The `hashing` provider for texts made of vocabulary words, vectorised: a word's
    coordinate and sign are computed once, then a batch is one bincount."""

    def __init__(self, words: list[str], dimensions: int):
        self.dimensions = dimensions
        digests = [
            int.from_bytes(hashlib.blake2b(w.encode(), digest_size=8).digest()) for w in words
        ]
        self.coordinate = np.array([(d >> 1) % dimensions for d in digests], dtype=np.int64)
        self.sign = np.array([1.0 if d & 1 else -1.0 for d in digests])

    def vectors(self, ids: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """Unit vectors (float32) of the texts: row i is ids[i, :lengths[i]]."""
        rows, width = ids.shape
        mask = np.arange(width)[None, :] < lengths[:, None]
        flat = np.arange(rows)[:, None] * self.dimensions + self.coordinate[ids]
        counts = np.bincount(
            flat[mask], weights=self.sign[ids][mask], minlength=rows * self.dimensions
        ).reshape(rows, self.dimensions)
        norms = np.linalg.norm(counts, axis=1, keepdims=True)
        counts[norms[:, 0] == 0, 0] = 1.0  # as hashing_embed: never a zero vector
        norms[norms == 0] = 1.0
        return (counts / norms).astype(np.float32)


@dataclass
class Account:
    user_id: int
    ready_chunks: int  # chunks search serves
    documents: list[uuid.UUID] = field(default_factory=list)


@dataclass
class Corpus:
    """What was loaded: the accounts and how long each step took."""

    accounts: list[Account]
    rows: int  # chunk rows, served or not
    documents: int
    timings: dict[str, float]
    words: list[str]

    @property
    def small(self) -> Account:
        return self.accounts[0]

    @property
    def largest(self) -> Account:
        return max(self.accounts, key=lambda a: a.ready_chunks)


def account_sizes(chunks: int, accounts: int) -> list[int]:
    """Ready chunks per account: the first SMALL_ACCOUNT (when there is room), the rest
    falling as rank^-0.7 (the largest about 25 times the smallest at 100 accounts)."""
    small = min(SMALL_ACCOUNT, chunks // max(accounts, 1))
    if accounts == 1:
        return [chunks]
    weights = 1.0 / np.arange(1, accounts) ** 0.7
    rest = chunks - small
    sizes = np.floor(weights / weights.sum() * rest).astype(int)
    sizes[0] += rest - sizes.sum()
    return [small, *sizes.tolist()]


@dataclass
class _Doc:
    id: uuid.UUID
    owner: int
    version: int
    ready_version: int | None
    chunks: list[tuple[int, int]]  # (version, count)


def plan_documents(sizes: list[int], user_ids: list[int], rng: np.random.Generator) -> list[_Doc]:
    """Documents that give each account exactly its ready chunks, plus rows search must
    not serve: a newer version half written, or a first version still processing."""
    docs: list[_Doc] = []

    def new_id() -> uuid.UUID:
        return uuid.UUID(bytes=rng.bytes(16), version=4)

    for owner, ready in zip(user_ids, sizes, strict=True):
        left = ready
        while left > 0:
            count = min(left, int(rng.integers(*CHUNKS_PER_DOCUMENT, endpoint=True)))
            left -= count
            if rng.random() < NEW_VERSION_SHARE:
                docs.append(_Doc(new_id(), owner, 2, 1, [(1, count), (2, max(1, count // 2))]))
            else:
                docs.append(_Doc(new_id(), owner, 1, 1, [(1, count)]))
            if rng.random() < UNREADY_SHARE:
                docs.append(_Doc(new_id(), owner, 1, None, [(1, max(1, count // 3))]))
    return docs


def say(text: str) -> None:
    print(f"[tests.bench.search {time.strftime('%H:%M:%S')}] {text}", flush=True)


def _required_extras(conn: psycopg.Connection, table: str, given: set[str]) -> dict[str, str]:
    """SQL values for NOT NULL columns without a default that the loader does not know
    (a column added since this was written): a neutral value of the column's type."""
    neutral = {
        "boolean": "false",
        "integer": "0",
        "bigint": "0",
        "smallint": "0",
        "text": "''",
        "character varying": "''",
        "jsonb": "'{}'::jsonb",
        "timestamp with time zone": "now()",
    }
    rows = conn.execute(
        "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = %s"
        " AND is_nullable = 'NO' AND column_default IS NULL AND is_generated = 'NEVER'"
        " AND is_identity = 'NO'",
        (table,),
    ).fetchall()
    extras = {}
    for name, data_type in rows:
        if name in given:
            continue
        if data_type not in neutral:
            raise RuntimeError(f"tests.bench.search does not know how to fill {table}.{name}")
        extras[name] = neutral[data_type]
    if extras:
        say(f"{table}: columns unknown to the benchmark filled with neutral values: {extras}")
    return extras


def _insert_users(conn: psycopg.Connection, count: int) -> list[int]:
    given = {"username", "password", "is_superuser", "first_name", "last_name", "email"}
    given |= {"is_staff", "is_active", "date_joined"}
    extras = _required_extras(conn, "auth_user", given)
    columns = ", ".join(["username", "password", "is_superuser", "first_name", "last_name",
                         "email", "is_staff", "is_active", "date_joined", *extras])  # fmt: skip
    values = ", ".join(["'searchbench' || n", "'!'", "false", "''", "''", "''", "false",
                        "true", "now()", *extras.values()])  # fmt: skip
    sql = f"INSERT INTO auth_user ({columns}) SELECT {values} FROM generate_series(1, %s) AS n"
    rows = conn.execute(sql + " RETURNING id", (count,)).fetchall()
    return sorted(row[0] for row in rows)


DOCUMENT_COLUMNS = ["id", "owner_id", "filename", "size", "sha256", "storage_key", "version",
                    "page_count", "ready_version", "ready_embed_model", "created_at",
                    "updated_at"]  # fmt: skip
CHUNK_COLUMNS = ["id", "document_id", "version", "index", "text", "page", "embedding"]


def _copy_documents(conn: psycopg.Connection, docs: list[_Doc], dimensions: int) -> None:
    extras = _required_extras(conn, "documents_document", set(DOCUMENT_COLUMNS))
    columns = ", ".join(DOCUMENT_COLUMNS[:10])
    signature = f"hashing::{dimensions}"  # search/embedding/signature.py's, for these vectors
    conn.execute(
        f"CREATE TEMP TABLE bench_documents ON COMMIT DROP AS SELECT {columns}"
        " FROM documents_document WITH NO DATA"
    )
    with conn.cursor().copy(f"COPY bench_documents ({columns}) FROM STDIN") as copy:
        for n, d in enumerate(docs):
            key = f"bench/{d.owner}/{d.id}/v{d.version}.pdf"
            digest = hashlib.sha256(d.id.bytes).hexdigest()
            pages = sum(count for _, count in d.chunks) // 3 + 1
            copy.write_row((d.id, d.owner, f"synthetic-{n}.pdf", 100_000, digest, key,
                            d.version, pages, d.ready_version,
                            "" if d.ready_version is None else signature))  # fmt: skip
    names = ", ".join([*DOCUMENT_COLUMNS, *extras])
    values = ", ".join([*DOCUMENT_COLUMNS[:10], "now()", "now()", *extras.values()])
    conn.execute(f"INSERT INTO documents_document ({names}) SELECT {values} FROM bench_documents")


def _chunk_batches(
    docs: list[_Doc], words: int, rng: np.random.Generator, batch: int = 5000
) -> Iterator[tuple[list[tuple[uuid.UUID, int, int, int]], np.ndarray, np.ndarray]]:
    """(document, version, index, page) positions with their word ids and lengths."""
    positions = [
        (d.id, version, index, index // 3 + 1)
        for d in docs
        for version, count in d.chunks
        for index in range(count)
    ]
    weights = zipf_weights(words)
    low, high = WORDS_PER_CHUNK
    for start in range(0, len(positions), batch):
        part = positions[start : start + batch]
        ids = rng.choice(words, size=(len(part), high), p=weights)
        lengths = rng.integers(low, high, size=len(part), endpoint=True)
        yield part, ids, lengths


def _search_indexes(conn: psycopg.Connection) -> list[tuple[str, str]]:
    """search_chunk's indexes that no constraint owns (HNSW, GIN, ...): name, definition."""
    return conn.execute(
        "SELECT i.indexname, i.indexdef FROM pg_indexes i WHERE i.tablename = 'search_chunk'"
        " AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)"
    ).fetchall()


def _check_chunk_columns(conn: psycopg.Connection) -> None:
    rows = conn.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = 'search_chunk'"
        " AND is_nullable = 'NO' AND column_default IS NULL AND is_generated = 'NEVER'"
    ).fetchall()
    unknown = {name for (name,) in rows} - set(CHUNK_COLUMNS)
    if unknown:
        raise RuntimeError(f"search_chunk has columns tests.bench.search does not fill: {unknown}")


def load(
    database_url: str,
    *,
    chunks: int,
    accounts: int,
    dimensions: int,
    seed: int,
    on_index: Callable[[str], None] = say,
) -> Corpus:
    """Users, documents and chunks in the database; the search indexes built after."""
    rng = np.random.default_rng(seed)
    timings: dict[str, float] = {}
    words = vocabulary(seed)
    embedder = Embedder(words, dimensions)
    _self_check(embedder, words, rng)
    with psycopg.connect(database_url, autocommit=True) as conn:
        register_vector(conn)
        _check_chunk_columns(conn)
        started = time.perf_counter()
        with conn.transaction():
            user_ids = _insert_users(conn, accounts)
            sizes = account_sizes(chunks, accounts)
            docs = plan_documents(sizes, user_ids, rng)
            _copy_documents(conn, docs, dimensions)
        timings["documents"] = time.perf_counter() - started
        indexes = _search_indexes(conn)
        for name, _ in indexes:
            conn.execute(f'DROP INDEX "{name}"')
        started, rows = time.perf_counter(), 0
        names = ", ".join(f'"{c}"' for c in CHUNK_COLUMNS)
        with conn.cursor().copy(f"COPY search_chunk ({names}) FROM STDIN (FORMAT BINARY)") as cp:
            cp.set_types(["uuid", "uuid", "int4", "int4", "text", "int4", "vector"])
            for part, ids, lengths in _chunk_batches(docs, len(words), rng):
                vectors = embedder.vectors(ids, lengths)
                id_lists, length_list = ids.tolist(), lengths.tolist()
                for n, (document, version, index, page) in enumerate(part):
                    text = " ".join([words[i] for i in id_lists[n][: length_list[n]]])
                    cp.write_row((_uuid(rng), document, version, index, text, page, vectors[n]))
                rows += len(part)
                if rows % 50_000 < len(part):
                    on_index(f"  {rows:,} chunk rows written")
        timings["copy"] = time.perf_counter() - started
        conn.execute("SET maintenance_work_mem = '1GB'")
        conn.execute(f"SET max_parallel_maintenance_workers = {min(2, os.cpu_count() or 1)}")
        for name, definition in indexes:
            started = time.perf_counter()
            on_index(f"building {name}")
            conn.execute(definition)
            timings[f"index {name}"] = time.perf_counter() - started
        started = time.perf_counter()
        conn.execute("VACUUM ANALYZE search_chunk")
        conn.execute("VACUUM ANALYZE documents_document")
        conn.execute("ANALYZE auth_user")
        timings["vacuum analyze"] = time.perf_counter() - started
    result = [Account(user_id, size) for user_id, size in zip(user_ids, sizes, strict=True)]
    by_owner = {a.user_id: a for a in result}
    for d in docs:
        by_owner[d.owner].documents.append(d.id)
    return Corpus(result, rows, len(docs), timings, words)


def _uuid(rng: np.random.Generator) -> uuid.UUID:
    return uuid.UUID(bytes=rng.bytes(16), version=4)


def _self_check(embedder: Embedder, words: list[str], rng: np.random.Generator) -> None:
    """The vectorised embedder gives what the `hashing` provider gives."""
    # Imported once Django is set up (tests.bench.search's run()): they load models.
    from search.embedding.hashing import hashing_embed

    ids = rng.integers(0, len(words), size=(3, 40))
    lengths = np.array([40, 17, 1])
    ours = embedder.vectors(ids, lengths)
    texts = [" ".join(words[i] for i in ids[n, : lengths[n]]) for n in range(3)]
    theirs = np.array(hashing_embed(texts, embedder.dimensions), dtype=np.float32)
    if not np.allclose(ours, theirs, atol=1e-6):
        raise RuntimeError("the vectorised hashing embedder disagrees with hashing_embed")
