"""How long texts are in tokens of the configured embedding, as the chunks API tells it.

- `hashing`: its words (the tokens it hashes);
- `local`: the model's own tokenizer, its start and end marks included;
- `openai`: an estimate, a token per four characters, as the rate limiter counts them
  (OpenAI's tokenizer needs its vocabulary downloaded, which a service without the
  internet cannot do).
"""

from collections.abc import Sequence

from django.conf import settings

from search.embedding import local_provider
from search.embedding.hashing import words
from search.embedding.ratelimit import estimate_tokens


def token_counts(texts: Sequence[str]) -> list[int]:
    """Each text's length in tokens of the configured embedding."""
    if not texts:
        return []
    provider = settings.INGEST_EMBED_PROVIDER
    if provider == "local":
        return local_provider.token_counts(texts)
    if provider == "openai":
        return [estimate_tokens([text]) for text in texts]
    return [len(words(text)) for text in texts]
