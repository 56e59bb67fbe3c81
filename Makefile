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

# The table page beside the simulated launcher; WEB_LISTEN=0.0.0.0:8080 lets phones on the LAN in
# (the demo then prints the page's address on the LAN, which its QR code carries).
# The demo speaks (launcher-voice) where it can be heard: a sound card, espeak-ng and aplay;
# MUTE=1 keeps it silent. Its language is the locale's (make demo LANG=fr_FR.UTF-8), or DEMO_LANG=fr.
WEB_LISTEN ?= 127.0.0.1:8080
MUTE ?=
DEMO_LANG ?=
demo: $(STAMP)
	@mkdir -p .demo-state; sock=$$($(BIN)/python -c 'from firmware.paths import default_sim_socket; print(default_sim_socket())'); \
	lang=$(or $(DEMO_LANG),$$($(BIN)/python -c 'from controller.text.messages import default_language; print(default_language())')); \
	case $$lang in fr) locale=fr_FR.UTF-8 ;; en) locale=en_US.UTF-8 ;; *) echo "DEMO_LANG is en or fr, not $$lang"; exit 2 ;; esac; \
	$(BIN)/launcher-web --socket "$$sock" --listen $(WEB_LISTEN) --lang $$lang 2>.demo-state/launcher-web.log & web=$$!; \
	voice=; voice_line=$$($(BIN)/python -m controller.voice.sound --lang $$lang $(if $(filter-out 0,$(MUTE)),--mute)) \
		&& { $(BIN)/launcher-voice --socket "$$sock" --lang $$lang 2>.demo-state/launcher-voice.log & voice=$$!; }; \
	trap 'kill $$web $$voice 2>/dev/null; echo "table page and voice stopped"' EXIT; \
	page=$$($(BIN)/python -m controller.web.lan --listen $(WEB_LISTEN) 2>/dev/null); \
	$(BIN)/python -m controller.web.lan --listen $(WEB_LISTEN) --lang $$lang --announce .demo-state/launcher-web.log; \
	echo "$$voice_line"; \
	LC_MESSAGES=$$locale LAUNCHER_WEB_URL=$$page LAUNCHER_DEMO_VOICE="$$voice_line" \
		$(BIN)/launcherd --sim --demo --state-dir .demo-state

# Two workers (pytest-xdist): most tests wait on a daemon, so two halve the time on two cores.
# worksteal: a worker that is done takes tests queued for the other, so one long test (the pip
# install of test_install.py) does not leave a queue behind it.
# Bytecode is written (__pycache__ is ignored by git) even where PYTHONDONTWRITEBYTECODE is set:
# without it every worker compiled and assertion-rewrote the ~120 test modules at each run
# (`pytest --collect-only` 5 s instead of 2 s), and every launcherd and launcherctl started by a
# test compiled its modules again.
TEST_JOBS ?= 2
test: $(STAMP)
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -n $(TEST_JOBS) --dist worksteal --durations=15

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
