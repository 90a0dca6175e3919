# The README's two commands are `make demo` and `make test`; the rest support them.
SWIFT      ?= swift
RELEASE    := .build/release/sxkit
# Manual pages carry this date, so regenerating them is reproducible; bump it with the version.
MAN_DATE   := 2026-11-21

.PHONY: bootstrap build build-debug demo test docs-check completions man bench stress clean

bootstrap:
	@scripts/bootstrap

build: bootstrap
	SWIFT=$(SWIFT) scripts/build-release sxkit

build-debug: bootstrap
	$(SWIFT) build --build-tests

demo: build
	$(RELEASE) demo

# The check that man/ and completions/ match the CLI, then unit, vector and end-to-end tests.
test: build-debug
	@scripts/docs-check
	$(SWIFT) test --skip-build --parallel

completions: build-debug
	@scripts/generate-docs completions completions

man: bootstrap
	@scripts/generate-docs man man $(MAN_DATE)

bench: build
	bench/run

# Long random-kill series (issue 15, item 10): no leftover survives the next run of the same command.
stress: build
	SXKIT=$(RELEASE) scripts/stress-leftovers

clean:
	rm -rf .build
