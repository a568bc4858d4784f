# Two commands do all set-up on a fresh machine:
#   make demo   - a live scenario on the embedded local model (SmolLM2-135M via llama.cpp)
#   make test   - ruff, mypy and the test suite
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

TASK ?= vendor-summary-q3
CONDITION ?= P4
MODEL ?= local
# The source state is established by a faithful reviewer (the paper's competence control, D_up = 1);
# the 135M local model then carries it through the handoff and acts. REVIEWER=local puts it on every role.
REVIEWER ?= sim:faithful

.PHONY: demo test install lint typecheck clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# llama-cpp-python has no binary wheel: pip builds it (about 5 minutes on 2 cores) and caches it.
	$(BIN)/pip install --quiet -e '.[local,dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/mustmaybe run $(TASK) --condition $(CONDITION) --model $(MODEL) --model reviewer=$(REVIEWER)

lint: $(STAMP)
	$(BIN)/ruff check .

typecheck: $(STAMP)
	$(BIN)/python scripts/typecheck.py

test: $(STAMP) lint typecheck
	$(BIN)/python -m pytest -q

clean:
	rm -rf $(VENV) build *.egg-info
