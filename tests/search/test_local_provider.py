"""The `local` provider: all-MiniLM-L6-v2 through sentence-transformers on the CPU, as packaged
(requirements/local-embeddings.txt), loaded once per process, finding paraphrases."""

import pytest
from django.core.exceptions import ImproperlyConfigured

from documents.models import Document
from jobs.models import JobStatus
from search.embedding import embed, local_provider, probe_provider
from search.embedding.signature import current_signature
from search.retrieval.query import search
from tests.conftest import pdf_upload, running_worker, wait_until_terminal
from tests.factories import text_pdf

pytest.importorskip("sentence_transformers", reason="make install-local-embeddings")

LEASE = "The tenant must pay the rent on the first day of each month."
PARAPHRASE = "Rent is due monthly at the start of the month."
HARBOUR = "The harbour wall needs repairs before the winter storms."


@pytest.fixture
def local(settings):
    settings.INGEST_EMBED_PROVIDER = "local"
    settings.INGEST_LOCAL_MODEL = local_provider.DEFAULT_MODEL
    settings.INGEST_EMBED_DIMENSIONS = 384
    settings.INGEST_SEARCH_MIN_SIMILARITY = None


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_the_packaged_model_embeds_meaning_in_unit_vectors(local):
    lease, paraphrase, harbour = embed([LEASE, PARAPHRASE, HARBOUR])

    assert len(lease) == 384
    assert cosine(lease, lease) == pytest.approx(1.0, abs=1e-5)
    # No word in common but "rent" and "month", and closer than an unrelated sentence.
    assert cosine(lease, paraphrase) > 0.6
    assert cosine(lease, harbour) < 0.3
    assert current_signature() == "local:all-MiniLM-L6-v2:384"


def test_the_model_is_loaded_once_per_process_with_one_torch_thread(local):
    import torch

    first = local_provider.model()
    embed([f"text number {n}" for n in range(70)])  # more than one batch of 64

    assert local_provider.model() is first
    assert torch.get_num_threads() == 1


def test_the_probe_refuses_a_size_the_model_does_not_make(local, settings):
    probe_provider()
    settings.INGEST_EMBED_DIMENSIONS = 768

    with pytest.raises(ImproperlyConfigured, match="makes 384-dimensional vectors"):
        probe_provider()


def test_a_model_that_is_not_on_this_machine_is_refused_with_what_to_do(local, settings, tmp_path):
    settings.INGEST_LOCAL_MODEL = str(tmp_path / "no-such-model")

    with pytest.raises(ImproperlyConfigured, match="could not be loaded from this machine"):
        local_provider.model()


@pytest.mark.django_db(transaction=True)
def test_a_document_embedded_locally_is_found_by_a_paraphrase(local, alice_client, broker):
    pdf = text_pdf(LEASE, HARBOUR)
    with running_worker(broker):
        response = alice_client.post("/api/documents/", {"file": pdf_upload(pdf, "lease.pdf")})
        assert response.status_code == 202
        [job] = wait_until_terminal([response.json()["results"][0]["job_id"]])
    assert job.status == JobStatus.SUCCEEDED
    document = Document.objects.get()
    assert document.ready_embed_model == "local:all-MiniLM-L6-v2:384"

    [hit] = search(owner_id=document.owner_id, q=PARAPHRASE, mode="vector", k=1).results
    # Vector mode shares few words with the page and still finds it: the first page.
    assert (hit.document_id, hit.page) == (document.id, 1)
    # Nonsense answers nothing, under the floor measured for the packaged model.
    assert search(owner_id=document.owner_id, q="zorvek tisplu", mode="hybrid").results == []


def test_a_query_of_made_up_words_is_not_compared_by_its_vector(local):
    from search.retrieval import floors

    assert local_provider.knows_a_word("when is the rent due")
    assert not local_provider.knows_a_word("zorvek tisplu")
    assert floors.trusts_vectors("when is the rent due")
    assert not floors.trusts_vectors("zorvek tisplu")
