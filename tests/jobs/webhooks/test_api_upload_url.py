"""An upload's own `webhook_url`: checked before anything is stored, kept on its job."""

import pytest

from documents.models import Document
from jobs.models import Job
from tests.conftest import pdf_upload
from tests.factories import make_pdf, stored_files

pytestmark = pytest.mark.django_db(transaction=True)

PUBLIC = "https://93.184.215.14/hook"  # a public literal address: checked, never called


def upload(client, *fields: tuple[str, object], path: str = "/api/documents/", **headers):
    """A multipart POST whose parts come in the order given (the file first, here)."""
    return client.post(path, dict(fields), format="multipart", **headers)


@pytest.mark.parametrize(
    "url",
    [
        "ftp://93.184.215.14/hook",
        "http://127.0.0.1:8000/hook",
        "http://[::1]/hook",
        "http://192.168.1.10/hook",
        "http://169.254.169.254/latest/meta-data/",
        "https://no-such-host.invalid/hook",
        "https://93.184.215.14/" + "a" * 2000,
    ],
)
def test_an_upload_with_a_bad_webhook_url_is_refused_and_stores_nothing(alice_client, broker, url):
    response = upload(alice_client, ("file", pdf_upload(make_pdf())), ("webhook_url", url))

    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid_webhook_url"
    assert body["detail"]
    assert set(body) == {"code", "detail"}
    assert not Document.objects.exists()
    assert not Job.objects.exists()
    assert stored_files() == []


def test_the_refusal_says_why_for_a_person(alice_client, broker):
    response = upload(
        alice_client, ("file", pdf_upload(make_pdf())), ("webhook_url", "http://10.0.0.5/h")
    )

    assert "10.0.0.5" in response.json()["detail"]  # the host as written, nothing more
    assert "not on a public address" in response.json()["detail"]


def test_a_local_receiver_is_refused_naming_the_setting_but_no_address_it_resolved_to(
    alice_client, broker, settings
):
    settings.INGEST_WEBHOOK_ALLOW_PRIVATE = False

    response = upload(
        alice_client, ("file", pdf_upload(make_pdf())), ("webhook_url", "http://localhost:9000/h")
    )

    detail = response.json()["detail"]
    assert response.json()["code"] == "invalid_webhook_url"
    assert "INGEST_WEBHOOK_ALLOW_PRIVATE=1" in detail
    assert "'localhost'" in detail
    assert "127.0.0.1" not in detail
    assert "::1" not in detail


def test_a_plain_http_receiver_under_https_is_refused_naming_the_setting(
    alice_client, broker, settings
):
    settings.INGEST_HTTPS = True
    settings.INGEST_WEBHOOK_ALLOW_HTTP = False

    response = upload(
        alice_client, ("file", pdf_upload(make_pdf())), ("webhook_url", "http://93.184.215.14/h")
    )

    assert response.status_code == 400
    assert "INGEST_WEBHOOK_ALLOW_HTTP=1" in response.json()["detail"]


def test_a_webhook_url_whose_name_never_resolves_is_refused_after_the_timeout(
    alice_client, broker, silent_dns
):
    response = upload(
        alice_client,
        ("file", pdf_upload(make_pdf())),
        ("webhook_url", "https://hooks.never-answers.example/h"),
    )

    assert response.status_code == 400
    assert response.json()["code"] == "webhook_dns_timeout"
    assert not Document.objects.exists()
    assert stored_files() == []


def test_several_files_are_all_refused_for_one_bad_webhook_url(alice_client, broker):
    files = [pdf_upload(make_pdf(seed=n), f"{n}.pdf") for n in range(3)]

    response = upload(alice_client, ("file", files), ("webhook_url", "gopher://example.com/"))

    assert response.status_code == 400
    assert response.json()["code"] == "invalid_webhook_url"
    assert not Document.objects.exists()
    assert stored_files() == []


def test_a_good_webhook_url_is_kept_on_each_uploads_job(alice_client, broker):
    files = [pdf_upload(make_pdf(seed=n), f"{n}.pdf") for n in range(2)]

    response = upload(alice_client, ("file", files), ("webhook_url", PUBLIC))

    assert response.status_code == 202
    job_ids = [result["job_id"] for result in response.json()["results"]]
    assert [Job.objects.get(id=job_id).webhook_url for job_id in job_ids] == [PUBLIC, PUBLIC]
    assert len(stored_files()) == 2


def test_an_upload_without_a_webhook_url_has_none(alice_client, broker):
    response = upload(alice_client, ("file", pdf_upload(make_pdf())))

    assert Job.objects.get(id=response.json()["results"][0]["job_id"]).webhook_url == ""


def test_an_empty_webhook_url_is_no_webhook(alice_client, broker):
    response = upload(alice_client, ("file", pdf_upload(make_pdf())), ("webhook_url", ""))

    assert response.status_code == 202
    assert Job.objects.get().webhook_url == ""


def test_two_webhook_urls_are_refused(alice_client, broker):
    response = upload(
        alice_client, ("file", pdf_upload(make_pdf())), ("webhook_url", [PUBLIC, PUBLIC + "2"])
    )

    assert response.status_code == 400
    assert response.json()["code"] == "invalid_webhook_url"
    assert not Document.objects.exists()


def test_a_local_receiver_is_accepted_where_private_addresses_are_allowed(
    alice_client, broker, settings
):
    settings.INGEST_WEBHOOK_ALLOW_PRIVATE = True

    response = upload(
        alice_client,
        ("file", pdf_upload(make_pdf())),
        ("webhook_url", "http://127.0.0.1:9/hook"),
    )

    assert response.status_code == 202
    assert Job.objects.get().webhook_url == "http://127.0.0.1:9/hook"


def test_an_idempotency_key_reused_with_another_webhook_url_is_refused(alice_client, broker):
    content = make_pdf()
    first = upload(
        alice_client,
        ("file", pdf_upload(content)),
        ("webhook_url", PUBLIC),
        HTTP_IDEMPOTENCY_KEY="k-1",
    )
    replay = upload(
        alice_client,
        ("file", pdf_upload(content)),
        ("webhook_url", PUBLIC),
        HTTP_IDEMPOTENCY_KEY="k-1",
    )
    other = upload(
        alice_client,
        ("file", pdf_upload(content)),
        ("webhook_url", PUBLIC + "/other"),
        HTTP_IDEMPOTENCY_KEY="k-1",
    )

    assert first.status_code == replay.status_code == 202
    assert replay.json() == first.json()
    assert other.status_code == 422
    assert other.json()["code"] == "idempotency_key_reused"
    assert Job.objects.count() == 1


# --------------------------------------------------------------------------- new versions


def test_a_new_version_with_a_bad_webhook_url_is_refused_and_stores_nothing(alice_client, broker):
    created = upload(alice_client, ("file", pdf_upload(make_pdf(seed=1))))
    document_id = created.json()["results"][0]["document_id"]
    before = stored_files()

    response = upload(
        alice_client,
        ("file", pdf_upload(make_pdf(seed=2))),
        ("webhook_url", "http://127.0.0.1/hook"),
        path=f"/api/documents/{document_id}/versions/",
    )

    assert response.status_code == 400
    assert response.json()["code"] == "invalid_webhook_url"
    assert Document.objects.get(id=document_id).version == 1
    assert Job.objects.count() == 1
    assert stored_files() == before


def test_a_new_versions_job_keeps_its_webhook_url(alice_client, broker):
    created = upload(alice_client, ("file", pdf_upload(make_pdf(seed=1))))
    document_id = created.json()["results"][0]["document_id"]

    response = upload(
        alice_client,
        ("file", pdf_upload(make_pdf(seed=2))),
        ("webhook_url", PUBLIC),
        path=f"/api/documents/{document_id}/versions/",
    )

    assert response.status_code == 202
    assert Job.objects.get(id=response.json()["job_id"]).webhook_url == PUBLIC
