"""Which embedding made a set of vectors, as one string: "<provider>:<model>:<dimensions>".

A worker records it on a job when the job's chunks become searchable (jobs/worker/processing.py),
and `manage.py reprocess embeddings` compares it with the configured one to find what is
out of date.
The `hashing` provider has no model (INGEST_EMBED_MODEL does not change its vectors), so its
model part is empty: "hashing::384"; the `local` provider's is INGEST_LOCAL_MODEL, with
"/fp32" after it when INGEST_LOCAL_PRECISION computes in floats
("local:all-MiniLM-L6-v2-int8:384", "local:all-MiniLM-L6-v2-int8/fp32:384"): the two make
vectors a cosine of 0.99 apart, too far to compare one's query with the other's chunks.
OPENAI_BASE_URL is left out on purpose: the same model behind another address (a proxy, a
mirror) makes the same vectors.
"""

from django.conf import settings


def current_signature() -> str:
    """The signature of the embedding this process is configured for."""
    provider = settings.INGEST_EMBED_PROVIDER
    local = settings.INGEST_LOCAL_MODEL
    if settings.INGEST_LOCAL_PRECISION != "int8":
        local += f"/{settings.INGEST_LOCAL_PRECISION}"
    models = {"hashing": "", "local": local}
    model = models.get(provider, settings.INGEST_EMBED_MODEL)
    return f"{provider}:{model}:{settings.INGEST_EMBED_DIMENSIONS}"
