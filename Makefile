# Cairn: the two set-up commands are `make run` and `make test` (see README.md).
# The toolchain: `swift` on the PATH, else the usual install location on this platform.
SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
PORT ?= 8737

.PHONY: run test bench build release deps test-deps clean

deps:
	@scripts/install-deps.sh

test-deps:
	@scripts/install-deps.sh --with-test-tools

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product cairn

## Install what is missing, build, and start Cairn on its default data directory; prints the URL to open.
run: release
	.build/release/cairn serve --port $(PORT)

## Install what is missing (including test tools), build, and run every test.
test: test-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

## Benchmarks: print figures against their baselines (release build).
bench: test-deps
	$(SWIFT) build -c release --product cairn-bench
	.build/release/cairn-bench

clean:
	rm -rf .build
