import math

from search.embedding import hashing_embed


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_hashing_vectors_are_deterministic_unit_vectors_of_the_asked_size():
    first = hashing_embed(["the quick brown fox"], 384)
    second = hashing_embed(["the quick brown fox"], 384)

    assert first == second
    assert len(first[0]) == 384
    assert math.isclose(math.sqrt(sum(v * v for v in first[0])), 1.0)


def test_texts_that_share_words_are_closer_than_texts_that_do_not():
    query, near, far = hashing_embed(
        ["invoice payment due", "the invoice payment is due friday", "mountain weather report"],
        384,
    )

    assert cosine(query, near) > cosine(query, far)


def test_a_text_without_words_still_gets_a_valid_vector():
    [vector] = hashing_embed(["... --- !!!"], 16)

    assert math.isclose(math.sqrt(sum(v * v for v in vector)), 1.0)
