# The README's commands. `make demo` and `make test` are the two that matter;
# both install the system libraries first (`make setup`).

SWIFT ?= swift
LINT_PATHS := Package.swift Modules Tests Examples Benchmarks

.PHONY: setup demo test build bench lint format

setup:
	@scripts/setup.sh

demo: setup
	@echo "make demo will start the receiver emulator on loopback, discover it, connect, launch," >&2
	@echo "load and control media, then stream 5 s of Remote Display test pattern and tone and" >&2
	@echo "print what the emulator measured. It arrives with the example senders (the 'cast demo'" >&2
	@echo "command); until then there is nothing to run." >&2
	@exit 1

build: setup
	$(SWIFT) build --build-tests

test: build
	$(SWIFT) test --skip-build

bench: setup
	cd Benchmarks && $(SWIFT) package --disable-sandbox benchmark

lint:
	$(SWIFT) format lint --strict --recursive --configuration .swift-format $(LINT_PATHS)

format:
	$(SWIFT) format format --in-place --recursive --configuration .swift-format $(LINT_PATHS)
