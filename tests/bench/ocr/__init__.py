"""The OCR bench (`python -m tests.bench.ocr`): see __main__.py."""
