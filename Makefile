# Cairn: the two set-up commands are `make run` and `make test` (see README.md).
# The toolchain: `swift` on the PATH, else the usual install location on this platform.
SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
PORT ?= 8737

.PHONY: run test test-fast lint bench build release deps test-deps install uninstall clean

deps:
	@scripts/install-deps.sh

test-deps:
	@scripts/install-deps.sh --with-test-tools

build: deps
	$(SWIFT) build

# Release builds carry Swift's runtime and Foundation in the binary: every command starts ~3 ms sooner (the loader
# no longer opens and binds the toolchain's 14 Swift libraries) and cairn runs without them installed. Every release
# product is built so (one set of flags: the benchmarks run the cairn beside them).
RELEASE = -c release --static-swift-stdlib

release: deps
	$(SWIFT) build $(RELEASE) --product cairn

## Install what is missing, build, and start Cairn on its default data directory; prints the URL to open.
run: release
	.build/release/cairn serve --port $(PORT)

## Install Cairn for this user: the binary in ~/.local/bin, a desktop entry that opens the app, and the reminder
## service (a systemd user service running `cairn remind`). `make uninstall` removes all three (never the vault).
PREFIX ?= $(HOME)/.local
APPLICATIONS ?= $(or $(XDG_DATA_HOME),$(HOME)/.local/share)/applications
install: release
	install -d "$(PREFIX)/bin" "$(APPLICATIONS)"
	install -m 0755 .build/release/cairn "$(PREFIX)/bin/cairn"
	scripts/desktop-entry.sh "$(PREFIX)/bin/cairn" "$(CAIRN_HOME)" > "$(APPLICATIONS)/cairn.desktop"
	"$(PREFIX)/bin/cairn" remind --install
	@echo "Installed $(PREFIX)/bin/cairn and $(APPLICATIONS)/cairn.desktop."

uninstall:
	-"$(PREFIX)/bin/cairn" remind --uninstall
	rm -f "$(PREFIX)/bin/cairn" "$(APPLICATIONS)/cairn.desktop"

## The rules the build enforces: every import declared in Package.swift (and none of Storage in the CLI), and the
## formatter's strict lint (.swift-format; `swift format format --in-place -r Sources Tests` fixes most findings).
lint:
	SWIFT=$(SWIFT) scripts/check-imports.py
	$(SWIFT) format lint --strict --parallel -r Sources Tests

## Install what is missing (including test tools), check the rules, build, and run every test (CI's command).
test: test-deps lint
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

## The edit-run loop's tier (domain, stores, services, in-process web and CLI): a few minutes, never instead of
## `make test`. The browser, reliability, imaging, OCR, landmark, report and notification suites are left out.
FAST_SUITES = CairnCoreTests|PhotoMetadataTests|EncryptionTests|StorageTests|RegimenTests|SkinTests|SmileTests|InsightsTests|OutcomesTests|HealthExportTests|CairnAppTests|WebAppTests|CairnCLITests
test-fast: test-deps lint
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --filter '^($(FAST_SUITES))\.'

## Benchmarks: print figures against their baselines (release build).
bench: test-deps release
	$(SWIFT) build $(RELEASE) --product cairn-bench
	.build/release/cairn-bench

clean:
	rm -rf .build
