"""/mcp through Django's live server (real HTTP, this process's settings): the tools, as the
SDK's client lists and calls them, against what the REST API answers for the same data."""

import dataclasses
import json

import httpx2
import pytest
from django.test import Client as DjangoClient

from config.accounts import tokens
from documents.mcp.shapes import HitOut
from search.models import Chunk
from search.retrieval.answer import Hit
from tests.bench.structure import corpus
from tests.documents.mcp.conftest import call, processed, rest, text_of, with_client
from tests.factories import make_pdf, text_pdf
from tests.search.chunks import add_chunks
from tests.services import postgres_stopped

pytestmark = pytest.mark.django_db(transaction=True)

REPORT = text_pdf("The quarterly revenue grew in every region.", "Travel expenses are due monthly.")


@pytest.fixture
def url(live_server) -> str:
    return live_server.url + "/mcp"


def test_the_tools_are_listed_read_only_with_their_schemas(url, alice_token):
    listed = with_client(url, alice_token, lambda client: client.list_tools()).tools
    tools = {tool.name: tool for tool in listed}

    assert set(tools) == {"search", "list_documents", "get_document_content", "get_chunk"}
    assert all(tool.annotations.read_only_hint for tool in listed)
    search = tools["search"].input_schema
    assert search["required"] == ["query"]
    assert search["properties"]["k"]["maximum"] == 200  # as the API's k
    assert {"tags", "metadata", "mode", "document_id"} <= set(search["properties"])
    assert "results" in tools["search"].output_schema["properties"]
    assert "next_offset" in tools["get_document_content"].output_schema["properties"]


def test_search_answers_the_hits_the_api_answers(url, alice, alice_client, alice_token, worker):
    processed(alice_client, REPORT, "q3.pdf")

    result = call(url, alice_token, "search", query="quarterly revenue", k=5)
    answer = rest(url, alice_token, "/api/search/", q="quarterly revenue", k=5)

    assert not result.is_error
    assert result.structured_content["results"] == answer["results"]
    first = result.structured_content["results"][0]
    assert first["filename"] == "q3.pdf"
    assert first["links"]["chunk"].startswith(url.removesuffix("/mcp") + "/api/chunks/")
    assert "The quarterly revenue grew in every region." in text_of(result)
    assert set(HitOut.model_fields) == {f.name for f in dataclasses.fields(Hit)} | {"links"}


def test_more_results_come_with_an_offset_as_the_apis_next_page(
    url, alice_client, alice_token, worker
):
    processed(alice_client, REPORT, "q3.pdf")
    query = "quarterly revenue OR travel expenses"

    first = call(url, alice_token, "search", query=query, k=1).structured_content
    second = call(url, alice_token, "search", query=query, k=1, offset=1).structured_content
    pages = rest(url, alice_token, "/api/search/", q=query, k=2)["results"]

    assert first["next_offset"] == 1
    assert second["next_offset"] is None
    assert [first["results"][0]["chunk_id"], second["results"][0]["chunk_id"]] == [
        hit["chunk_id"] for hit in pages
    ]


def test_the_older_protocol_is_answered_too(url, alice_client, alice_token, worker):
    processed(alice_client, REPORT, "q3.pdf")

    result = with_client(
        url,
        alice_token,
        lambda client: client.call_tool("search", {"query": "travel expenses"}),
        mode="legacy",
    )

    assert [hit["page"] for hit in result.structured_content["results"]] == [2]


def test_tags_and_metadata_narrow_the_search_and_the_list(url, alice_client, alice_token, worker):
    # Two passages with the query's words (one passage alike in both would be shown once).
    signed = processed(
        alice_client,
        text_pdf("The supplier contract renews every spring."),
        "signed.pdf",
        tags=["contracts"],
        metadata='{"year": 2024}',
    )
    draft = processed(
        alice_client,
        text_pdf("Each supplier contract is signed in autumn."),
        "draft.pdf",
        metadata='{"year": 2023}',
    )

    def found(tool: str, **arguments) -> set[str]:
        out = call(url, alice_token, tool, **arguments).structured_content
        key, rows = (
            ("document_id", out["results"]) if tool == "search" else ("id", out["documents"])
        )
        return {row[key] for row in rows}

    assert found("search", query="supplier contract") == {signed, draft}
    assert found("search", query="supplier contract", tags=["contracts"]) == {signed}
    assert found("search", query="supplier contract", metadata={"year": 2024}) == {signed}
    assert found("search", query="supplier contract", metadata={"year": "2023"}) == {draft}
    assert (
        found("search", query="supplier contract", tags=["contracts"], metadata={"year": 2023})
        == set()
    )
    assert found("list_documents", tags=["contracts"]) == {signed}
    assert found("list_documents", metadata={"year": "2023"}) == {draft}


def test_a_bad_filter_is_a_tool_error_naming_it(url, alice_token):
    result = call(url, alice_token, "search", query="x", tags=["a" * 65])

    assert result.is_error
    assert "A tag has at most 64 characters" in text_of(result)


def test_another_users_token_never_reaches_alices_documents(
    url, alice_client, alice_token, bob_token, worker
):
    document = processed(alice_client, REPORT, "q3.pdf")
    chunk = str(Chunk.objects.get(document_id=document, index=0).id)
    assert (
        "quarterly"
        in call(url, alice_token, "get_chunk", chunk_id=chunk).structured_content["text"]
    )

    searched = call(url, bob_token, "search", query="quarterly revenue")
    listed = call(url, bob_token, "list_documents")
    in_document = call(url, bob_token, "search", query="revenue", document_id=document)
    content = call(url, bob_token, "get_document_content", document_id=document)
    unknown = call(url, bob_token, "get_document_content", document_id=chunk)
    neighbours = call(url, bob_token, "get_chunk", chunk_id=chunk)

    assert searched.structured_content["results"] == []
    assert listed.structured_content["documents"] == []
    assert in_document.is_error
    assert content.is_error
    assert neighbours.is_error
    assert text_of(content).replace(document, chunk) == text_of(unknown)
    assert "quarterly" not in text_of(neighbours)


def test_without_a_valid_token_the_answer_is_401_asking_for_a_bearer_token(
    url, alice, alice_token, settings
):
    settings.INGEST_TOKEN_CACHE_SECONDS = 0
    revoked = tokens.issue_token(alice)
    tokens.revoke_token(user=alice, token_id=revoked.token.id)
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}

    def post(authorization: str | None) -> httpx2.Response:
        headers = {"Accept": "application/json, text/event-stream"}
        if authorization:
            headers["Authorization"] = authorization
        return httpx2.post(url, json=body, headers=headers, timeout=30)

    missing = post(None)
    wrong_scheme = post(f"Basic {alice_token}")
    unknown = post("Bearer not-a-token")
    gone = post(f"Bearer {revoked.key}")

    assert missing.status_code == wrong_scheme.status_code == 401
    assert missing.headers["WWW-Authenticate"].startswith("Bearer")
    assert missing.json()["code"] == "not_authenticated"
    for refused in (unknown, gone):
        assert refused.status_code == 401
        assert 'error="invalid_token"' in refused.headers["WWW-Authenticate"]
        assert refused.json()["code"] == "authentication_failed"
    with pytest.raises(ExceptionGroup) as refused_client:
        with_client(url, "not-a-token", lambda client: client.list_tools())
    assert "Server returned an error response" in repr(refused_client.value)


def test_searching_past_the_rate_is_a_tool_error_that_says_when_to_retry(
    url, alice_client, alice_token, settings
):
    settings.INGEST_SEARCH_THROTTLE_RATE = "2/min"

    first, second, third = (call(url, alice_token, "search", query="revenue") for _ in range(3))
    rest = alice_client.get("/api/search/", {"q": "revenue"})

    assert not first.is_error
    assert not second.is_error
    assert third.is_error
    assert "INGEST_SEARCH_THROTTLE_RATE (2/min)" in text_of(third)
    assert "try again in" in text_of(third)
    assert rest.status_code == 429  # one budget, the API's and the MCP server's


def test_content_comes_in_pieces_that_add_up_to_the_apis(url, alice_client, alice_token, worker):
    document = processed(alice_client, corpus.report().pdf, "report.pdf")
    whole = {}
    for format_ in ("markdown", "json"):
        answer = alice_client.get(f"/api/documents/{document}/content", {"format": format_})
        whole[format_] = b"".join(answer.streaming_content).decode()

    def pieces(format_: str) -> list[dict]:
        got, offset = [], 0
        while offset is not None:
            result = call(
                url,
                alice_token,
                "get_document_content",
                document_id=document,
                format=format_,
                offset=offset,
                max_chars=700,
            )
            got.append(result.structured_content)
            offset = got[-1]["next_offset"]
        return got

    markdown = pieces("markdown")
    assert len(markdown) > 2
    assert "".join(piece["text"] for piece in markdown) == whole["markdown"]
    assert all(len(piece["text"]) == 700 for piece in markdown[:-1])
    first = call(url, alice_token, "get_document_content", document_id=document, max_chars=700)
    assert text_of(first).endswith("call get_document_content with offset=700 for the rest.]")
    model = json.loads("".join(piece["text"] for piece in pieces("json")))
    assert model == json.loads(whole["json"])


def test_a_chunk_comes_with_its_neighbours_of_the_ready_version(
    url, alice, alice_client, alice_token, worker
):
    document = processed(alice_client, make_pdf(pages=6), "long.pdf")
    stored = list(Chunk.objects.filter(document_id=document).order_by("index"))
    assert len(stored) >= 4
    middle = str(stored[2].id)

    around = call(url, alice_token, "get_chunk", chunk_id=middle, neighbours=1)
    alone = call(url, alice_token, "get_chunk", chunk_id=middle, neighbours=0)
    first = call(url, alice_token, "get_chunk", chunk_id=str(stored[0].id), neighbours=2)
    api = rest(url, alice_token, f"/api/chunks/{middle}/", neighbours=1)

    out = around.structured_content
    assert out.pop("filename") == "long.pdf"
    assert out == api
    assert [c["index"] for c in (*out["before"], out, *out["after"])] == [1, 2, 3]
    assert [c["text"] for c in (*out["before"], out, *out["after"])] == [
        c.text for c in stored[1:4]
    ]
    assert "[chunk 2, page" in text_of(around)
    assert (alone.structured_content["before"], alone.structured_content["after"]) == ([], [])
    assert [c["index"] for c in first.structured_content["after"]] == [1, 2]
    assert first.structured_content["before"] == []
    # A chunk of a version that is not the ready one is not served.
    [old] = add_chunks(stored[0].document, 7, ["an unready version"])
    assert call(url, alice_token, "get_chunk", chunk_id=str(old.id)).is_error


def test_documents_are_listed_newest_first_a_page_at_a_time(url, alice, alice_token):
    from tests.factories import make_document

    made = [str(make_document(alice, filename=f"{n}.pdf").id) for n in range(5)]
    pages, cursor = [], None
    while True:
        arguments = {"limit": 2} | ({"cursor": cursor} if cursor else {})
        out = call(url, alice_token, "list_documents", **arguments).structured_content
        pages.append([d["id"] for d in out["documents"]])
        cursor = out["next_cursor"]
        if cursor is None:
            break

    assert [len(page) for page in pages] == [2, 2, 1]
    assert [d for page in pages for d in page] == made[::-1]
    assert call(url, alice_token, "list_documents", cursor="nonsense").is_error
    assert DjangoClient().get("/mcp").status_code == 401


def test_nothing_streams_a_get_or_a_subscription_is_refused_at_once(url, alice_token):
    headers = {
        "Authorization": f"Bearer {alice_token}",
        "Accept": "application/json, text/event-stream",
    }
    listen = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "subscriptions/listen",
        "params": {
            "notifications": {"toolsListChanged": True},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    }

    stream = httpx2.get(url, headers=headers, timeout=10)
    subscription = httpx2.post(
        url,
        json=listen,
        headers={
            **headers,
            "MCP-Protocol-Version": "2026-07-28",
            "Mcp-Method": "subscriptions/listen",
        },
        timeout=10,
    )

    assert stream.status_code == 405
    assert stream.headers["Allow"] == "POST"
    assert subscription.json()["error"]["message"] == "Method not found"  # not a stream


def test_while_the_database_is_away_a_tool_says_to_try_again_in_the_apis_words(url, alice_token):
    assert not call(url, alice_token, "list_documents").is_error  # the token is known now

    with postgres_stopped():
        away = call(url, alice_token, "list_documents")

    assert away.is_error
    assert text_of(away).endswith(
        "The database is not answering (it may be restarting); try again in 5 seconds."
    )
    assert not call(url, alice_token, "list_documents").is_error
