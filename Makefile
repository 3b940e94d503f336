# Two commands on a fresh machine:
#   make lab    set up, then open the notebook suite in JupyterLab (offline model, no key needed)
#   make test   set up everything the tests need (Chromium included), then run every test
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
# The git-ignored working copy `make lab`, `make notebook` and `make present` serve (notebooks/ stays as
# committed); the Chinese notebooks (notebooks/zh/) are in its zh/.
LAB_COPY ?= my-notebooks

.PHONY: lab notebook present book translation test chromium bubblewrap figures screenshots constraints bench budgets clean

$(VENV)/.suite: requirements.txt constraints.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt -e .
	touch $@

$(VENV)/.dev: $(VENV)/.suite requirements-dev.txt
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

lab: $(VENV)/.suite
	$(PY) -m tools.lab_server lab --copy $(LAB_COPY) $(LAB_ARGS)

# The same copy in Notebook 7 (one notebook per tab, the interface many classrooms use).
notebook: $(VENV)/.suite
	$(PY) -m tools.lab_server notebook --copy $(LAB_COPY) $(LAB_ARGS)

# Presenter mode: the lab in Voilà (code hidden, dashboard first); Voilà is an optional extra.
# `make present COMPACT_LANG=zh` presents the Chinese lab (zh/06_lab.ipynb).
$(VENV)/.present: $(VENV)/.suite
	$(PY) -m pip install --quiet -c constraints.txt -e ".[present]"
	touch $@

present: $(VENV)/.present
	$(PY) -m tools.lab_server present --copy $(LAB_COPY) \
	  $(if $(COMPACT_LANG),--language $(COMPACT_LANG)) $(PRESENT_ARGS)

# A static site of the executed notebooks, plots included, in English and Chinese (build/book/zh/): publish
# build/book, e.g. on GitHub Pages.
book: $(VENV)/.suite
	$(PY) -m tools.book notebooks/book.json build/book

# Which prose cells of the Chinese notebooks are stale (their English changed since), untranslated
# or missing, and any code cell that differs from the English; `--sync` copies the code over.
translation: $(VENV)/.suite
	$(PY) -m tools.translation notebooks notebooks/zh

chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; }

# The bash tool's sandbox on Linux (SECURITY.md); without it every non-read-only command asks.
bubblewrap:
	@[ "$$(uname -s)" != Linux ] || command -v bwrap >/dev/null 2>&1 || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends bubblewrap; }

# Two pytest-xdist workers; the browser tests share one (their Chromium and JupyterLab servers).
TEST_WORKERS ?= 2
test: $(VENV)/.dev chromium bubblewrap
	$(PY) -m ruff check compact tests benchmarks tools
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadgroup

figures: $(VENV)/.suite
	$(PY) -m tools.figures docs/img

screenshots: $(VENV)/.dev chromium
	$(PY) -m tests.browser.screenshots docs/img

# The versions the tests passed with, for installs months from now (requirements.txt uses it).
constraints: $(VENV)/.dev
	{ echo "# pip freeze of the test venv (make constraints); requirements.txt installs with it."; \
	  $(PY) -m pip freeze --exclude-editable --all | grep -v -E '^(pip|setuptools|wheel)=='; } > constraints.txt

bench: $(VENV)/.dev
	$(PY) benchmarks/run_all.py

# The size budgets of issue #30 (package, folders, functions, imports and tests) and whether each holds;
# the README's development section quotes docs/generated/budgets.md.
budgets: $(VENV)/.suite
	$(PY) tools/budgets.py docs/generated/budgets.md

clean:
	rm -rf $(VENV) artifacts .pytest_cache
