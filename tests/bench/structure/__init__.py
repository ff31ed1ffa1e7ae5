"""The structure benchmark (`python -m tests.bench.structure`): how well a reader keeps a
document's structure (reading order, headings, tables, page furniture), scored by unit
checks on documents of known structure (corpus.py, checks.py), and how fast it reads.

Each candidate reader (candidates.py) turns a PDF into blocks in reading order; today's
flat reading (one paragraph a page) is the baseline every candidate is compared with.
"""
