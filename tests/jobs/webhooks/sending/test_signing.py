"""Standard Webhooks signatures: the spec's own test vector, and what a receiver refuses."""

import time

import pytest

from jobs.webhooks.models import new_secret
from jobs.webhooks.sending import signing

# The test vector published with the Standard Webhooks specification (and Svix's libraries).
SPEC_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
SPEC_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
SPEC_TIMESTAMP = 1614265330
SPEC_BODY = b'{"test": 2432232314}'
SPEC_SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="


def test_the_signature_is_the_specifications_for_its_test_vector():
    assert signing.signature(SPEC_SECRET, SPEC_ID, SPEC_TIMESTAMP, SPEC_BODY) == SPEC_SIGNATURE


def test_the_specifications_vector_verifies_at_its_own_time():
    headers = {
        "webhook-id": SPEC_ID,
        "webhook-timestamp": str(SPEC_TIMESTAMP),
        "webhook-signature": SPEC_SIGNATURE,
    }

    signing.verify(SPEC_SECRET, headers, SPEC_BODY, now=SPEC_TIMESTAMP + 10)


def test_what_is_signed_now_verifies_whatever_the_header_names_case():
    secret, body = new_secret(), b'{"id":"msg_1"}'
    headers = signing.headers(secret, "msg_1", body)

    signing.verify(secret, {name.upper(): value for name, value in headers.items()}, body)
    assert abs(int(headers["webhook-timestamp"]) - time.time()) < 5


def test_any_one_of_several_signatures_may_match():
    secret, body = new_secret(), b"{}"
    headers = signing.headers(secret, "msg_1", body)
    other = signing.signature(new_secret(), "msg_1", int(headers["webhook-timestamp"]), body)
    headers["webhook-signature"] = f"v1a,ignored {other} {headers['webhook-signature']}"

    signing.verify(secret, headers, body)


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda h, b: (h, b + b" "), "no signature matches"),
        (lambda h, b: ({**h, "webhook-id": "msg_2"}, b), "no signature matches"),
        (lambda h, b: ({**h, "webhook-signature": "v1,AAAA"}, b), "no signature matches"),
        (lambda h, b: ({**h, "webhook-signature": "v1,ü"}, b), "no signature matches"),
        (lambda h, b: ({k: v for k, v in h.items() if k != "webhook-id"}, b), "missing"),
        (lambda h, b: ({**h, "webhook-timestamp": "soon"}, b), "not a number"),
    ],
)
def test_a_changed_body_or_header_is_refused(change, reason):
    secret, body = new_secret(), b'{"a":1}'
    headers, content = change(signing.headers(secret, "msg_1", body), body)

    with pytest.raises(signing.InvalidSignature, match=reason):
        signing.verify(secret, headers, content)


def test_another_secret_is_refused():
    body = b"{}"
    headers = signing.headers(new_secret(), "msg_1", body)

    with pytest.raises(signing.InvalidSignature, match="no signature matches"):
        signing.verify(new_secret(), headers, body)


@pytest.mark.parametrize("age", [-301, 301])
def test_a_timestamp_outside_the_tolerance_is_refused_even_correctly_signed(age):
    secret, body = new_secret(), b"{}"
    headers = signing.headers(secret, "msg_1", body, timestamp=int(time.time()) - age)

    with pytest.raises(signing.InvalidSignature, match="more than 300 s"):
        signing.verify(secret, headers, body)
    signing.verify(secret, headers, body, tolerance=400)


def test_the_body_is_the_same_bytes_whatever_order_the_payload_came_back_in():
    payload = {"type": "document.succeeded", "id": "msg_1", "data": {"pages": 2, "chunks": 5}}
    reordered = {"data": {"chunks": 5, "pages": 2}, "id": "msg_1", "type": "document.succeeded"}

    assert signing.body(payload) == signing.body(reordered)
    assert signing.body(payload) == (
        b'{"data":{"chunks":5,"pages":2},"id":"msg_1","type":"document.succeeded"}'
    )


def test_during_a_rotation_both_secrets_verify_the_same_request():
    old, new = new_secret(), new_secret()
    headers = signing.headers((new, old), "msg_1", b"{}")

    assert len(headers["webhook-signature"].split()) == 2
    signing.verify(new, headers, b"{}")
    signing.verify(old, headers, b"{}")
    with pytest.raises(signing.InvalidSignature):
        signing.verify(new_secret(), headers, b"{}")
