"""The search benchmark (`python -m tests.bench.search`, part of `make bench`): run.py
measures and reports; quality.py, semantic.py and noise.py what search finds on the
corpus, synthetic.py the large made-up corpus it times, filtered.py and vectors.py the
filtered and vector paths at scale, queries.py and paraphrases.py the queries they ask."""
