"""The extractor's sandbox: the child process that reads untrusted PDFs and the walls
around it. process.py starts the child (`python -m search.pipeline.sandbox`, which runs
__main__.py), talks to it and turns how it ended into the pipeline's errors (endings.py);
pool.py keeps a few started in each worker; confine.py bounds what the child can take and
start, and landlock.py what files it can open, before it reads the first byte."""
