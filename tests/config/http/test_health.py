import pytest

from tests.services import redis_server

pytestmark = pytest.mark.django_db


def test_healthz_answers_200_when_database_and_redis_answer(client):
    response = client.get("/healthz")

    assert response.status_code == 200
    assert response.json() == {"status": "ok", "checks": {"database": True, "redis": True}}


def test_healthz_answers_503_while_redis_is_down(client):
    redis = redis_server()
    redis.stop()
    try:
        response = client.get("/healthz")
    finally:
        redis.start()

    assert response.status_code == 503
    assert response.json()["checks"] == {"database": True, "redis": False}
    assert client.get("/healthz").status_code == 200
