# The README's commands. `make demo` and `make test` are the two that matter;
# both install the system libraries first (`make setup`).

SWIFT ?= swift
LINT_PATHS := Package.swift Modules Tests Examples Benchmarks

.PHONY: setup demo test build bench docs lint format

setup:
	@scripts/setup.sh

demo: setup
	$(SWIFT) run -c release cast demo

build: setup
	$(SWIFT) build --build-tests

test: build
	SWIFT=$(SWIFT) scripts/test.sh

docs: setup
	@scripts/docs.sh

bench: setup
	cd Benchmarks && $(SWIFT) package --disable-sandbox benchmark

lint:
	$(SWIFT) format lint --strict --recursive --configuration .swift-format $(LINT_PATHS)

format:
	$(SWIFT) format format --in-place --recursive --configuration .swift-format $(LINT_PATHS)
