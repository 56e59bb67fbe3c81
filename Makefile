# Everything a fresh machine with python3 and make needs: `make demo`, `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench soak clean systemtest systemtest-shell

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/launcherd --sim --demo --state-dir .demo-state

test: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python bench/run.py

soak: $(STAMP)
	$(BIN)/python -m pytest -m soak

# The scenarios on real Linux: a Debian trixie VM (QEMU) with systemd and a gpio-sim chip, see
# docs/systemtest.md. The first run builds the image (root, about 5 minutes); later runs reuse it.
systemtest:
	tests/system/vm.sh run

systemtest-shell:
	tests/system/vm.sh shell

clean:
	rm -rf $(VENV) .demo-state .pytest_cache
