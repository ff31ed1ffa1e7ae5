"""The embed step: texts in, vectors out. The providers live in search/embedding/."""

from search.embedding import embed, hashing_embed, probe_provider

__all__ = ["embed", "hashing_embed", "probe_provider"]
