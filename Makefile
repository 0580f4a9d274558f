# Conveniences over the scripts README names (make itself is installed by
# scripts/install-deps, so a fresh machine starts with the scripts).
BUILD := build/release
JOBS ?= $(shell nproc)

.PHONY: run test check build deps fuzz clean

run:
	scripts/run

test:
	scripts/test

# The quick loop while developing: release build and ctest only.
check: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

build: deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j $(JOBS)

deps:
	scripts/install-deps

fuzz: deps
	scripts/fuzz

clean:
	rm -rf build
