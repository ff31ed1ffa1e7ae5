"""manage.py reprocess embeddings (alias reembed): out-of-date ready documents are embedded
again, in waves, as new jobs of the version search serves, which keeps their old vectors
until each re-run is done; no owner sees a new version."""

import io
import os
import signal
import threading
import time

import pytest
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.utils import timezone

from documents.models import Document
from documents.upkeep import reembed
from jobs.models import Job, JobStatus
from search.embedding import hashing_embed
from search.models import Block, Chunk, DocumentPage
from search.retrieval.query import search
from tests.conftest import eventually, pdf_upload, running_worker, wait_until_terminal
from tests.factories import make_document, make_pdf
from tests.fakes.openai_server import vector_for

pytestmark = pytest.mark.django_db(transaction=True)

HASHING = "hashing::384"
OPENAI = "openai:text-embedding-3-small:384"


def upload(client, seed: int) -> dict:
    response = client.post("/api/documents/", {"file": pdf_upload(make_pdf(pages=2, seed=seed))})
    assert response.status_code == 202, response.content
    return response.json()["results"][0]


def processed(client, seeds: list[int]) -> list[str]:
    """Upload one document per seed and wait for them all; their ids."""
    results = [upload(client, seed) for seed in seeds]
    jobs = wait_until_terminal([result["job_id"] for result in results])
    assert {job.status for job in jobs} == {JobStatus.SUCCEEDED}
    return [result["document_id"] for result in results]


def reembed_command(*args: str) -> str:
    out = io.StringIO()
    call_command("reprocess", "embeddings", "--poll", "0.05", *args, stdout=out, stderr=out)
    return out.getvalue()


def chunks(document_id: str) -> list[Chunk]:
    return list(Chunk.objects.filter(document_id=document_id).order_by("version", "index"))


def ready_row(owner, made_by: str, newer: str | None = None) -> Document:
    """A document whose version 1 is ready, made by `made_by` (rows only, no file); with
    `newer`, a version 2 whose job is in that state."""
    document = make_document(owner, ready_version=1, ready_embed_model=made_by)
    Job.objects.filter(id=document.current_job_id).update(
        status=JobStatus.SUCCEEDED, embed_model=made_by, finished_at=timezone.now()
    )
    if newer is not None:
        job = Job.objects.create(
            document=document, owner=owner, version=2, storage_key="k", status=newer
        )
        Document.objects.filter(id=document.id).update(version=2, current_job=job)
    return document


def made_by_another_model() -> None:
    """As if OpenAI had made every ready version's vectors (as a job's success records it:
    on the job and on its document)."""
    Job.objects.update(embed_model=OPENAI)
    Document.objects.update(ready_embed_model=OPENAI)


def served(document_id: str) -> list[tuple]:
    """What search has of a document: each chunk's id, version, text and vector."""
    return [(c.id, c.version, c.text, list(c.embedding)) for c in chunks(document_id)]


def test_a_model_change_reembeds_the_served_version_while_search_keeps_the_old_vectors(
    alice_client, broker, request
):
    with running_worker(broker) as worker:
        ids = processed(alice_client, [1, 2, 3])
        assert set(Job.objects.values_list("embed_model", flat=True)) == {HASHING}
        assert set(Document.objects.values_list("ready_embed_model", flat=True)) == {HASHING}
        old = {document_id: chunks(document_id) for document_id in ids}
        searched = {document_id: served(document_id) for document_id in ids}
        keys = {
            document_id: Document.objects.get(id=document_id).storage_key for document_id in ids
        }
        first_jobs = {str(job) for job in Job.objects.values_list("id", flat=True)}

        server = request.getfixturevalue("openai_server")  # the provider switches to openai
        worker.pause()
        out = io.StringIO()
        queried: set[str] = set()  # search queries, each embedded once (then cached)
        run = threading.Thread(target=_command_in_thread, args=(out,))
        run.start()
        try:
            eventually(lambda: Job.objects.count() == 6)
            # Queued as new jobs of version 1 on the batch lane; search has it as it was.
            for document_id in ids:
                document = Document.objects.get(id=document_id)
                assert (document.version, document.ready_version) == (1, 1)
                assert str(document.current_job_id) not in first_jobs
                assert document.current_job.version == 1
                assert document.current_job.lane == "batch"
                assert document.current_job.storage_key == keys[document_id]  # the same file
                assert served(document_id) == searched[document_id]
                for chunk in chunks(document_id):
                    assert list(chunk.embedding) == pytest.approx(
                        hashing_embed([chunk.text], 384)[0], abs=1e-6
                    )
                # Hashing vectors and an OpenAI query measure nothing together: the vector
                # side leaves these documents out, and their text still finds them.
                owner, text = document.owner_id, chunks(document_id)[0].text
                queried.add(text)
                assert search(owner_id=owner, q=text, mode="vector").results == []
                found = search(owner_id=owner, q=text, mode="hybrid").results
                assert found
                assert {str(hit.document_id) for hit in found} <= {str(i) for i in ids}
        finally:
            worker.resume()
            run.join(timeout=60)
        assert not run.is_alive()

    assert "to queue: 3" in out.getvalue()
    assert "finished: queued 3 of 3, done 3, failed 0, in flight 0" in out.getvalue()
    for document_id in ids:
        document = Document.objects.get(id=document_id)
        assert (document.version, document.ready_version) == (1, 1)  # no new version
        new = chunks(document_id)
        assert [(c.id, c.version, c.text) for c in new] == [
            (c.id, c.version, c.text) for c in old[document_id]
        ]
        for chunk in new:
            assert list(chunk.embedding) == pytest.approx(vector_for(chunk.text, 384), abs=1e-6)
        assert document.current_job.embed_model == OPENAI
        assert document.ready_embed_model == OPENAI
        queried.add(new[0].text)
        [hit] = search(owner_id=document.owner_id, q=new[0].text, mode="vector", k=1).results
        assert str(hit.document_id) == str(document_id)
    assert server.inputs == sum(len(old[document_id]) for document_id in ids) + len(queried)

    again = reembed_command()

    assert "to queue: 0" in again
    assert f"3 ready documents: 3 by {OPENAI}" in again
    assert Job.objects.count() == 6


def test_a_reembed_reads_no_file_and_keeps_the_structure_and_what_read_the_text(
    alice_client, broker, request
):
    with running_worker(broker) as worker:
        [document_id] = processed(alice_client, [7])
        document = Document.objects.get(id=document_id)
        first = document.current_job
        blocks = list(Block.objects.filter(document_id=document_id).values_list("id", "text"))
        pages = list(DocumentPage.objects.filter(document_id=document_id).values_list("id"))
        assert blocks
        assert pages
        assert first.extracted_by
        default_storage.delete(document.storage_key)  # nothing to read: the chunks suffice
        request.getfixturevalue("openai_server")

        out = reembed_command()
        worker.pause()

    assert "finished: queued 1 of 1, done 1, failed 0, in flight 0" in out
    document.refresh_from_db()
    job = document.current_job
    assert job.id != first.id
    assert job.embed_only
    assert (job.extracted_by, job.embed_model) == (first.extracted_by, OPENAI)
    assert job.pages_total == 0, "no page was read"
    assert list(Block.objects.filter(document_id=document_id).values_list("id", "text")) == blocks
    assert list(DocumentPage.objects.filter(document_id=document_id).values_list("id")) == pages
    for chunk in chunks(document_id):
        assert list(chunk.embedding) == pytest.approx(vector_for(chunk.text, 384), abs=1e-6)


def test_a_version_whose_chunks_are_gone_is_read_again_in_full(alice_client, broker, request):
    with running_worker(broker) as worker:
        [document_id] = processed(alice_client, [8])
        texts = [c.text for c in chunks(document_id)]
        Chunk.objects.filter(document_id=document_id).delete()  # as a change of dimensions does
        request.getfixturevalue("openai_server")

        out = reembed_command()
        worker.pause()

    assert "finished: queued 1 of 1, done 1, failed 0, in flight 0" in out
    again = chunks(document_id)
    assert [c.text for c in again] == texts
    for chunk in again:
        assert list(chunk.embedding) == pytest.approx(vector_for(chunk.text, 384), abs=1e-6)
    assert Document.objects.get(id=document_id).current_job.pages_total == 2  # read again


def _command_in_thread(out: io.StringIO, failure: list | None = None, *args: str) -> None:
    try:
        call_command("reprocess", "embeddings", "--poll", "0.05", *args, stdout=out, stderr=out)
    except CommandError as error:
        if failure is None:
            raise
        failure.append(error)
    finally:
        connection.close()


def test_only_out_of_date_ready_documents_are_chosen_and_dry_run_changes_nothing(
    alice, bob, broker
):
    current = ready_row(alice, HASHING)
    other_model = ready_row(alice, OPENAI)
    unrecorded = ready_row(bob, "")
    ready_row(alice, OPENAI, newer=JobStatus.QUEUED)
    ready_row(alice, OPENAI, newer=JobStatus.FAILED)
    make_document(alice)  # never ready: not search's yet, nothing to re-embed
    jobs_before = Job.objects.count()

    out = reembed_command("--dry-run")
    by_old_name = io.StringIO()
    call_command("reembed", "--dry-run", stdout=by_old_name)

    assert by_old_name.getvalue() == out  # `reembed` is the same command
    scope = reembed.Scope(target=HASHING)
    chosen = set(reembed.next_candidates(scope, limit=10, skip=set()))
    assert chosen == {other_model.id, unrecorded.id}
    assert current.id not in chosen
    assert (
        f"5 ready documents: 3 by {OPENAI}, 1 by an unrecorded embedding, 1 by {HASHING}\n" in out
    )
    assert "would queue: 2; skipped, a version in flight: 1; " in out
    assert "; skipped, latest version failed or cancelled: 1\n" in out
    assert Job.objects.count() == jobs_before
    assert list(Document.objects.filter(version__gt=2)) == []
    assert Document.objects.get(id=other_model.id).version == 1
    assert broker.client.hlen("dramatiq:batch.msgs") == 0


def test_all_takes_every_ready_document_made_before_the_run(alice, broker):
    current = ready_row(alice, HASHING)
    other = ready_row(alice, OPENAI)
    scope = reembed.Scope(target=HASHING, everything=True, before=None)

    assert set(reembed.next_candidates(scope, limit=10, skip=set())) == {current.id, other.id}
    Job.objects.filter(document=current).update(finished_at="2030-01-02T00:00:00Z")
    Job.objects.filter(document=other).update(finished_at="2030-01-01T00:00:00Z")
    later = reembed.Scope(target=HASHING, everything=True, before="2030-01-01T12:00:00Z")
    assert reembed.next_candidates(later, limit=10, skip=set()) == [other.id]


def test_owner_limits_the_run_and_owners_take_turns(alice, bob, broker):
    alices = [ready_row(alice, OPENAI) for _ in range(3)]
    bobs = [ready_row(bob, OPENAI) for _ in range(2)]

    out = reembed_command("--dry-run", "--owner", "bob")

    assert "2 ready documents: 2 by openai" in out
    assert "would queue: 2" in out
    only_bob = reembed.Scope(target=HASHING, owner_id=bob.pk)
    assert set(reembed.next_candidates(only_bob, limit=10, skip=set())) == {d.id for d in bobs}
    everyone = reembed.Scope(target=HASHING)
    first_four = reembed.next_candidates(everyone, limit=4, skip=set())
    owners = [Document.objects.get(id=i).owner_id for i in first_four]
    assert owners.count(bob.pk) == 2, "each owner's first documents come before anyone's third"
    assert first_four[:2] in ([alices[0].id, bobs[0].id], [bobs[0].id, alices[0].id])
    with pytest.raises(CommandError, match="No user 'carol'"):
        reembed_command("--owner", "carol")


def test_waves_bound_the_jobs_in_flight_on_the_batch_lane(alice_client, broker):
    with running_worker(broker, threads=1) as worker:
        ids = processed(alice_client, [1, 2, 3, 4, 5])
        made_by_another_model()
        highest = 0
        done = threading.Event()
        batch_lane = reembed.Reembedding(reembed.Scope(target=HASHING))

        def sample() -> None:
            nonlocal highest
            try:
                while not done.is_set():
                    highest = max(highest, batch_lane.busy(set()))
                    time.sleep(0.01)
            finally:
                connection.close()

        sampler = threading.Thread(target=sample)
        sampler.start()
        try:
            out = reembed_command("--wave", "2")
        finally:
            done.set()
            sampler.join()
        worker.pause()

    assert 1 <= highest <= 2
    assert "finished: queued 5 of 5, done 5, failed 0, in flight 0" in out
    assert "queued 2 of 5" in out  # the first wave, reported before the next
    assert sorted(Document.objects.values_list("ready_version", flat=True)) == [1] * 5
    assert set(Chunk.objects.filter(document_id__in=ids).values_list("version", flat=True)) == {1}
    assert Job.objects.filter(embed_model=HASHING, version=1).count() == 5


def test_ctrl_c_stops_queuing_and_the_next_run_continues(alice_client, broker):
    with running_worker(broker) as worker:
        processed(alice_client, [1, 2, 3, 4])
        made_by_another_model()
        worker.pause()

        def interrupt() -> None:
            try:
                eventually(lambda: Job.objects.count() == 6)
                os.kill(os.getpid(), signal.SIGINT)
            finally:
                connection.close()

        threading.Thread(target=interrupt).start()
        first = reembed_command("--wave", "2")

        assert "stopping: no more documents will be queued" in first
        assert "to continue, run: manage.py reprocess embeddings" in first
        assert Job.objects.count() == 6
        worker.resume()
        second = reembed_command("--wave", "2")

    # The first run's two are still in flight: the second leaves them to the workers (and
    # counts them in its wave) and queues the other two.
    assert "to queue: 2; skipped, a version in flight: 2" in second
    assert "finished: queued 2 of 2, done 2" in second
    assert sorted(Document.objects.values_list("version", "ready_version")) == [(1, 1)] * 4
    assert Job.objects.count() == 8


def test_workers_with_other_settings_stop_the_run_with_the_reason(alice_client, broker, request):
    with running_worker(broker) as worker:
        processed(alice_client, [1, 2, 3])
        made_by_another_model()
        worker.pause()
        out, failure = io.StringIO(), []
        run = threading.Thread(target=_command_in_thread, args=(out, failure, "--wave", "1"))
        run.start()
        try:
            eventually(lambda: Job.objects.count() == 4)
            # The command wants hashing; the workers now embed with openai.
            request.getfixturevalue("openai_server")
        finally:
            worker.resume()
            run.join(timeout=60)

    assert not run.is_alive()
    [error] = failure
    assert f"1 documents were embedded again by {OPENAI}, not {HASHING}" in str(error)
    assert "Restart them with the new settings" in str(error)
    assert Job.objects.count() == 4, "it stopped queuing"
    assert "to continue, run: manage.py reprocess embeddings" in out.getvalue()
    assert "embedded with other settings: 1" in out.getvalue()


def test_a_dimension_change_is_refused_with_the_steps(alice, broker, settings):
    ready_row(alice, HASHING)
    settings.INGEST_EMBED_DIMENSIONS = 1536

    with pytest.raises(CommandError) as refused:
        reembed_command()

    message = str(refused.value)
    assert "holds 384-dimensional vectors and INGEST_EMBED_DIMENSIONS is 1536" in message
    assert "ALTER COLUMN embedding TYPE vector(1536)" in message
    assert "INGEST_EMBED_DIMENSIONS=384" in message
    assert Job.objects.count() == 1


def test_adopt_unrecorded_records_the_configured_embedding_instead(alice, broker):
    unrecorded = ready_row(alice, "")
    other = ready_row(alice, OPENAI)

    out = reembed_command("--adopt-unrecorded")

    assert f"recorded 1 ready versions as made by {HASHING}" in out
    assert Job.objects.get(document=unrecorded).embed_model == HASHING
    assert Job.objects.get(document=other).embed_model == OPENAI
    # Searches compare its vectors again; the other one's record was not the adopter's to make.
    assert Document.objects.get(id=unrecorded.id).ready_embed_model == HASHING
    assert Document.objects.get(id=other.id).ready_embed_model == OPENAI
    assert "would queue: 1" in reembed_command("--dry-run")
