"""One webhook POST (jobs/webhooks/network/client.py) against real local servers: where it
connects, what it sends, and the limits on what it waits for and reads."""

import socket
import ssl
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from ipaddress import ip_address

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from jobs.webhooks.network import client
from jobs.webhooks.network.addresses import Target
from tests.fakes.webhook_receiver import Receiver, Reply, redirect

BODY = b'{"id":"msg_1","type":"document.succeeded"}'
SHORT = client.Limits(connect=1, total=1)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    receiver = Receiver()
    yield receiver
    receiver.close()


def target(port: int, path: str = "/hook", host: str = "127.0.0.1", scheme: str = "http"):
    return Target(scheme=scheme, host=host, port=port, path=path, address=ip_address("127.0.0.1"))


def test_the_post_goes_to_the_checked_address_under_the_urls_host_name(receiver):
    # No resolver knows this name: only the address it was checked at can be reached.
    to = target(receiver.port, "/in?tenant=7", host="hooks.example.invalid")

    answer = client.post(to, BODY, {"webhook-id": "msg_1"})

    assert (answer.ok, answer.status_code, answer.head, answer.error) == (True, 200, "ok", "")
    [request] = receiver.requests
    assert request.path == "/in?tenant=7"
    assert request.body == BODY
    assert request.headers["host"] == f"hooks.example.invalid:{receiver.port}"
    assert request.headers["content-type"] == "application/json"
    assert request.headers["user-agent"].startswith("ingest-webhooks/")
    assert request.headers["webhook-id"] == "msg_1"


def test_a_redirect_is_a_failure_and_is_not_followed(receiver):
    receiver.plan("/old", redirect("/new"))

    answer = client.post(target(receiver.port, "/old"), BODY, {})

    assert not answer.ok
    assert answer.status_code == 302
    assert "redirects are not followed (Location: /new)" in answer.error
    assert receiver.at("/new") == []


def test_an_error_status_is_a_failure_with_the_answers_head(receiver):
    receiver.plan("/hook", Reply(503, headers=(("Retry-After", "7"),), body=b"x" * 5000))

    answer = client.post(target(receiver.port), BODY, {})

    assert (answer.ok, answer.status_code, answer.retry_after) == (False, 503, 7.0)
    assert answer.error.startswith("HTTP 503")
    assert answer.head == "x" * 1024


def test_an_answer_that_does_not_come_ends_at_the_total_limit(receiver):
    receiver.plan("/hook", Reply(hang=5))

    started = time.monotonic()
    answer = client.post(target(receiver.port), BODY, {}, limits=SHORT)

    assert time.monotonic() - started < 1.5
    assert answer.status_code is None
    assert answer.error == "read: no complete answer within 1 s"
    assert 900 <= answer.latency_ms < 1500


def test_an_answer_dripping_in_a_byte_at_a_time_still_ends_at_the_total_limit():
    # Each byte comes well inside any one read's timeout; only the deadline stops it.
    with dripping_server() as port:
        started = time.monotonic()
        answer = client.post(target(port), BODY, {}, limits=SHORT)

    assert time.monotonic() - started < 1.5
    assert answer.status_code is None
    assert "within 1 s" in answer.error


def test_an_endless_answer_is_read_no_further_than_its_limit(receiver):
    receiver.plan("/hook", Reply(endless=True))

    started = time.monotonic()
    answer = client.post(target(receiver.port), BODY, {})

    assert time.monotonic() - started < 2
    assert (answer.ok, len(answer.head)) == (True, 1024)


def test_a_refused_connection_is_an_answer_not_an_exception():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    answer = client.post(target(port), BODY, {})

    assert answer.status_code is None
    assert answer.error.startswith("connect: ConnectionRefusedError")


@pytest.mark.parametrize(
    ("value", "seconds"),
    [("120", 120.0), (" 3 ", 3.0), ("soon", None), ("", None), (None, None), ("-5", None)],
)
def test_retry_after_is_read_in_seconds(value, seconds):
    assert client.parse_retry_after(value) == seconds


def test_retry_after_is_read_as_an_http_date():
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=90), usegmt=True)
    earlier = format_datetime(datetime.now(UTC) - timedelta(seconds=90), usegmt=True)

    assert 85 <= client.parse_retry_after(later) <= 90
    assert client.parse_retry_after(earlier) == 0


def test_the_host_header_leaves_out_the_default_port_and_brackets_ipv6():
    assert client.host_header(target(80, host="example.com")) == "example.com"
    assert client.host_header(target(443, host="example.com", scheme="https")) == "example.com"
    assert client.host_header(target(8443, host="::1", scheme="https")) == "[::1]:8443"


# --------------------------------------------------------------------------- TLS


def tls_target(receiver: Receiver, host: str) -> Target:
    return target(receiver.port, host=host, scheme="https")


def test_tls_checks_the_certificate_against_the_urls_host_name(tmp_path, monkeypatch):
    authority = Authority(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(authority.ca_file))  # trusted like a public CA
    names: list[str | None] = []
    receiver = Receiver(tls=authority.server_context("hooks.example.test", names))
    try:
        good = client.post(tls_target(receiver, "hooks.example.test"), BODY, {})
        other = client.post(tls_target(receiver, "other.example.test"), BODY, {})
    finally:
        receiver.close()

    assert (good.ok, good.head) == (True, "ok")
    assert names == ["hooks.example.test", "other.example.test"]  # SNI: the URL's name
    assert other.error.startswith("TLS: the certificate was refused (Hostname mismatch")
    assert len(receiver.requests) == 1


def test_tls_refuses_a_certificate_from_an_authority_nobody_trusts(tmp_path):
    receiver = Receiver(tls=Authority(tmp_path).server_context("hooks.example.test", []))
    try:
        answer = client.post(tls_target(receiver, "hooks.example.test"), BODY, {})
    finally:
        receiver.close()

    assert answer.error.startswith("TLS: the certificate was refused")
    assert receiver.requests == []


class Authority:
    """A certificate authority of its own, in `directory`, and certificates it signs."""

    def __init__(self, directory) -> None:
        self.directory = directory
        self.key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "ingest test CA")])
        self.cert = (
            _builder(name, name, self.key.public_key())
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(_usage(ca=True), critical=True)
            .sign(self.key, hashes.SHA256())
        )
        self.ca_file = directory / "ca.pem"
        self.ca_file.write_bytes(self.cert.public_bytes(serialization.Encoding.PEM))

    def server_context(self, host: str, names: list) -> ssl.SSLContext:
        """A server context with a certificate for `host`; `names` gets each SNI asked."""
        key = ec.generate_private_key(ec.SECP256R1())
        subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host)])
        cert = (
            _builder(subject, self.cert.subject, key.public_key())
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(host)]), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(_usage(ca=False), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(
                x509.AuthorityKeyIdentifier.from_issuer_public_key(self.key.public_key()),
                critical=False,
            )
            .sign(self.key, hashes.SHA256())
        )
        cert_file, key_file = self.directory / f"{host}.pem", self.directory / f"{host}.key"
        cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        key_file.write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        )
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert_file, key_file)
        context.sni_callback = lambda _sock, name, _context: names.append(name)
        return context


def _builder(subject, issuer, public_key) -> x509.CertificateBuilder:
    now = datetime.now(UTC)
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(hours=1))
        .not_valid_after(now + timedelta(hours=1))
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public_key), critical=False)
    )


def _usage(*, ca: bool) -> x509.KeyUsage:
    return x509.KeyUsage(
        digital_signature=True,
        content_commitment=False,
        key_encipherment=False,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=ca,
        crl_sign=ca,
        encipher_only=False,
        decipher_only=False,
    )


# --------------------------------------------------------------------------- a slow server


class dripping_server:  # used as a context manager, like a function
    """A raw server that answers one byte of a status line every 0.2 s, forever."""

    def __enter__(self) -> int:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.stop = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()
        return self.listener.getsockname()[1]

    def _serve(self) -> None:
        connection, _ = self.listener.accept()
        with connection:
            for byte in b"HTTP/1.1 200 OK\r\nX-Slow: " + b"x" * 1000:
                if self.stop.wait(0.2):
                    return
                try:
                    connection.sendall(bytes([byte]))
                except OSError:
                    return

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.listener.close()
