"""The `local` provider: all-MiniLM-L6-v2 as packaged (an int8 ONNX file), run by ONNX Runtime
on the CPU, loaded once per process, finding paraphrases."""

import shutil

import pytest
from django.core.exceptions import ImproperlyConfigured

from documents.models import Document
from jobs.models import JobStatus
from search.embedding import embed, local_provider, onnx_prepare, probe_provider
from search.embedding.signature import current_signature
from search.retrieval.query import search
from tests.conftest import pdf_upload, running_worker, wait_until_terminal
from tests.factories import text_pdf

LEASE = "The tenant must pay the rent on the first day of each month."
PARAPHRASE = "Rent is due monthly at the start of the month."
HARBOUR = "The harbour wall needs repairs before the winter storms."


@pytest.fixture
def local(settings):
    settings.INGEST_EMBED_PROVIDER = "local"
    settings.INGEST_LOCAL_MODEL = local_provider.DEFAULT_MODEL
    settings.INGEST_LOCAL_PRECISION = "int8"
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
    assert current_signature() == "local:all-MiniLM-L6-v2-int8:384"


def test_a_text_embeds_the_same_alone_or_among_others(local):
    texts = [PARAPHRASE, LEASE + " " + HARBOUR * 3, HARBOUR, "rent"]

    together = embed(texts)
    alone = [embed([text])[0] for text in texts]

    # Quantized on its own scale, a text's vector never depends on the texts beside it.
    assert together == alone


def test_the_model_is_loaded_once_per_process_with_one_thread(local):
    first = local_provider.model()
    embed([f"text number {n}" for n in range(70)])

    assert local_provider.model() is first
    assert first.session.get_session_options().intra_op_num_threads == 1


def test_the_integer_copy_is_made_once_and_kept_in_the_data_folder(local, settings, tmp_path):
    settings.DATA_DIR = tmp_path
    source, _ = local_provider.files(local_provider.DEFAULT_MODEL)

    made = onnx_prepare.int8_arithmetic(source)
    stamp = made.stat().st_mtime_ns

    assert made.parent == tmp_path / "models"
    assert onnx_prepare.int8_arithmetic(source) == made
    assert made.stat().st_mtime_ns == stamp  # found, not made again
    assert not list((tmp_path / "models").glob("*.partial"))


def test_an_unwritable_data_folder_still_gets_a_model(local, settings, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the folder should be")
    settings.DATA_DIR = blocker
    source, _ = local_provider.files(local_provider.DEFAULT_MODEL)

    made = onnx_prepare.int8_arithmetic(source)

    assert made.is_file()
    assert blocker not in made.parents


def test_float_arithmetic_is_another_embedding_close_to_the_integer_one(local, settings):
    [integer] = embed([LEASE])
    settings.INGEST_LOCAL_PRECISION = "fp32"

    [floats] = embed([LEASE])

    assert cosine(integer, floats) > 0.97
    assert current_signature() == "local:all-MiniLM-L6-v2-int8/fp32:384"


def test_a_directory_holding_a_model_and_its_tokenizer_is_loaded(local, settings, tmp_path):
    source, tokenizer = local_provider.files(local_provider.DEFAULT_MODEL)
    shutil.copy(source, tmp_path / "model.onnx")
    shutil.copy(tokenizer, tmp_path / "tokenizer.json")
    [packaged] = embed([LEASE])
    settings.INGEST_LOCAL_MODEL = str(tmp_path)

    [from_folder] = embed([LEASE])

    assert cosine(packaged, from_folder) == pytest.approx(1.0, abs=1e-5)
    assert current_signature() == f"local:{tmp_path}:384"


def test_the_probe_refuses_a_size_the_model_does_not_make(local, settings):
    probe_provider()
    settings.INGEST_EMBED_DIMENSIONS = 768

    with pytest.raises(ImproperlyConfigured, match="makes 384-dimensional vectors"):
        probe_provider()


def test_a_model_that_is_not_on_this_machine_is_refused_with_what_to_do(local, settings, tmp_path):
    settings.INGEST_LOCAL_MODEL = str(tmp_path / "no-such-model")

    with pytest.raises(ImproperlyConfigured, match=r"model\.onnx and tokenizer\.json not found"):
        local_provider.model()


def test_token_counts_go_past_what_the_vector_holds(local):
    long_text = "word " * 400

    [count] = local_provider.token_counts([long_text])

    assert count == 402  # 400 words and the start and end marks, not cut at 256
    assert local_provider.MAX_TOKENS == 256


@pytest.mark.django_db(transaction=True)
def test_a_document_embedded_locally_is_found_by_a_paraphrase(local, alice_client, broker):
    pdf = text_pdf(LEASE, HARBOUR)
    with running_worker(broker):
        response = alice_client.post("/api/documents/", {"file": pdf_upload(pdf, "lease.pdf")})
        assert response.status_code == 202
        [job] = wait_until_terminal([response.json()["results"][0]["job_id"]])
    assert job.status == JobStatus.SUCCEEDED
    document = Document.objects.get()
    assert document.ready_embed_model == "local:all-MiniLM-L6-v2-int8:384"

    [hit] = search(owner_id=document.owner_id, q=PARAPHRASE, mode="vector", k=1).results
    # Vector mode shares few words with the page and still finds it: the first page.
    assert (hit.document_id, hit.page) == (document.id, 1)
    # Nonsense answers nothing.
    assert search(owner_id=document.owner_id, q="zorvek tisplu", mode="hybrid").results == []


def test_a_query_of_made_up_words_is_not_compared_by_its_vector(local):
    from search.retrieval import floors

    assert local_provider.knows_a_word("when is the rent due")
    assert not local_provider.knows_a_word("zorvek tisplu")
    assert floors.trusts_vectors("when is the rent due")
    assert not floors.trusts_vectors("zorvek tisplu")


def test_a_long_text_is_read_in_windows_with_both_marks_each():
    ids = [101, *range(1000, 1140), 102]  # 140 tokens between the marks

    windows = local_provider.windows(ids)

    assert [len(w) - 2 for w in windows] == [64, 76]  # the last 12 join the window before
    assert all(w[0] == 101 and w[-1] == 102 for w in windows)
    assert [t for w in windows for t in w[1:-1]] == ids[1:-1]
    assert local_provider.windows([101, 5, 102]) == [[101, 5, 102]]


def test_a_long_text_is_the_mean_of_its_windows(local):
    model = local_provider.model()
    text = " ".join(f"{LEASE} {HARBOUR}" for _ in range(8))
    ids = model.tokenizer.encode(text).ids
    assert len(ids) > local_provider.WINDOW + 2

    [vector] = embed([text])
    halves = [embed([model.tokenizer.decode(w[1:-1])])[0] for w in local_provider.windows(ids)]

    assert len(halves) > 1
    mean = [sum(v[i] for v in halves) for i in range(384)]
    norm = sum(x * x for x in mean) ** 0.5
    assert cosine(vector, [x / norm for x in mean]) > 0.99


def test_the_floor_falls_with_the_words_the_model_knows_in_the_query(local):
    from search.retrieval import floors

    line = floors.FITTED[current_signature()]
    sentence = "where should the tenant send the monthly rent payment"

    assert local_provider.known_words("wombat") <= 1
    assert floors.floor("wombat") == line.one_word
    assert local_provider.known_words(sentence) >= 8
    assert floors.floor(sentence) < line.one_word - 6 * line.per_word
    assert floors.floor() == line.one_word


@pytest.mark.django_db(transaction=True)
def test_hits_carry_a_relevance_that_ranks_the_passage_over_others(local, alice_client, broker):
    pdf = text_pdf(LEASE, HARBOUR)
    with running_worker(broker):
        response = alice_client.post("/api/documents/", {"file": pdf_upload(pdf, "lease.pdf")})
        [job] = wait_until_terminal([response.json()["results"][0]["job_id"]])
    assert job.status == JobStatus.SUCCEEDED

    body = alice_client.get("/api/search/", {"q": PARAPHRASE, "mode": "vector"}).json()
    text_only = alice_client.get("/api/search/", {"q": "rent", "mode": "text"}).json()

    [first, *rest] = body["results"]
    assert 0 < first["relevance"] <= 1
    assert all(hit["relevance"] <= first["relevance"] for hit in rest)
    assert [hit["relevance"] for hit in text_only["results"]] == [None]  # no vector asked
