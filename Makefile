# GELU Lab: two commands set everything up on a fresh machine.
#   make run    .venv + the project, then the app on http://127.0.0.1:8050
#   make test   .venv + test dependencies + Chromium and nginx, then the whole suite
#   make wheel  dist/: a manylinux wheel with the native kernel, and an sdist
#   make docs   docs/measurements.md and the README's headline table, from bench/results/*.json
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
TSTAMP  := $(VENV)/.test-installed
HOST    ?= 127.0.0.1
PORT    ?= 8050
# the CPU build of torch lies on this machine's disk; any other version pulls CUDA
TORCH   := torch==2.13.0
# axe-core for the accessibility tests (tests/test_app_a11y.py reads it from $(VENV)/node)
AXE     := axe-core@4.14.1
ASTAMP  := $(VENV)/node/.$(AXE)

.PHONY: run test bench clean chromium nginx screenshots axe wheel docs

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# torch first and pinned: a bare `torch` requirement elsewhere would pull a CUDA build;
# the app, the training runs and the BERT probe are extras of the library (pyproject.toml)
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q "$(TORCH)"
	$(BIN)/pip install -q -e ".[app,nn,bert]" "$(TORCH)"
	$(BIN)/python -m gelu_lab.nn.corpus --fetch
	touch $@

$(TSTAMP): $(STAMP)
	$(BIN)/pip install -q -e ".[app,nn,bert,test]" "$(TORCH)"
	touch $@

run: $(STAMP)
	$(BIN)/gelu-lab serve --host $(HOST) --port $(PORT)

# Debian's Chromium for the browser tests (never a downloaded browser)
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; fi; }

# Debian's nginx for the deploy test (tests/test_deploy.py starts it as this user, on its own
# prefix and ports: no system config or service is used; policy-rc.d keeps apt from starting it)
nginx:
	@test -x /usr/sbin/nginx || command -v nginx >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null; \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null; fi; }

# axe-core from npm (npm from Debian if missing, as for Chromium); the stamp names the version
$(ASTAMP): | $(BIN)/python
	@command -v npm >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null; \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null; fi; }
	npm install --no-save --no-audit --no-fund --silent --prefix $(VENV)/node $(AXE)
	touch $@

axe: $(ASTAMP)

# the layers of DESIGN.md first (pyproject.toml [tool.importlinter]): a wrong-way import fails fast
test: $(TSTAMP) chromium nginx $(ASTAMP)
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -q -n 2 --dist loadgroup

# PNGs of every page in both languages, 1280 and 390 px wide (docs/screenshots); a CJK font so the zh pages render
screenshots: $(TSTAMP) chromium
	@fc-list | grep -qi "wqy\|noto.*cjk" || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get install -y -qq fonts-wqy-microhei >/dev/null; \
	  else sudo apt-get install -y -qq fonts-wqy-microhei >/dev/null; fi; }
	$(BIN)/python docs/make_screenshots.py

bench: $(STAMP)
	$(BIN)/python bench/bench_gelu.py

# auditwheel and build come with the test dependencies
wheel: $(TSTAMP)
	$(BIN)/python tools/build_dist.py --out dist

# tests/test_measurements.py fails when either file is out of date with the JSON
docs: $(STAMP)
	$(BIN)/python tools/render_measurements.py

clean:
	rm -rf $(VENV) build dist *.egg-info src/*.egg-info
