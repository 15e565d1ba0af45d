# worldcup — make run (the scoreboard), make test (every test), make bench (benchmarks).
SWIFT ?= swift
SHELL := /bin/bash
APT_PACKAGES := libncurses-dev libsqlite3-dev libpq-dev rapidjson-dev postgresql pkg-config tmux sqlite3 \
	iproute2 openssl xvfb xterm imagemagick fonts-dejavu-core chromium chromium-driver libqrencode-dev curl valgrind \
	nginx python3-venv slowhttptest
# The app's targets and the packages only they need (Hummingbird, SwiftNIO, swift-crypto…) are
# behind Package.swift's App trait, off by default so that a package depending on the library
# resolves GRDB alone: every build and test command here turns it on. Traits are compiler flags
# of every target, so every command passes the same, or it would rebuild everything.
APP = --traits App
# Release builds link Swift's runtime and Foundation into the binary: a process that loads a
# dozen fewer shared libraries reaches its first frame sooner (see BENCHMARKS.md, process start).
# Every release build uses the same flags, or each would rebuild everything.
RELEASE = -c release --static-swift-stdlib $(APP)
RELEASE_BIN = $(shell $(SWIFT) build $(RELEASE) --show-bin-path)/worldcup
# SwiftPM compiles with other flags (colour diagnostics) when its output is a terminal, and a
# change of flags rebuilds everything: so its output always goes through a pipe, to stderr,
# which also keeps `make run ARGS=list | less` free of build lines.
QUIET_PIPE = 2>&1 | cat >&2

# The OpenAPI test (Tests/ServeTests/ServeOpenAPITests.swift) runs schemathesis from a virtual
# environment of its own, which `make deps` makes (no system Python package is touched).
SCHEMATHESIS_VENV = .build-tools/schemathesis
SCHEMATHESIS_VERSION = 4.32.5
# The page's accessibility test (Tests/ServeTests/ServeAccessibilityTests.swift) injects
# axe-core 4.x into Chromium: its axe.min.js is taken from the axe-playwright-python wheel,
# which carries it (nothing of Playwright is installed or used).
AXE_FOLDER = .build-tools/axe
AXE_WHEEL_VERSION = 0.1.8

PREFIX ?= /usr/local
.PHONY: run test lint bench build deps clean docs install install-files uninstall

## deps: install the system packages the build and the tests need, if any is missing.
deps:
	@missing=""; \
	command -v pkg-config >/dev/null 2>&1 || missing="yes"; \
	pkg-config --exists ncursesw 2>/dev/null || missing="yes"; \
	pkg-config --exists sqlite3 2>/dev/null || missing="yes"; \
	pkg-config --exists libpq 2>/dev/null || missing="yes"; \
	pkg-config --exists RapidJSON 2>/dev/null || missing="yes"; \
	pkg-config --exists libqrencode 2>/dev/null || missing="yes"; \
	command -v chromium >/dev/null 2>&1 || missing="yes"; \
	command -v chromedriver >/dev/null 2>&1 || missing="yes"; \
	command -v curl >/dev/null 2>&1 || missing="yes"; \
	[ -x /usr/sbin/nginx ] || missing="yes"; \
	command -v slowhttptest >/dev/null 2>&1 || missing="yes"; \
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="yes"; \
	python3 -c "import ensurepip, venv" >/dev/null 2>&1 || missing="yes"; \
	command -v tmux >/dev/null 2>&1 || missing="yes"; \
	command -v valgrind >/dev/null 2>&1 || missing="yes"; \
	command -v sqlite3 >/dev/null 2>&1 || missing="yes"; \
	command -v ip >/dev/null 2>&1 || missing="yes"; \
	command -v openssl >/dev/null 2>&1 || missing="yes"; \
	command -v Xvfb >/dev/null 2>&1 || missing="yes"; \
	command -v xterm >/dev/null 2>&1 || missing="yes"; \
	command -v import >/dev/null 2>&1 || missing="yes"; \
	fc-list "DejaVu Sans Mono" 2>/dev/null | grep -q . || missing="yes"; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then \
			echo "Installing $(APT_PACKAGES) with apt-get…" >&2; \
			{ DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
			  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(APT_PACKAGES); } >&2; \
		else \
			echo "Missing system packages. Install them with:" >&2; \
			echo "  sudo apt-get install $(APT_PACKAGES)" >&2; \
			exit 1; \
		fi; \
	fi
	@command -v $(SWIFT) >/dev/null 2>&1 || { echo "Swift 6 is needed: see https://www.swift.org/install/linux/" >&2; exit 1; }
	@[ -x $(SCHEMATHESIS_VENV)/bin/schemathesis ] || { \
		echo "Installing schemathesis $(SCHEMATHESIS_VERSION) from PyPI in $(SCHEMATHESIS_VENV)…" >&2; \
		{ python3 -m venv $(SCHEMATHESIS_VENV) && \
		  $(SCHEMATHESIS_VENV)/bin/pip install -q schemathesis==$(SCHEMATHESIS_VERSION); } >&2 || { \
		rm -rf $(SCHEMATHESIS_VENV); \
		echo "Could not install schemathesis (the OpenAPI test needs it): see the lines above." >&2; exit 1; }; }
	@[ -f $(AXE_FOLDER)/axe.min.js ] || { \
		echo "Downloading axe-core (in axe-playwright-python $(AXE_WHEEL_VERSION)) from PyPI to $(AXE_FOLDER)…" >&2; \
		{ mkdir -p $(AXE_FOLDER) && \
		  $(SCHEMATHESIS_VENV)/bin/pip download -q --no-deps -d $(AXE_FOLDER) \
		    axe-playwright-python==$(AXE_WHEEL_VERSION) && \
		  $(SCHEMATHESIS_VENV)/bin/python -c "import glob, zipfile; \
		    wheel = zipfile.ZipFile(glob.glob('$(AXE_FOLDER)/*.whl')[0]); \
		    open('$(AXE_FOLDER)/axe.min.js', 'wb').write(wheel.read('axe_playwright_python/axe.min.js'))"; } >&2 || { \
		rm -rf $(AXE_FOLDER); \
		echo "Could not download axe-core (the page's accessibility test needs it): see the lines above." >&2; \
		exit 1; }; }

build: deps
	@set -o pipefail; $(SWIFT) build $(RELEASE) --product worldcup $(QUIET_PIPE)

## run: build in release mode and open the scoreboard (pass options with ARGS="--db /tmp/x.sqlite").
## `make run ARGS=list | less` reuses the same build: the build's output always goes through a
## pipe, so it never depends on whether make's stdout is a terminal.
run: build
	@$(RELEASE_BIN) $(ARGS)

## install: the binary, its seed, shell completions and the systemd unit of `serve` under PREFIX
## (default /usr/local); `make uninstall PREFIX=…` removes exactly those files.
install: build
	$(MAKE) install-files INSTALL_BIN="$(RELEASE_BIN)"

INSTALL_BIN ?= $(RELEASE_BIN)
# Where systemd looks for the units an administrator installs under /usr/local.
UNIT_DIR = $(PREFIX)/lib/systemd/system
install-files:
	install -d "$(PREFIX)/bin" "$(PREFIX)/share/worldcup" "$(PREFIX)/share/bash-completion/completions" \
		"$(PREFIX)/share/zsh/site-functions" "$(PREFIX)/share/fish/vendor_completions.d" "$(UNIT_DIR)"
	install -m 755 "$(INSTALL_BIN)" "$(PREFIX)/bin/worldcup"
	install -m 644 seed.json "$(PREFIX)/share/worldcup/seed.json"
	"$(PREFIX)/bin/worldcup" --generate-completion-script bash > "$(PREFIX)/share/bash-completion/completions/worldcup"
	"$(PREFIX)/bin/worldcup" --generate-completion-script zsh > "$(PREFIX)/share/zsh/site-functions/_worldcup"
	"$(PREFIX)/bin/worldcup" --generate-completion-script fish > "$(PREFIX)/share/fish/vendor_completions.d/worldcup.fish"
	sed 's|@PREFIX@|$(PREFIX)|g' deploy/systemd/worldcup-serve.service > "$(UNIT_DIR)/worldcup-serve.service"
	chmod 644 "$(UNIT_DIR)/worldcup-serve.service"
	@echo "Installed $(PREFIX)/bin/worldcup (remove it with: make uninstall PREFIX=$(PREFIX))"

uninstall:
	rm -f "$(PREFIX)/bin/worldcup" "$(PREFIX)/share/worldcup/seed.json" \
		"$(PREFIX)/share/bash-completion/completions/worldcup" "$(PREFIX)/share/zsh/site-functions/_worldcup" \
		"$(PREFIX)/share/fish/vendor_completions.d/worldcup.fish" "$(UNIT_DIR)/worldcup-serve.service"
	-rmdir "$(PREFIX)/share/worldcup" 2>/dev/null

## lint: the code against the project's style (.swift-format: 4 spaces, lines of 120); a finding fails.
## `swift format -i -r -p Sources Tests Benchmarks Package.swift` fixes most findings.
lint:
	@$(SWIFT) format lint --strict --recursive --parallel Sources Tests Benchmarks Package.swift

## test: the lint, then build everything and run every test (unit, command line, end-to-end).
## The log is kept in .build/test.log; on failure the failing tests are repeated at the end,
## where a CI log's tail shows them.
test: deps lint
	@set -o pipefail; $(SWIFT) build --build-tests $(APP) $(QUIET_PIPE)
	@set -o pipefail; $(SWIFT) test --skip-build $(APP) 2>&1 | tee .build/test.log || { \
		echo "== failing tests (full log: .build/test.log) =="; \
		grep -A6 -E "recorded an issue|✘ Test .* failed|error:" .build/test.log | head -120; \
		exit 1; }

## bench: the controller and the scoreboard against their peers at 32, 10,000 and 1,000,000 teams,
## side by side in one run; writes BENCHMARKS.md and docs/per-change-cost.svg (a few minutes).
BENCH_SIZES ?= 32,10000,1000000
BENCH_ITERATIONS ?= 1000
bench: deps
	@set -o pipefail; $(SWIFT) build $(RELEASE) --product worldcup $(QUIET_PIPE)
	@set -o pipefail; $(SWIFT) build $(RELEASE) --product worldcup-bench $(QUIET_PIPE)
	$$($(SWIFT) build $(RELEASE) --show-bin-path)/worldcup-bench --worldcup $$($(SWIFT) build $(RELEASE) --show-bin-path)/worldcup \
		--sizes $(BENCH_SIZES) --iterations $(BENCH_ITERATIONS) --output BENCHMARKS.md --plot docs/per-change-cost.svg

## docs: the library's documentation, the core and both stores in one DocC archive,
## .build/docs/FetchedResults.doccarchive (a warning fails it). Built in its own folder with the
## DocC plugin, which only this target asks for (WORLDCUP_DOCS, read by Package.swift).
DOC_TARGETS = FetchedResults FetchedResultsSQLite FetchedResultsPostgreSQL
docs:
	@mkdir -p .build/docs
	@rm -rf .build/docs/FetchedResults.doccarchive
	@set -o pipefail; WORLDCUP_DOCS=1 $(SWIFT) package --scratch-path .build-docs --allow-writing-to-directory .build/docs \
		generate-documentation $(addprefix --target ,$(DOC_TARGETS)) --enable-experimental-combined-documentation \
		--warnings-as-errors --output-path .build/docs/FetchedResults.doccarchive $(QUIET_PIPE)

clean:
	rm -rf .build
