# Two commands on a fresh machine:
#   make lab    set up, then open the notebook suite in JupyterLab (offline model, no key needed)
#   make test   set up everything the tests need (Chromium included), then run every test
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python

.PHONY: lab test chromium figures screenshots bench clean

$(VENV)/.suite: requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt -e .
	touch $@

$(VENV)/.dev: $(VENV)/.suite requirements-dev.txt
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

lab: $(VENV)/.suite
	$(PY) -m compact.classroom.lab_server notebooks $(LAB_ARGS)

chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; }

test: $(VENV)/.dev chromium
	$(PY) -m ruff check compact tests benchmarks
	$(PY) -m pytest

figures: $(VENV)/.suite
	$(PY) -m compact.classroom.figures docs/img

screenshots: $(VENV)/.dev chromium
	$(PY) -m pytest -q -m browser tests/browser/test_lab_notebook.py
	cp artifacts/browser/lab-experiment3.png docs/img/lab.png

bench: $(VENV)/.dev
	$(PY) benchmarks/run_all.py

clean:
	rm -rf $(VENV) artifacts .pytest_cache
