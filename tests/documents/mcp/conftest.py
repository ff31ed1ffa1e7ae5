"""The MCP server driven as an assistant drives it: the SDK's own client, over real HTTP,
with a real API token; documents uploaded through the API and processed by a real worker."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult

from config.accounts import tokens
from tests.conftest import pdf_upload, wait_until_terminal

T = TypeVar("T")


def with_client(
    url: str, token: str | None, work: Callable[[Client], Awaitable[T]], mode: str = "auto"
) -> T:
    """`work(client)` on a client connected to `url` (the /mcp endpoint) with `token`;
    `mode="legacy"` speaks the older protocol, with its `initialize` handshake."""

    async def session() -> T:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60) as http,
            Client(streamable_http_client(url, http_client=http), mode=mode) as client,
        ):
            return await work(client)

    return asyncio.run(session())


def call(url: str, token: str, tool: str, **arguments: Any) -> CallToolResult:
    """One tool call, on a connection of its own."""
    return with_client(url, token, lambda client: client.call_tool(tool, arguments))


def rest(url: str, token: str, path: str, **params: Any) -> dict:
    """The REST API's JSON answer to GET `path`, over HTTP on the same server as `url`."""
    base = url.removesuffix("/mcp")
    answer = httpx2.get(
        base + path, params=params, headers={"Authorization": f"Bearer {token}"}, timeout=60
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


def text_of(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


def processed(client, content: bytes, name: str, **labels: Any) -> str:
    """Upload through the API (with `tags`, `metadata`) and wait for the worker; the id."""
    sent = client.post("/api/documents/", {"file": pdf_upload(content, name), **labels})
    assert sent.status_code == 202, sent.content
    result = sent.json()["results"][0]
    [job] = wait_until_terminal([result["job_id"]])
    assert job.status == "succeeded", job.error_detail
    return result["document_id"]


@pytest.fixture
def alice_token(alice) -> str:
    return tokens.issue_token(alice).key


@pytest.fixture
def bob_token(bob) -> str:
    return tokens.issue_token(bob).key
