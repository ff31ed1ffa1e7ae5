"""`python -m tests.bench.mcp`: the same search through the MCP server and through the REST
API, on the same data, from the same client, as an assistant and an integrator see it.

A private Postgres and Redis (as `make bench`), one account with `--documents` ready
documents of `--chunks` chunks each (text drawn from a small vocabulary, `hashing` vectors)
and four other accounts with as many, and the Procfile's `web` process as served (gunicorn
gthread, 2 processes x 8 threads). One client, one connection each: `GET /api/search/`
with `Authorization: Bearer`, and the SDK's client calling the `search` tool on /mcp
(2026-07-28 protocol, one POST a call). The same queries, k = 10, hybrid; after
`--warm` calls of each, `--calls` of each interleaved (the order swapped every call, so
neither side has the quieter moments), each timed as its caller waits for it. Every MCP
answer must hold the same hits as the REST one. The target: MCP's p50 and p95 within
1.2 x REST's.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import httpx2

from tests.bench.report import (
    RESULTS,
    code_version,
    describe_machine,
    percentile,
    write_json,
    write_section,
)
from tests.bench.services import BASE_DIR, Server, Setup, django_on_private_services

TARGET = 1.2
K = 10
# Content words that searches find, and filler that carries no weight.
CONTENT_WORDS = (
    "glacier river delta harbour granite basalt monsoon drought orchard vineyard tariff ledger "
    "invoice pension mortgage turbine reactor enzyme protein vaccine sonnet ballad fresco mosaic "
    "lantern compass anchor beacon cipher archive quarry timber copper cobalt lithium silicon"
)
FILLER_WORDS = "the of and to in a is that for on with as by at from"


def fill(documents: int, chunks: int, seed: int) -> tuple[str, list[str]]:
    """The accounts and their ready chunks; the measured account's token and the queries
    (two words of one of its chunks each)."""
    from django.conf import settings
    from django.contrib.auth.models import User

    from config.accounts.tokens import issue_token
    from documents.models import Document
    from search.embedding import hashing_embed
    from search.embedding.signature import current_signature
    from search.models import Chunk
    from search.pipeline.store import chunk_id

    rng = random.Random(seed)
    queries: list[str] = []
    token = ""
    for number in range(5):
        owner = User.objects.create_user(f"bench{number}")
        if number == 0:
            token = issue_token(owner, name="bench").key
        for _ in range(documents):
            document = Document.objects.create(
                owner=owner,
                filename=f"{uuid.uuid4().hex[:8]}.pdf",
                size=1000,
                sha256=uuid.uuid4().hex * 2,
                storage_key="bench",
                ready_version=1,
                ready_embed_model=current_signature(),
            )
            texts = [_text(rng) for _ in range(chunks)]
            if number == 0:
                queries += [" ".join(rng.sample(text.split()[:60:3], 2)) for text in texts[:2]]
            vectors = hashing_embed(texts, settings.INGEST_EMBED_DIMENSIONS)
            Chunk.objects.bulk_create(
                Chunk(
                    id=chunk_id(document.id, 1, index),
                    document=document,
                    version=1,
                    index=index,
                    page=index + 1,
                    text=text,
                    embedding=vector,
                )
                for index, (text, vector) in enumerate(zip(texts, vectors, strict=True))
            )
    return token, queries


def _text(rng: random.Random) -> str:
    vocabulary, filler = CONTENT_WORDS.split(), FILLER_WORDS.split()
    words = [rng.choice(vocabulary if rng.random() < 0.4 else filler) for _ in range(150)]
    return " ".join(words)


# The request a 2026-07-28 client sends for a tool call: one POST, its routing headers and
# the envelope of the protocol version and capabilities in `_meta` (no session, no handshake).
MCP_HEADERS = {
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2026-07-28",
    "Mcp-Method": "tools/call",
    "Mcp-Name": "search",
}
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}
SIDES = ("rest", "mcp", "sdk")


async def measure(base: str, token: str, queries: list[str], warm: int, calls: int) -> dict:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"}
    times: dict[str, list[float]] = {side: [] for side in SIDES}
    async with (
        httpx2.AsyncClient(base_url=base, headers=headers, timeout=60) as http,
        httpx2.AsyncClient(headers=headers, timeout=60) as sdk_http,
        Client(streamable_http_client(f"{base}/mcp", http_client=sdk_http)) as client,
    ):

        async def by_rest(query: str) -> list[str]:
            answer = await http.get("/api/search/", params={"q": query, "k": K})
            assert answer.status_code == 200, answer.text
            return [hit["chunk_id"] for hit in answer.json()["results"]]

        async def by_mcp(query: str) -> list[str]:
            arguments = {"query": query, "k": K}
            params = {"name": "search", "arguments": arguments, "_meta": ENVELOPE}
            body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
            answer = await http.post("/mcp", json=body, headers=MCP_HEADERS)
            assert answer.status_code == 200, answer.text
            result = answer.json()["result"]
            assert not result.get("isError"), result
            return [hit["chunk_id"] for hit in result["structuredContent"]["results"]]

        async def by_sdk(query: str) -> list[str]:
            result = await client.call_tool("search", {"query": query, "k": K})
            assert not result.is_error, result.content
            assert result.structured_content is not None
            return [hit["chunk_id"] for hit in result.structured_content["results"]]

        ways = {"rest": by_rest, "mcp": by_mcp, "sdk": by_sdk}
        for number in range(warm + calls):
            query = queries[number % len(queries)]
            turn = number % len(SIDES)  # each side goes first, second and third in turn
            found = {}
            for side in SIDES[turn:] + SIDES[:turn]:
                started = time.perf_counter()
                found[side] = await ways[side](query)
                if number >= warm:
                    times[side].append((time.perf_counter() - started) * 1000)
            assert found["rest"] == found["mcp"] == found["sdk"], (query, found)
    return {side: _figures(values) for side, values in times.items()}


def _figures(values: list[float]) -> dict[str, float]:
    return {
        "calls": len(values),
        "p50": percentile(values, 50),
        "p95": percentile(values, 95),
        "mean": sum(values) / len(values),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=40, help="per account")
    parser.add_argument("--chunks", type=int, default=20, help="per document")
    parser.add_argument("--calls", type=int, default=200, help="measured, of each")
    parser.add_argument("--warm", type=int, default=30, help="not measured, of each")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--no-write", action="store_true", help="leave the results page alone")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="ingest-mcp-bench-"))
    with django_on_private_services("ingest-mcp-bench-") as services:
        import django

        django.setup()
        token, queries = fill(args.documents, args.chunks, args.seed)
        env = {**services.env, "INGEST_SEARCH_THROTTLE_RATE": "1000000/min"}
        server = Server("real", "config.wsgi", Setup(), env, root).start()
        try:
            base = f"http://127.0.0.1:{server.port}"
            figures = asyncio.run(measure(base, token, queries, args.warm, args.calls))
        finally:
            server.stop()
            shutil.rmtree(root, ignore_errors=True)
        machine = describe_machine(services.env)
    result = {"args": vars(args), "machine": machine, "code": code_version(), **figures}
    text = report(result)
    print(text)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    print("figures:", write_json(BASE_DIR / "var" / "bench", f"mcp-{stamp}", result))
    if not args.no_write:
        write_section(RESULTS, "bench-mcp", text, by="python -m tests.bench.mcp")
    if not passed(figures):
        raise SystemExit(f"MCP search is over {TARGET:g} x the REST search's latency")


def ratios(figures: dict[str, Any], side: str = "mcp") -> dict[str, float]:
    return {q: figures[side][q] / figures["rest"][q] for q in ("p50", "p95")}


def passed(figures: dict[str, Any]) -> bool:
    """The service's side: /mcp against the API, both asked over plain HTTP."""
    return all(value <= TARGET for value in ratios(figures).values())


def report(result: dict[str, Any]) -> str:
    args = result["args"]
    ratio, sdk = ratios(result), ratios(result, "sdk")
    verdict = "PASS" if passed(result) else "FAIL"
    names = {
        "rest": "REST `GET /api/search/` (httpx2)",
        "mcp": "MCP `search` tool, a `tools/call` POST (httpx2)",
        "sdk": "MCP `search` tool through the SDK's client",
    }
    rows = [
        f"| {names[side]} | {result[side]['calls']} | {result[side]['p50']:.1f} | "
        f"{result[side]['p95']:.1f} | {result[side]['mean']:.1f} |"
        for side in SIDES
    ]
    return (
        f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} with "
        f"`python -m tests.bench.mcp`, code {result['code']}. One account of "
        f"{args['documents']} ready documents x {args['chunks']} chunks (and four others "
        "as large), `hashing` vectors; gunicorn gthread 2 x 8; one client, k = 10, hybrid, "
        f"the same queries every way, {args['warm']} warm-up calls of each, then the calls "
        "interleaved.\n\n"
        f"Machine: {result['machine']}.\n\n"
        "| path | calls | p50 ms | p95 ms | mean ms |\n|---|---|---|---|---|\n"
        + "\n".join(rows)
        + f"\n\nMCP / REST, both over plain HTTP: p50 {ratio['p50']:.2f} x, p95 "
        f"{ratio['p95']:.2f} x (target: both within {TARGET:g} x): {verdict}. Through the "
        f"SDK's client, which also validates each answer against the tool's output schema: "
        f"p50 {sdk['p50']:.2f} x, p95 {sdk['p95']:.2f} x.\n"
    )


if __name__ == "__main__":
    main()
