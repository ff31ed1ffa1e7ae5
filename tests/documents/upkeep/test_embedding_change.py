"""After the configured embedding changes, the sweeper's passes alone re-embed the ready
documents another embedding made, in the waves of `manage.py reprocess embeddings`, with
no new version for anyone to see, then measure the new embedding's floor; and they say so."""

import io
import logging
import re
import threading
import time
from collections.abc import Callable
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from config.common import locks
from documents.models import Document, EmbeddingChange
from documents.upkeep import embedding_change
from jobs import sweeper
from jobs.models import Job, JobStatus
from search.models import Chunk, SimilarityFloor
from search.retrieval import floors
from tests.conftest import pdf_upload, running_worker, wait_until_terminal
from tests.factories import make_document, make_pdf
from tests.fakes.openai_server import vector_for
from tests.jobs.test_hot_path_plans import scans

pytestmark = pytest.mark.django_db(transaction=True)

HASHING = "hashing::384"
OPENAI = "openai:text-embedding-3-small:384"
LOGGER = "documents.upkeep.embedding_change"


@pytest.fixture(autouse=True)
def a_sweeper_just_started():
    """Each test's passes are a sweeper's first: what it says once, it says again."""
    embedding_change._said.clear()
    yield
    embedding_change._said.clear()


def processed(client, seeds: list[int]) -> list[str]:
    """Upload one document per seed and wait for them all (a worker must run); their ids."""
    sent = [
        client.post("/api/documents/", {"file": pdf_upload(make_pdf(pages=2, seed=seed))})
        for seed in seeds
    ]
    results = [answer.json()["results"][0] for answer in sent]
    jobs = wait_until_terminal([result["job_id"] for result in results])
    assert {job.status for job in jobs} == {JobStatus.SUCCEEDED}
    return [result["document_id"] for result in results]


def ready(owner, made_by: str) -> Document:
    """A document whose version 1 is ready, its vectors made by `made_by` (rows only)."""
    document = make_document(owner, ready_version=1, ready_embed_model=made_by)
    Job.objects.filter(id=document.current_job_id).update(
        status=JobStatus.SUCCEEDED, embed_model=made_by, finished_at=timezone.now()
    )
    return document


def passes_until(done: Callable[[], object], timeout: float = 60) -> None:
    """The sweeper's passes, as `requeue_stuck --loop` runs them, until `done()`."""
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, "the passes did not get there"
        sweeper.run_each_pass()
        time.sleep(0.05)


def said(caplog) -> str:
    return "\n".join(r.getMessage() for r in caplog.records if r.name == LOGGER)


def cited(document_id: str) -> list[tuple]:
    """What a citation of the document's chunks names: id, version, page, text."""
    chunks = Chunk.objects.filter(document_id=document_id).order_by("index")
    return list(chunks.values_list("id", "version", "page", "text"))


def the_page(user, document_id: str) -> str:
    client = Client()
    client.force_login(user)
    return client.get(f"/documents/{document_id}/").content.decode()


def test_a_changed_embedding_is_caught_up_by_the_sweepers_passes_alone(
    alice, alice_client, broker, request, caplog
):
    with running_worker(broker) as worker:
        ids = processed(alice_client, [1, 2, 3])
        before = {document_id: cited(document_id) for document_id in ids}
        server = request.getfixturevalue("openai_server")  # the configuration changes
        worker.pause()
        # Search finds them by their words meanwhile, and says they wait.
        waiting = alice_client.get("/api/search/", {"q": "page"}).json()
        assert waiting["not_searchable_by_meaning"] == 3
        assert {d["document_id"] for d in waiting["not_searchable_by_meaning_documents"]} == set(
            ids
        )
        with caplog.at_level(logging.INFO, logger=LOGGER):
            sweeper.run_each_pass()

            assert (
                f"embedding changed: 3 documents were embedded by {HASHING}, the "
                f"configuration is {OPENAI}: re-embedding them in the background (0/3)"
            ) in said(caplog)
            queued = list(Job.objects.filter(embed_only=True))
            assert len(queued) == 3
            assert {(job.version, job.lane, job.status) for job in queued} == {
                (1, "batch", JobStatus.QUEUED)
            }
            worker.resume()
            passes_until(lambda: EmbeddingChange.objects.get(signature=OPENAI).floor is not None)
        worker.pause()

    assert set(Document.objects.values_list("ready_embed_model", flat=True)) == {OPENAI}
    for document_id in ids:
        assert cited(document_id) == before[document_id]  # ids, pages, texts: citations hold
        for chunk in Chunk.objects.filter(document_id=document_id):
            assert list(chunk.embedding) == pytest.approx(vector_for(chunk.text, 384), abs=1e-6)
        shown = alice_client.get(f"/api/documents/{document_id}/").json()
        assert (shown["version"], shown["ready_version"], shown["status"]) == (1, 1, "succeeded")
        page = the_page(alice, document_id)
        assert re.findall(r'<tr data-version="(\d+)">', page) == ["1"]  # one version, one file
        assert page.count('<span class="meta">re-embedded</span>') == 1  # in the job history
    caught_up = alice_client.get("/api/search/", {"q": "page"}).json()
    assert (caught_up["not_searchable_by_meaning"], caught_up["degraded"]) == (0, False)
    floor = SimilarityFloor.objects.get(signature=OPENAI)
    assert server.inputs > sum(len(chunks) for chunks in before.values())  # the floor's queries
    assert f"re-embedding for {OPENAI} done: 3/3 documents; floor measured at " in said(caplog)
    assert f"{floor.floor:.2f} on {floor.chunks:,} chunks" in said(caplog)
    jobs = Job.objects.count()

    sweeper.run_each_pass()  # caught up: a pass does nothing more

    assert Job.objects.count() == jobs


def test_turned_off_it_queues_nothing_and_says_what_to_run(alice, broker, settings, caplog):
    settings.INGEST_AUTO_REEMBED = False
    ready(alice, OPENAI)
    jobs = Job.objects.count()

    with caplog.at_level(logging.INFO, logger=LOGGER):
        sweeper.run_each_pass()
        sweeper.run_each_pass()

    assert Job.objects.count() == jobs
    assert not EmbeddingChange.objects.exists()
    assert said(caplog) == (
        f"1 document was embedded by {OPENAI}, not the configured {HASHING}: search finds them "
        "by their words only. INGEST_AUTO_REEMBED is off: `manage.py reprocess embeddings` "
        "re-embeds them"
    )


def test_a_reembed_that_fails_is_not_queued_again(alice_client, broker, request, caplog):
    with running_worker(broker) as worker:
        [document_id] = processed(alice_client, [4])
        server = request.getfixturevalue("openai_server")
        server.script(["400"])  # the model is refused: the re-embed fails at once
        with caplog.at_level(logging.INFO, logger=LOGGER):
            passes_until(
                lambda: EmbeddingChange.objects.filter(floor_claimed_at__isnull=False).exists()
            )
            for _ in range(3):
                sweeper.run_each_pass()
        worker.pause()

    [reembed] = Job.objects.filter(embed_only=True)
    assert (reembed.status, reembed.error_code) == (JobStatus.FAILED, "embedding_rejected")
    document = Document.objects.get(id=document_id)
    assert (document.ready_embed_model, document.current_job_id) == (HASHING, reembed.id)
    change = EmbeddingChange.objects.get(signature=OPENAI)
    assert (change.done, change.failed, change.pending) == (0, 1, [])
    assert f"re-embedding for {OPENAI} done: 0/1 documents; 1 left, found by their words" in said(
        caplog
    )
    # Nothing it could measure but the old model's vectors: no floor, looked at again later.
    assert "no document is ready with it yet, so its floor is not measured" in said(caplog)
    assert not SimilarityFloor.objects.exists()
    assert change.floor is None


def test_workers_with_other_settings_stop_it_queuing_and_it_says_why(
    alice, alice_client, broker, monkeypatch, caplog
):
    with running_worker(broker) as worker:
        processed(alice_client, [5, 6])
        # The sweeper is configured for OpenAI; the workers still embed with hashing.
        monkeypatch.setattr(embedding_change, "current_signature", lambda: OPENAI)
        with caplog.at_level(logging.INFO, logger=LOGGER):
            passes_until(lambda: EmbeddingChange.objects.filter(halted__gt="").exists())
            jobs = Job.objects.count()
            sweeper.run_each_pass()
        worker.pause()

    assert Job.objects.count() == jobs, "halted: nothing more is queued"
    assert (
        f"2 re-embedded documents came back made by {HASHING}, not {OPENAI}: the workers run "
        "other embedding settings than the sweeper"
    ) in said(caplog)


def test_one_sweeper_acts_at_a_time(alice, broker):
    for _ in range(3):
        ready(alice, OPENAI)
    held, release = threading.Event(), threading.Event()

    def another_sweeper() -> None:
        try:
            with transaction.atomic():
                assert locks.try_hold(embedding_change.LOCK)
                held.set()
                release.wait(30)
        finally:
            connection.close()

    other = threading.Thread(target=another_sweeper)
    other.start()
    try:
        held.wait(30)
        embedding_change.every_pass()
        assert not Job.objects.filter(embed_only=True).exists(), "it skipped the step"
    finally:
        release.set()
        other.join()

    embedding_change.every_pass()

    assert Job.objects.filter(embed_only=True).count() == 3


def test_nothing_is_queued_while_admission_control_nears_refusing_uploads(
    alice, broker, settings, caplog
):
    ready(alice, OPENAI)
    make_document(alice)  # an upload, queued
    settings.INGEST_MAX_BACKLOG = 2  # half of it is in flight

    with caplog.at_level(logging.INFO, logger=LOGGER):
        embedding_change.every_pass()
        # A minute on, the next progress line says why nothing moved.
        EmbeddingChange.objects.update(reported_at=timezone.now() - timedelta(minutes=1))
        embedding_change.every_pass()

    assert not Job.objects.filter(embed_only=True).exists()
    assert (
        f"re-embedding for {HASHING}: 0/1 done, waiting: uploads come first (1 job in flight; "
        "uploads are refused at 2)"
    ) in said(caplog)
    settings.INGEST_MAX_BACKLOG = 3
    embedding_change.every_pass()
    assert Job.objects.filter(embed_only=True).count() == 1


def test_a_pass_with_documents_to_catch_up_uses_indexes(alice, bob, broker):
    for n in range(12):
        ready(alice if n % 2 else bob, OPENAI)
    for _ in range(5):
        ready(alice, HASHING)

    with CaptureQueriesContext(connection) as captured:
        embedding_change.every_pass()
        embedding_change.every_pass()

    assert Job.objects.filter(embed_only=True).count() == 8  # a wave: twice the 4 threads
    assert scans(captured.captured_queries) == []


def test_check_says_what_waits_and_what_happens_to_it(alice, broker, settings):
    make_document(alice, ready_version=1, ready_embed_model=OPENAI)
    make_document(alice, ready_version=1, ready_embed_model="")
    make_document(alice, ready_version=1, ready_embed_model=HASHING)

    on, off = io.StringIO(), io.StringIO()
    call_command("check", "--database", "default", stdout=on, stderr=on)
    settings.INGEST_AUTO_REEMBED = False
    call_command("check", "--database", "default", stdout=off, stderr=off)

    said_on = " ".join(on.getvalue().split())
    assert (
        "(documents.I001) 2 ready documents were embedded by another embedding than the "
        f"configured {HASHING}: 1 by {OPENAI}, 1 by an unrecorded embedding." in said_on
    )
    assert "The sweeper re-embeds them in the background" in said_on
    assert "INGEST_AUTO_REEMBED is off: `manage.py reprocess embeddings`" in " ".join(
        off.getvalue().split()
    )


def test_a_new_sweeper_says_where_the_catch_up_stands(alice, broker, caplog):
    ready(alice, OPENAI)
    EmbeddingChange.objects.create(
        signature=HASHING, started_at=timezone.now(), total=1200, done=340
    )

    with caplog.at_level(logging.INFO, logger=LOGGER):
        embedding_change.every_pass()
        embedding_change.every_pass()

    assert (
        said(caplog).count(
            f"embedding change to {HASHING} under way: 340/1200 documents re-embedded in the "
            "background"
        )
        == 1
    )


def test_an_embedding_with_a_fitted_floor_is_not_measured(alice, broker, monkeypatch, caplog):
    """The packaged model's floor is a line fitted beforehand (search/retrieval/floors.py),
    which search takes over any measured one: the catch-up's end measures nothing."""
    line = floors.WordsFloor(one_word=0.41, per_word=0.02)
    monkeypatch.setitem(floors.FITTED, OPENAI, line)
    ready(alice, OPENAI)
    now = timezone.now()
    EmbeddingChange.objects.create(
        signature=OPENAI, started_at=now, finished_at=now, total=1, done=1
    )

    with caplog.at_level(logging.INFO, logger=LOGGER):
        embedding_change._measure_floor(OPENAI)

    assert EmbeddingChange.objects.get(signature=OPENAI).floor == 0.41
    assert not SimilarityFloor.objects.exists()  # no calibration's queries were asked
    assert "floor fitted beforehand (0.41 for one word)" in said(caplog)
