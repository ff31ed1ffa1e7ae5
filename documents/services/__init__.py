"""Writes for documents: the one place each of its tables is changed. Every other part of
the app, and every other app, asks these modules."""
