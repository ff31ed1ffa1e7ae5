import dramatiq
import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.db import connection
from dramatiq.brokers.stub import StubBroker

from search.checks import check_embedding_dimensions
from search.embedding import probe_provider
from search.middleware import EmbeddingMisconfigured, EmbeddingStartupCheck

pytestmark = pytest.mark.django_db


def test_the_check_reports_a_column_whose_size_differs_from_the_setting(settings):
    settings.INGEST_EMBED_DIMENSIONS = 3

    [error] = check_embedding_dimensions(databases=["default"])

    assert error.id == "search.E001"
    assert "holds 384-dimensional vectors, but INGEST_EMBED_DIMENSIONS is 3" in error.msg
    assert "INGEST_EMBED_DIMENSIONS=384" in error.hint
    assert "vector(3)" in error.hint


def test_the_check_is_silent_when_column_and_setting_match():
    assert check_embedding_dimensions(databases=["default"]) == []


def test_the_check_is_silent_before_the_table_exists(settings):
    settings.INGEST_EMBED_DIMENSIONS = 3
    with connection.cursor() as cursor:  # rolled back with the test's transaction
        cursor.execute("ALTER TABLE search_chunk RENAME TO search_chunk_elsewhere")

    assert check_embedding_dimensions(databases=["default"]) == []


def test_the_check_reads_no_database_unless_django_asks_for_database_checks(
    settings, django_assert_num_queries
):
    settings.INGEST_EMBED_DIMENSIONS = 3

    with django_assert_num_queries(0):
        assert check_embedding_dimensions(databases=None) == []


def test_manage_py_check_with_the_database_reports_the_mismatch(settings):
    settings.INGEST_EMBED_DIMENSIONS = 3

    with pytest.raises(SystemCheckError, match=r"search\.E001"):
        call_command("check", "--database", "default")


def test_the_probe_refuses_a_provider_answering_the_wrong_dimension(openai_server):
    openai_server.dimension = 1536

    expected = r"returned 1536-dimensional vectors; INGEST_EMBED_DIMENSIONS is 384"
    with pytest.raises(ImproperlyConfigured, match=expected):
        probe_provider()


def test_the_probe_passes_a_provider_answering_the_configured_dimension(openai_server):
    probe_provider()

    assert openai_server.calls == 1


def test_the_probe_refuses_a_provider_that_refuses_the_key(openai_server, settings):
    settings.OPENAI_API_KEY = "sk-not-this-one"

    with pytest.raises(ImproperlyConfigured, match="HTTP 401"):
        probe_provider()


def test_the_probe_only_logs_a_provider_that_is_down_for_now(openai_server, caplog):
    openai_server.script(["503"])

    probe_provider()

    assert "probe inconclusive" in caplog.text


def test_the_probe_asks_nothing_of_the_hashing_provider(openai_server, settings):
    settings.INGEST_EMBED_PROVIDER = "hashing"

    probe_provider()

    assert openai_server.calls == 0


def boot_worker() -> None:
    """Boot (and stop) a real Dramatiq worker whose broker has the start-up check."""
    worker = dramatiq.Worker(StubBroker(middleware=[EmbeddingStartupCheck()]), worker_threads=1)
    worker.start()
    worker.stop()


def test_a_worker_does_not_boot_against_a_provider_of_the_wrong_dimension(openai_server):
    openai_server.dimension = 1536

    with pytest.raises(EmbeddingMisconfigured, match="1536-dimensional"):
        boot_worker()


def test_a_worker_does_not_boot_when_the_column_differs_from_the_setting(settings):
    settings.INGEST_EMBED_DIMENSIONS = 3

    with pytest.raises(EmbeddingMisconfigured, match="384-dimensional"):
        boot_worker()


def test_a_worker_boots_when_column_setting_and_provider_agree(openai_server):
    boot_worker()

    assert openai_server.calls == 1
