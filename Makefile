# Thin wrapper around CMake/CTest. `make run` and `make test` work on a fresh Debian 12 machine as root.
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
JOBS ?= 2
DOMAIN ?= domains/minigolf.lua
PLAN ?= minigolf-plan.json

PREFIX ?= /usr/local

.PHONY: all deps deps-build deps-package build run bench install package test test-fast test-asan fuzz test-fuzz clean

all: build

# Debian packages (.ci/install-deps): building and planning need only --build; `make install` and
# `make package` add the web page's three.js and lintian; the tests need everything.
deps:
	@bash .ci/install-deps --all

deps-build:
	@bash .ci/install-deps --build

deps-package:
	@bash .ci/install-deps --package

build: deps-build
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)

# Exit 3 (approximate plan: no solution within the limits) is reported but not a build failure.
run: build
	@./$(BUILD)/tplan plan $(DOMAIN) -o $(PLAN); rc=$$?; \
	  if [ $$rc -eq 3 ]; then echo "(approximate plan written; try another --seed or more --max-iters)"; exit 0; fi; \
	  exit $$rc

# The paper's Table 1 and Fig. 13 on this machine (20 seeds per row; see docs/cli.md). Exit 3 (a
# domain of the default list does not exist yet) is reported, not a make failure.
bench: build
	@./$(BUILD)/tplan bench --out bench.json --plot fig13.png; rc=$$?; \
	  if [ $$rc -eq 3 ]; then echo "(some domains are missing or failed; the others were benchmarked)"; exit 0; fi; \
	  exit $$rc

# Installs into PREFIX (default /usr/local): bin/tplan, lib/libtplan.so*, include/tplan, pkg-config
# and CMake files, share/tplan (domains, web page), docs and man pages (docs/install.md).
install: deps-package build
	cmake --install $(BUILD) --prefix $(PREFIX)

# The Debian packages libtplan0, libtplan-dev, tplan-data, tplan, python3-tplan in $(BUILD)/ (CPack;
# docs/install.md). Their Maintainer: MAINTAINER="Name <address>" (or -DTP_DEB_MAINTAINER at
# configure time); with neither, cpack stops and says so.
package: deps-package build
	cd $(BUILD) && cpack -G DEB $(if $(MAINTAINER),-D "CPACK_PACKAGE_CONTACT=$(MAINTAINER)")
	@ls $(BUILD)/*_*.deb

# Every test through ctest, then the same suite once more under ASan + UBSan, then a short fuzz run.
test: test-fast test-asan test-fuzz

# Each run keeps every test's output in the build folder (ctest-results.xml, JUnit: a failed test's
# output and time survive the terminal, so an intermittent failure leaves its evidence), besides
# ctest's own Testing/Temporary/LastTest.log and LastTestsFailed.log.
test-fast: deps build
	ctest --test-dir $(BUILD) --output-on-failure --output-junit ctest-results.xml -j$(JOBS)

test-asan: deps
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DTP_SANITIZE=ON >/dev/null
	@cmake --build $(ASAN_BUILD) -j$(JOBS)
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir $(ASAN_BUILD) --output-on-failure --output-junit ctest-results.xml -j$(JOBS) -L sanitize

# libFuzzer targets (clang, docs/fuzzing.md), each for FUZZ_SECONDS; fails on any crash, sanitizer
# report, hang or OOM. The normal build's tplan seeds them with plans of the shipped domains.
fuzz: deps build
	@CC=clang cmake -S . -B $(FUZZ_BUILD) -DTP_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(FUZZ_BUILD) -j$(JOBS) --target fuzz_targets
	TPLAN=$(BUILD)/tplan bash tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

# The bounded fuzz run of `make test`: 6 s per target (8 targets; make test stays near 15 minutes).
test-fuzz:
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=6

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
