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

# The table page beside the simulated launcher; WEB_LISTEN=0.0.0.0:8080 lets phones on the LAN in.
WEB_LISTEN ?= 127.0.0.1:8080
demo: $(STAMP)
	@mkdir -p .demo-state; sock=$$($(BIN)/python -c 'from firmware.paths import default_sim_socket; print(default_sim_socket())'); \
	$(BIN)/launcher-web --socket "$$sock" --listen $(WEB_LISTEN) 2>.demo-state/launcher-web.log & web=$$!; \
	trap 'kill $$web 2>/dev/null; echo "table page stopped"' EXIT; \
	echo "table page: http://$(WEB_LISTEN)/ (join code: $(BIN)/launcherctl game code; its log: .demo-state/launcher-web.log)"; \
	LAUNCHER_WEB_URL=http://$(WEB_LISTEN)/ $(BIN)/launcherd --sim --demo --state-dir .demo-state

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
