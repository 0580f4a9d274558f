# README's two commands: `make run` and `make test`. Both install what is
# missing (scripts/install-deps) before building.
BUILD := build/release
JOBS ?= $(shell nproc)

.PHONY: run test check deps build fuzz clean

run: build
	$(BUILD)/sion bench --quick

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
