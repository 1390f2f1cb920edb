# Every target that runs code depends on `install`, so a fresh clone needs nothing by hand.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install compile test lint bench run fuzz clean

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The suite runs on pytest-xdist workers, more than a 2-core box has cores: most tests wait
# on a terminal, a subprocess or a fake server, not on the CPU. Tests marked `serial`
# cannot share the machine (one loads the CPU on purpose): they run first, alone.
# `make test TEST_WORKERS=0` runs everything in one process.
TEST_WORKERS ?= 4

test: compile
	$(BIN)/python -m pytest -p no:xdist -m serial
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist worksteal -m "not serial"

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy agent_cli bench

# Byte-compile first: where PYTHONDONTWRITEBYTECODE is set, every start would otherwise
# compile ~130 modules from source (about 0.3 s of the 0.5 s start-up budget).
compile: install
	$(BIN)/python -m compileall -q agent_cli

bench: compile
	$(BIN)/python -m bench

fuzz: install
	AGENT_CLI_FUZZ_EXAMPLES=20000 $(BIN)/python -m pytest -m fuzz -p no:randomly --timeout=0

run: compile
	$(BIN)/agent-cli

clean:
	rm -rf $(VENV) build *.egg-info
