# Two commands set up everything on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)

.PHONY: run test lint format install install-local-embeddings services stop-services constraints bench chaos browser ocr pgbouncer loadtest loadtest-cluster loadtest-cluster-image image scale-data

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed-base: requirements/base.txt requirements/constraints.txt | $(VENV)/bin/python
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements/base.txt
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed-base requirements/dev.txt
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements/dev.txt
	touch $@

install: $(VENV)/.installed-dev

## make install-local-embeddings: all-MiniLM-L6-v2 in full precision (PyTorch,
## sentence-transformers): the search benchmark's reference for what int8 costs. Not needed
## by `make run`, whose `local` provider runs the packaged int8 model on ONNX Runtime.
## TORCH_INDEX=<PyTorch's CPU index URL> where pip would otherwise take torch's CUDA build.
TORCH_INDEX ?=
$(VENV)/.installed-local-embeddings: $(VENV)/.installed-base requirements/local-embeddings.txt
	$(PY) -m pip install --quiet --disable-pip-version-check $(if $(TORCH_INDEX),--extra-index-url $(TORCH_INDEX)) -r requirements/local-embeddings.txt
	touch $@

install-local-embeddings: $(VENV)/.installed-local-embeddings

## make run: web, ws, a worker per lane, the webhook deliverer and the sweeper from the Procfile (each restarted if it dies),
## on the embedded services unless DATABASE_URL / REDIS_URL are set. Their ports are checked first;
## the runner is exec'd, so it is make's only child, and its pid is in RUN_PIDFILE for `make stop`.
RUN_PROCESSES := web ws worker-fast worker-batch worker-ocr worker-webhooks sweeper
RUN_PIDFILE := $${INGEST_DATA_DIR:-var}/run.pid
run: $(VENV)/.installed-base
	PORT=$(PORT) $(PY) -m config.tooling.procfile --check --pidfile "$(RUN_PIDFILE)" $(RUN_PROCESSES)
	@$(MAKE) --no-print-directory ocr
	$(PY) manage.py embedded start
	$(PY) manage.py migrate --noinput
	$(PY) manage.py collectstatic --noinput --verbosity 0
	$(PY) manage.py clear_metrics
	$(PY) manage.py prepare_embedding
	@echo
	@echo "  Serving on http://127.0.0.1:$(PORT)/  (upload page: /, API docs: /api/docs/, admin: /admin/, ops: /ops/, metrics: /metrics, health: /healthz)"
	@echo "  Live status socket: ws://127.0.0.1:$${WS_PORT:-8001}/ws/status/ (daphne)"
	@echo
	@echo "  In a second shell, here (README.md, 'Two commands', shows the answers):"
	@echo "    DJANGO_SUPERUSER_PASSWORD=change-me $(PY) manage.py createsuperuser --noinput --username alice --email alice@example.com"
	@echo "    TOKEN=\$$($(PY) manage.py create_token alice)"
	@echo "    curl -H \"Authorization: Token \$$TOKEN\" -F file=@tests/corpus/py-pdf__sample-files/004-pdflatex-4-pages/pdflatex-4-pages.pdf http://127.0.0.1:$(PORT)/api/documents/"
	@echo "    curl -H \"Authorization: Token \$$TOKEN\" <status_url from that answer>   # until succeeded, failed or cancelled"
	@echo
	@echo "  Stop: Ctrl-C here, or 'make stop' in another shell, stops the servers; then 'make stop-services' stops Postgres and Redis."
	@echo
	exec env PORT=$(PORT) $(PY) -m config.tooling.procfile --pidfile "$(RUN_PIDFILE)" --stop-with-parent $(RUN_PROCESSES)

## make stop: stops the servers of a `make run` in another shell (or in the background), waiting until they are gone.
.PHONY: stop
stop: $(VENV)/.installed-base
	$(PY) -m config.tooling.procfile --stop --pidfile "$(RUN_PIDFILE)"

## make browser: Debian's chromium for the browser tests (tests/browser), when missing.
## Nothing to do with CHROMIUM_PATH set (a browser of your own) or INGEST_SKIP_BROWSER_TESTS=1.
browser:
	@case "$${INGEST_SKIP_BROWSER_TESTS:-}" in 1|true|yes) exit 0;; esac; \
	if [ -n "$${CHROMIUM_PATH:-}" ] || command -v chromium >/dev/null 2>&1; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then sudo=; \
	elif command -v sudo >/dev/null 2>&1; then sudo=sudo; \
	else echo "chromium is missing and installing it needs root: apt-get install chromium," \
		"or set INGEST_SKIP_BROWSER_TESTS=1 to skip the browser tests" >&2; exit 1; fi; \
	echo "Installing Debian's chromium for the browser tests"; \
	$$sudo apt-get update && \
	$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium

## make pgbouncer: Debian's pgbouncer for the tests that run the service through it in
## transaction pooling (tests/chaos/test_pgbouncer.py), when missing.
pgbouncer:
	@if command -v pgbouncer >/dev/null 2>&1 || [ -x /usr/sbin/pgbouncer ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then sudo=; \
	elif command -v sudo >/dev/null 2>&1; then sudo=sudo; \
	else echo "pgbouncer is missing and installing it needs root: apt-get install pgbouncer" \
		"(its tests are skipped meanwhile)" >&2; exit 0; fi; \
	echo "Installing Debian's pgbouncer for the connection-pooling tests"; \
	$$sudo apt-get update && \
	$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends pgbouncer && \
	($$sudo systemctl disable --now pgbouncer >/dev/null 2>&1 || true)

## make ocr: Tesseract's language files from Debian's packages, when missing: English, German
## and Chinese (simplified), and any other language INGEST_OCR_LANGUAGES names (docs/running/ocr.md).
## Nothing to do with INGEST_OCR=off. Nothing is ever downloaded at run time.
OCR_LANGUAGES := eng+deu+chi_sim
ocr: $(VENV)/.installed-base
	@case "$${INGEST_OCR:-auto}" in off) exit 0;; esac; \
	packages=$$($(PY) -m config.common.tessdata --missing "$(OCR_LANGUAGES)+$${INGEST_OCR_LANGUAGES:-eng}" | sort -u); \
	if [ -z "$$packages" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then sudo=; \
	elif command -v sudo >/dev/null 2>&1; then sudo=sudo; \
	else echo "Tesseract's language files are missing and installing them needs root:" \
		"apt-get install" $$packages ", or set INGEST_OCR=off" >&2; exit 1; fi; \
	echo "Installing Tesseract's language files from Debian's packages:" $$packages; \
	$$sudo apt-get update && \
	$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$packages && \
	left=$$($(PY) -m config.common.tessdata --missing "$(OCR_LANGUAGES)+$${INGEST_OCR_LANGUAGES:-eng}"); \
	if [ -n "$$left" ]; then echo "Still missing after the install:" $$left \
		"(is INGEST_OCR_TESSDATA a directory of your own?)" >&2; exit 1; fi

## make test: a short load test (as make loadtest LOADTEST_USERS=60: the same faults, half
## the users uploading straight to the bucket), a
## short one across test hosts (as make loadtest-cluster with 20 users; skipped, saying
## so, where network namespaces cannot be made), then the whole suite on private Postgres
## + Redis that the tests start themselves, in PYTEST_WORKERS parallel pytest processes
## (pytest-xdist; each starts its own services, and takes whole files so that a file's
## fixtures are built once). pytest runs last whatever the load tests say (its closing
## line is the suite's verdict); any of them failing fails the target.
CLUSTER_SHORT := --users 20 --gap 5 --settle 10
PYTEST_WORKERS ?= 3
test: $(VENV)/.installed-dev browser ocr pgbouncer
	@status=0; $(PY) -m tests.bench.loadtest --users 60 --direct-share 0.5 $(LOADTEST_ARGS) || status=$$?; \
	$(PY) -m tests.bench.cluster $(CLUSTER_SHORT) $(LOADTEST_ARGS) || status=$$?; \
	$(PY) -m pytest -n $(PYTEST_WORKERS) --dist loadfile --durations=20 $(PYTEST_ARGS) \
		|| status=$$?; exit $$status

## make loadtest: N users upload real PDFs at once to a private stack while a worker is
## killed, Redis, Postgres and the S3 server restart and the provider says 429; PASS/FAIL per criterion
## and a report in var/loadtest/<time>/report.html (docs/working/loadtest.md).
LOADTEST_USERS ?= 500
loadtest: $(VENV)/.installed-dev ocr
	$(PY) -m tests.bench.loadtest --users $(LOADTEST_USERS) $(LOADTEST_ARGS)

## make loadtest-cluster: the load test across test hosts on this machine (network
## namespaces: a data host with Postgres, PgBouncer, Redis and S3, two web hosts, two
## worker hosts, a client host; no shared disk) while a worker host is cut off past its
## lease, a web host killed, Redis and S3 restarted, and a third worker host started when
## the metrics ask (docs/running/many-machines.md). Needs root; report in var/loadtest/.
loadtest-cluster: $(VENV)/.installed-dev ocr pgbouncer
	$(PY) -m tests.bench.cluster --users $(LOADTEST_USERS) $(LOADTEST_ARGS)

## make loadtest-cluster-image: make loadtest-cluster with each app host's Procfile lines
## run as containers of the service's image, which make image builds first (podman, root;
## not part of make test).
loadtest-cluster-image: $(VENV)/.installed-dev ocr pgbouncer
	@$(MAKE) --no-print-directory image IMAGE_ARGS=--no-check
	$(PY) -m tests.bench.cluster --image ingest:local --users $(LOADTEST_USERS) $(LOADTEST_ARGS)

## make chaos: the crash tests alone, the kill and 429-storm scenarios repeated.
chaos: $(VENV)/.installed-dev ocr pgbouncer
	INGEST_CHAOS_ROUNDS=$${CHAOS_ROUNDS:-5} $(PY) -m pytest tests/chaos $(PYTEST_ARGS)

## make bench: upload-acknowledgement latency against a floor, the same burst with the
## workers busy, pipeline throughput, how many status websockets one daphne holds, and one
## /metrics scrape over a million job rows, search, search through /mcp against the API,
## one account's hanging webhooks beside another's uploads, how well a reader keeps a document's structure (tests/bench/structure),
## what each job costs Postgres and Redis, what drawing a page image costs, and the connections two web
## and two worker hosts hold with and without PgBouncer, and a 1 GiB file through the upload
## endpoint against a direct upload, and the service over years of data (the scale
## database of make scale-data, built first if it is not there) (docs/working/benchmarks.md).
## BENCH_WS_ARGS=--quick: a short run.
bench: $(VENV)/.installed-dev $(VENV)/.installed-local-embeddings ocr pgbouncer
	$(PY) -m tests.bench $(BENCH_ARGS)
	$(PY) -m tests.bench.busy
	$(PY) -m tests.bench.pipeline
	$(PY) -m tests.bench.extractors
	$(PY) -m tests.bench.websockets $(BENCH_WS_ARGS)
	$(PY) -m tests.bench.scrape
	$(PY) -m tests.bench.search
	$(PY) -m tests.bench.mcp
	$(PY) -m tests.bench.structure
	$(PY) -m tests.bench.structure.formats
	$(PY) -m tests.bench.output
	$(PY) -m tests.bench.page_images
	$(PY) -m tests.bench.webhook_fairness
	$(PY) -m tests.bench.cost
	$(PY) -m tests.bench.cluster.budget
	$(PY) -m tests.bench.ocr
	$(PY) -m tests.bench.direct
	$(PY) -m tests.bench.scale

## make scale-data: the scale benchmark's database (2 million documents, 6 million jobs, 20
## million attempts, a million chunks), built once with COPY into var/scale/ and kept; again
## only when its parameters change (SCALE_ARGS, e.g. --scale 0.1; --rebuild starts over).
scale-data: $(VENV)/.installed-dev
	$(PY) -m tests.bench.scale.build $(SCALE_ARGS)

## make lint: ruff, the import contracts, mypy (django-stubs, drf-stubs), the deploy files
## (config/deploy/validate.py: the Kubernetes manifests against the Kubernetes schemas and
## KEDA's, compose.yaml against the Compose specification, both against the Procfile), the
## configuration reference as the code writes it (python -m config.tooling.reference, in a temporary directory), the
## docs site built strictly (a broken link or anchor, or a page not in mkdocs.yml's nav, fails),
## every pinned requirement installs as a wheel on CPython 3.11-3.13, and none has a known
## vulnerability that a release fixes (pip-audit, requirements/audit.py).
lint: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy
	$(PY) config/deploy/validate.py
	@tmp=$$(mktemp -d) && $(PY) -m config.tooling.reference --output $$tmp/configuration.md && \
	if diff -u docs/running/configuration.md $$tmp/configuration.md; then rm -rf $$tmp; else \
		rm -rf $$tmp; echo "docs/running/configuration.md is out of date: run $(PY) -m config.tooling.reference" >&2; exit 1; fi
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet --site-dir var/site
	$(PY) requirements/check_wheels.py
	$(PY) requirements/audit.py

## make image: the service's image (config/deploy/Containerfile, tagged ingest:local) built
## with Debian's podman on a Debian base that debootstrap makes (once), so no container
## registry is needed; then run for real: migrate, web and worker-fast from it on private
## Postgres, Redis and S3, one upload processed (config/deploy/image_check.py). Installs
## podman, runc, netavark and debootstrap when missing; needs root. Not part of make test.
## IMAGE_ARGS=--no-check: the build alone. Storage under var/image/ (config/deploy/README.md).
IMAGE_PACKAGES := podman runc netavark debootstrap
image: $(VENV)/.installed-dev
	@missing=$$(for package in $(IMAGE_PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$package 2>/dev/null | grep -q 'ok installed' || echo $$package; done); \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then sudo=; \
	elif command -v sudo >/dev/null 2>&1; then sudo=sudo; \
	else echo "The image needs root, and" $$missing "(apt-get install" $$missing ")" >&2; exit 1; fi; \
	echo "Installing Debian's" $$missing "for the image"; \
	$$sudo apt-get update && \
	$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing
	@if [ "$$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi; \
	$$sudo config/deploy/image.sh $(IMAGE_ARGS)

format: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

stop-services: $(VENV)/.installed-base
	$(PY) manage.py embedded stop

constraints: $(VENV)/.installed-dev
	$(PY) requirements/freeze_constraints.py
