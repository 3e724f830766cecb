# Two commands a new user needs: `make demo` and `make test`. Each builds .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench clean claude-code

$(STAMP): pyproject.toml
	@echo "agentout: first run: building $(VENV) for agentout and its tools (about a minute, once)"
	@echo "agentout: 1/3 $(PYTHON) -m venv $(VENV)"
	@$(PYTHON) -m venv $(VENV)
	@echo "agentout: 2/3 upgrading pip"
	@$(BIN)/python -m pip install --quiet --upgrade pip
	@echo "agentout: 3/3 pip install -e '.[dev]' (agentout, its dependencies, ruff, mypy, pytest)"
	@$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)
	@echo "agentout: $(VENV) is ready ($(BIN)/agentout)"

demo: $(STAMP)
	@bash examples/demo.sh $(BIN)

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy

# The real Claude Code client the suite runs (tests/claude_code.py): a pinned build from npm.
claude-code: $(STAMP)
	@$(BIN)/python scripts/claude_code.py $(VENV)/claude-code >/dev/null

test: lint claude-code
	$(BIN)/python -m pytest -n auto

bench: $(STAMP)
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
