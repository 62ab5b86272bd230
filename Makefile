# The README's commands. `make demo` and `make test` are the two that matter;
# both install the system libraries first (`make setup`).

SWIFT ?= swift
FUZZ_SECONDS ?= 30
LINT_PATHS := Package.swift Modules Tests Examples Benchmarks

.PHONY: setup demo test build bench bench-check docs lint format fuzz tsan soak install deb

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

fuzz: setup
	SWIFT=$(SWIFT) FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh

tsan: setup
	SWIFT=$(SWIFT) scripts/tsan.sh

# Release binaries with the Swift runtime linked in and stripped, their man
# pages, completions, desktop entry, licence and notices (scripts/package.sh):
# under $(DESTDIR)$(PREFIX), or as a Debian package in .build/package/.
PREFIX ?= /usr/local
install: setup
	SWIFT=$(SWIFT) PREFIX=$(PREFIX) DESTDIR=$(DESTDIR) scripts/package.sh install

deb: setup
	SWIFT=$(SWIFT) scripts/package.sh deb

soak: setup
	$(SWIFT) build --sanitize=address --scratch-path .build/soak --product cast-soak
	ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/Fuzz/lsan.supp .build/soak/debug/cast-soak

# Every benchmark, then the session-start comparison with pychromecast, then
# (with OPENSCREEN_BUILD=DIR, Open Screen built outside this repository) our
# CPU against Open Screen's sender, then one table of the ratios that matter
# (scripts/bench-summary.py). The
# streaming benchmarks measure the sender alone: the receiver is
# cast-receiver in a process of its own, built here first.
bench: setup
	mkdir -p .build
	$(SWIFT) build -c release --product cast-receiver
	bash -o pipefail -c 'cd Benchmarks && CAST_RECEIVER=$(CURDIR)/.build/release/cast-receiver $(SWIFT) package --disable-sandbox benchmark --no-progress | tee ../.build/bench-report.txt'
	bash -o pipefail -c 'scripts/measure-session-start.sh | tee .build/session-start.txt'
	$(if $(OPENSCREEN_BUILD),bash -o pipefail -c 'scripts/measure-openscreen.sh $(OPENSCREEN_BUILD) | tee .build/openscreen.txt')
	scripts/bench-summary.py $(if $(OPENSCREEN_BUILD),--openscreen .build/openscreen.txt) .build/bench-report.txt .build/session-start.txt

# The committed thresholds as a gate: fails when the last `make bench`
# missed a target (make bench itself only reports).
bench-check:
	scripts/bench-summary.py --strict .build/bench-report.txt .build/session-start.txt

# Formatting, every import a declared dependency (scripts/check-imports.py),
# Examples and the emulator on other modules' public API only
# (scripts/check-package-access.py), Docs/DESIGN.md against Package.swift and
# this file (scripts/check-design.py), no function over 60 lines
# (scripts/check-function-length.py), every test suite with a time limit
# (scripts/check-time-limits.py).
lint:
	$(SWIFT) format lint --strict --recursive --configuration .swift-format $(LINT_PATHS)
	scripts/check-imports.py .
	scripts/check-package-access.py .
	scripts/check-design.py .
	scripts/check-function-length.py .
	scripts/check-time-limits.py Tests

format:
	$(SWIFT) format format --in-place --recursive --configuration .swift-format $(LINT_PATHS)
