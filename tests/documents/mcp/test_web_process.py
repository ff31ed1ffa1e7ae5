"""/mcp on the web port itself: the Procfile's `web` process (`python -m config.web`,
gunicorn's gthread workers), two worker processes, on the test database and Redis."""

import sys
from collections.abc import Iterator

import httpx2
import pytest

from config.tooling.embedded import free_port
from search.models import Chunk
from tests.documents.mcp.conftest import call, processed, rest, text_of, with_client
from tests.factories import text_pdf
from tests.harness.servers import WEB, ServerProcess, answers, web_environment

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def web(django_db_setup, tmp_path_factory) -> Iterator[str]:
    """The web process's /mcp URL; started once for this module."""
    port = free_port()
    env = {**web_environment(port, processes=2, threads=4), "PYTHONUNBUFFERED": "1"}
    base = f"http://127.0.0.1:{port}"
    process = ServerProcess(
        "web",
        [sys.executable, *WEB],
        env,
        tmp_path_factory.mktemp("mcp-web"),
        lambda _: answers(f"{base}/healthz"),
    )
    process.start()
    try:
        yield f"{base}/mcp"
    finally:
        process.stop()


def test_the_web_process_answers_the_tools_for_the_tokens_owner(
    web, alice_client, alice_token, bob_token, worker
):
    document = processed(
        alice_client, text_pdf("Glacier retreat was measured at twelve sites."), "ice.pdf"
    )
    chunk = str(Chunk.objects.get(document_id=document, index=0).id)

    tools = with_client(web, alice_token, lambda client: client.list_tools()).tools
    # Eight connections, each its own requests: any thread of either process answers.
    found = [call(web, alice_token, "search", query="glacier retreat") for _ in range(8)]
    answer = rest(web, alice_token, "/api/search/", q="glacier retreat")
    read = call(web, alice_token, "get_chunk", chunk_id=chunk, neighbours=2)
    foreign = call(web, bob_token, "search", query="glacier retreat")

    assert {tool.name for tool in tools} >= {"search", "get_chunk"}
    assert all(result.structured_content["results"] == answer["results"] for result in found)
    assert answer["results"][0]["document_id"] == document
    assert "Glacier retreat was measured at twelve sites." in text_of(read)
    assert foreign.structured_content["results"] == []


def test_the_web_process_refuses_a_request_without_a_token(web):
    answer = httpx2.post(
        web,
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
        headers={"Accept": "application/json, text/event-stream"},
        timeout=30,
    )

    assert answer.status_code == 401
    assert answer.headers["WWW-Authenticate"].startswith("Bearer")
