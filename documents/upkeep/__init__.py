"""Keeping the stored documents in order over time: retention, erasure of an account,
orphaned files, verifying the storage against the database, and processing documents
again (re-embedding, re-OCR)."""
