# Two commands do all set-up on a fresh machine:
#   make demo   - a live scenario on the embedded local model (SmolLM2-135M via llama.cpp)
#   make test   - ruff, mypy and the test suite: the fast tier, then the slow tier (CI runs this)
#   make test-fast - ruff and the fast tier only (tests not marked `slow`), for a quick check while working
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

.PHONY: demo test test-fast install lint typecheck clean FORCE

# llama-cpp-python has no binary wheel: it is built from source (about 5 minutes on 2 cores).
# pip's default build detects the build machine's CPU (GGML_NATIVE) and may emit AMX or AVX-512
# instructions that crash on another CPU or under a VM that masks them, and pip's wheel cache would
# hand that wheel to every later venv. So we build for a portable x86-64 baseline (AVX2/FMA/F16C/BMI2)
# into a cache folder keyed by version and flags; `make LLAMA_NATIVE=1 ...` opts in to a native build.
LLAMA_CPP_VERSION := 0.3.36
ifeq ($(LLAMA_NATIVE),1)
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=ON
else
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
	-DGGML_BMI2=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF
endif
LLAMA_FLAGS_KEY := $(shell echo '$(LLAMA_CPP_VERSION) $(LLAMA_CMAKE_ARGS)' | sha256sum | cut -c1-12)
LLAMA_WHEELS ?= $(HOME)/.cache/mustmaybe/llama-wheels/$(LLAMA_FLAGS_KEY)
# The venv remembers which build it holds, so `make demo LLAMA_NATIVE=1` on a portable venv (or the
# reverse) reinstalls llama-cpp-python instead of finding the stamp up to date.
LLAMA_KEY_FILE := $(VENV)/.llama-build

$(LLAMA_KEY_FILE): FORCE
	@mkdir -p $(VENV)
	@echo '$(LLAMA_FLAGS_KEY)' | cmp -s - $@ 2>/dev/null || echo '$(LLAMA_FLAGS_KEY)' > $@

$(STAMP): pyproject.toml Makefile $(LLAMA_KEY_FILE)
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	ls $(LLAMA_WHEELS)/llama_cpp_python-$(LLAMA_CPP_VERSION)-*.whl >/dev/null 2>&1 || \
		CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/pip wheel --quiet --no-cache-dir --no-deps \
		-w $(LLAMA_WHEELS) llama-cpp-python==$(LLAMA_CPP_VERSION)
	$(BIN)/pip install --quiet --no-index --no-deps --force-reinstall --find-links $(LLAMA_WHEELS) \
		llama-cpp-python==$(LLAMA_CPP_VERSION)
	$(BIN)/pip install --quiet -e '.[local,dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/mustmaybe run $(TASK) --condition $(CONDITION) --model $(MODEL) --model reviewer=$(REVIEWER)

lint: $(STAMP)
	$(BIN)/ruff check .

typecheck: $(STAMP)
	$(BIN)/python scripts/typecheck.py

# Two tiers (pyproject.toml's markers, tests/conftest.py): the fast one first, so a broken change fails in
# minutes; then the slow one (the combiner's refit, the embedded local model, long sweeps). Together they
# are the whole suite, which CI runs (.ci/run calls `make test`).
test: $(STAMP) lint typecheck
	$(BIN)/python -m pytest -q -m "not slow"
	$(BIN)/python -m pytest -q -m slow

test-fast: $(STAMP) lint
	$(BIN)/python -m pytest -q -m "not slow"

clean:
	rm -rf $(VENV) build *.egg-info
