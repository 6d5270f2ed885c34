# Catwalk: the two commands a new user needs are `make demo` and `make test`.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
KAFKA  := bash deploy/kafka/kafka.sh
SERVE  ?= 1
PORT   ?= 8501
ADDRESS ?= 127.0.0.1
DEMO_DATA   ?= var/demo
DEMO_TABLES ?= 6
DEMO_ROUNDS ?= 60
DEMO_SEED   ?= 2026
DEMO_FAULTS ?= 0.03
DEMO_KEYS   ?= $(DEMO_DATA).trusted.keys
# the tables' layouts the simulator files (docs/rulesets.md "Table layouts"), read by replay
# and the dashboard as the casino's filings, so the order around the table is judged
DEMO_RULESETS ?= $(DEMO_DATA)/rulesets

.PHONY: help setup browser kafka-fetch kafka-up kafka-down kafka-status lint test drills demo live serve clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-13s %s\n", $$1, $$2}'

$(BIN)/.installed: pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "Python 3.11 or newer is needed (found $$($(PYTHON) --version))"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test,lint,bench]'
	@touch $@

setup: $(BIN)/.installed ## create .venv and install Catwalk with its test and lint tools

browser: ## make sure Debian's Chromium is installed (for the browser test)
	@if [ -x /usr/bin/chromium ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
	  echo "installing Debian's chromium (apt-get)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else echo "Chromium is missing: run 'sudo apt-get install chromium', then make test again"; exit 1; fi

kafka-fetch: ## download the Apache Kafka jars once (into .kafka/libs)
	$(KAFKA) fetch

kafka-up: ## start the local Kafka broker on 127.0.0.1 (prints its address)
	$(KAFKA) up

kafka-down: ## stop the local Kafka broker
	$(KAFKA) down

kafka-status: ## is the local broker up?
	$(KAFKA) status

lint: setup ## ruff and mypy
	$(BIN)/ruff check .
	$(BIN)/mypy

test: setup browser kafka-fetch lint ## the whole test suite, Kafka broker and browser included
	$(BIN)/python -m pytest

drills: setup kafka-fetch ## the Kafka drills only (kills, workers, broker loss, full disk, tampering; also in make test)
	$(BIN)/python -m pytest -m drills

demo: setup ## start Kafka, simulate a shift, ingest, replay, check, serve the dashboard
	@if [ -n "$$KAFKA_BOOTSTRAP" ]; then echo "using the Kafka cluster at $$KAFKA_BOOTSTRAP"; else $(KAFKA) up; fi
	rm -rf $(DEMO_DATA) && mkdir -p $(DEMO_DATA)
	$(eval TOPIC := shift-$(shell date -u +%Y%m%dT%H%M%S))
	$(BIN)/python -m ingest.simulate --tables $(DEMO_TABLES) --rounds $(DEMO_ROUNDS) \
	  --seed $(DEMO_SEED) --fault-rate $(DEMO_FAULTS) --labels $(DEMO_DATA)/labels.jsonl --topic $(TOPIC) \
	  --layouts-out $(DEMO_RULESETS)
	$(BIN)/python -m ingest --data $(DEMO_DATA) --topic $(TOPIC) --until-idle 3
	@$(BIN)/python deploy/pin_keys.py $(DEMO_DATA) $(DEMO_KEYS)
	CATWALK_TRUSTED_KEYS=$(DEMO_KEYS) $(BIN)/python -m ingest verify --data $(DEMO_DATA)
	CATWALK_TRUSTED_KEYS=$(DEMO_KEYS) $(BIN)/python -m replay --data $(DEMO_DATA) --rulesets $(DEMO_RULESETS)
	CATWALK_TRUSTED_KEYS=$(DEMO_KEYS) $(BIN)/python -m checks --data $(DEMO_DATA)
	@CATWALK_TRUSTED_KEYS=$(DEMO_KEYS) PYTHON=$(BIN)/python bash deploy/demo-users.sh $(DEMO_DATA)
	@if [ "$(SERVE)" = 1 ]; then CATWALK_DASHBOARD_HOME=$(abspath $(DEMO_DATA))/dashboard \
	  CATWALK_TRUSTED_KEYS=$(abspath $(DEMO_KEYS)) CATWALK_RULESETS=$(abspath $(DEMO_RULESETS)) \
	  $(MAKE) --no-print-directory serve DATA=$(DEMO_DATA); fi

LIVE_DATA   ?= var/live
LIVE_TABLES ?= 6
LIVE_ROUNDS ?= 200
LIVE_PACE   ?= 40

live: setup ## a live shift: ingest and `checks --follow` running while the simulator deals (LIVE_PACE events/s); the dashboard shows new flags within seconds
	bash deploy/live.sh $(LIVE_DATA) $(LIVE_TABLES) $(LIVE_ROUNDS) $(LIVE_PACE) $(PORT) $(ADDRESS)

serve: setup ## serve the dashboard over DATA (default var/demo) at http://localhost:$(PORT) (ADDRESS=0.0.0.0 to share it)
	@echo "dashboard: http://localhost:$(PORT)  (Ctrl-C to stop)"
	CATWALK_DATA=$(or $(DATA),$(DEMO_DATA)) $(BIN)/python -m streamlit run dashboard/serve.py \
	  --server.headless=true --server.address=$(ADDRESS) --server.port=$(PORT) --browser.gatherUsageStats=false \
	  --client.toolbarMode=minimal

.PHONY: screenshots
screenshots: setup browser ## the browser tests only, saving their screenshots into docs/images (the user guides' pictures)
	CATWALK_SCREENSHOTS=docs/images $(BIN)/python -m pytest -m browser -p no:cacheprovider

clean: ## stop Kafka and remove generated data (keeps .venv and the jars)
	-$(KAFKA) down
	rm -rf var .pytest_cache .mypy_cache .ruff_cache
