# The two commands of the README: `make run` and `make test`. Each sets up .venv by itself.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run check chaos test test-unit test-api test-e2e test-browser fuzz openapi bench capacity package lint-template check-python clean

$(STAMP): requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $(STAMP)

run: $(STAMP)
	$(PY) -m devstack.server

# The static gates (pyproject.toml, .importlinter): lint, format, types, the house's import rules.
check: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports --no-cache

# The suite on every core (pytest-xdist; WORKERS=1 for one process): a file's tests stay on one worker
# (their module fixtures, an e2e file's stacks, built once), the e2e files handed out first (tests/conftest.py).
WORKERS ?= auto
PARALLEL = $(if $(filter 1,$(WORKERS)),,-n $(WORKERS) --dist loadfile --no-loadscope-reorder)

test: $(STAMP)
	$(VENV)/bin/lint-imports --no-cache
	$(PY) -m pytest -q $(PARALLEL)

# The tiers of `make test` (tests/conftest.py): the domain over the in-memory store, without moto;
# everything over moto in process; the local stack and the CLI as processes.
test-unit: $(STAMP)
	$(PY) -m pytest -q -m unit tests/unit

test-api: $(STAMP)
	$(PY) -m pytest -q $(PARALLEL) -m api

test-e2e: $(STAMP)
	$(PY) -m pytest -q $(PARALLEL) -m e2e tests/e2e

# The browser tier, not part of `make test` (tests/browser/conftest.py): Playwright driving Debian's
# chromium (installed with apt-get when missing) against the local stack and a test site on 127.0.0.2.
test-browser: $(STAMP)
	$(PY) -m pytest -q -p no:randomly tests/browser

# The fault-injection run, longer than its part of `make test` (docs/reliability.md): FAULT_RATE of
# the AWS calls fail with AWS's error codes; every answer must be a success or a 503 with Retry-After.
chaos: $(STAMP)
	FAULT_RATE=$${FAULT_RATE:-0.03} CHAOS_ROUNDS=$${CHAOS_ROUNDS:-300} $(PY) -m pytest -q -s tests/api/test_faults.py -p no:randomly

# The long fuzz run of the OpenAPI document (the short one is part of `make test`): every operation
# alone (explicit and generated cases), then sequences of operations (schemathesis' stateful phase).
fuzz: $(STAMP)
	FUZZ_EXAMPLES=$${FUZZ_EXAMPLES:-25} FUZZ_COVERAGE=1 FUZZ_STATEFUL=1 $(PY) -m pytest -q tests/contract/test_fuzz.py -p no:randomly

# The OpenAPI document (docs/api-contract.md), for the server at BASE_URL.
openapi: $(STAMP)
	mkdir -p build
	$(PY) -c 'import json, os, sys; from chalicelib import config; config.install(config.Settings.from_environment(os.environ)); \
	from chalicelib.api.blueprints import openapi_document; json.dump(openapi_document(sys.argv[1]), open("build/openapi.json", "w"), indent=1)' "$${BASE_URL:-http://127.0.0.1:8000}"
	@echo "OpenAPI document: build/openapi.json"

bench: $(STAMP)
	$(PY) -m pytest -q -s tests/bench -p no:randomly

# DynamoDB's per-key limits and the cost per million requests (docs/capacity.md): MIX=mix|import|landing-page|
# segment-send|sms-broadcast|tracking|all, REQUESTS=N, JSON=FILE, CACHED='counters[versions]' (items read once per
# second per container); python -m devstack.capacity --help for more.
capacity: $(STAMP)
	$(PY) -m devstack.capacity --mix $${MIX:-mix} $${REQUESTS:+--requests $$REQUESTS} $${JSON:+--json $$JSON} \
		$${CACHED:+--cached "$$CACHED"}

# The template and package for the Lambda runtime and architecture of infra/runtime.py, whatever
# Python runs the build (infra/build.py; infra/python.sh finds or installs the target's Python).
# The template is region-neutral: chalice needs a region only to name service principals
# (set AWS_DEFAULT_REGION for the aws-cn / aws-us-gov partitions). See docs/deploy.md.
package: $(STAMP)
	rm -rf build/package
	AWS_DEFAULT_REGION=$${AWS_DEFAULT_REGION:-$${AWS_REGION:-us-east-1}} $(PY) -m infra.build build/package
	@echo "CloudFormation template: build/package/sam.json"

# The build's fallback interpreter, fetched from the Debian archive of this machine's apt sources
# (infra/python.sh --debian; not in `make test`, whose tests talk only to this machine).
check-python: $(STAMP)
	$(PY) -m pytest -q tests/network -p no:randomly

lint-template: package
	$(VENV)/bin/cfn-lint -- build/package/sam.json

clean:
	rm -rf $(VENV) build
