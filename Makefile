# The README's two commands are `make demo` and `make test`; the rest support them.
SWIFT      ?= swift
RELEASE    := .build/release/sxkit
# Manual pages carry this date, so regenerating them is reproducible; bump it with the version.
MAN_DATE   := 2026-11-21

.PHONY: bootstrap build build-debug demo test docs-check completions man bench stress interop fuzz clean install uninstall

# `make install` puts the release binary, the manual pages and the bash, zsh and fish completions
# under $(DESTDIR)$(PREFIX); BINARY=path installs a binary built elsewhere instead of building one.
PREFIX     ?= /usr/local
DESTDIR    ?=
BINARY     ?= $(RELEASE)
BINDIR     := $(DESTDIR)$(PREFIX)/bin
MAN1DIR    := $(DESTDIR)$(PREFIX)/share/man/man1
BASHDIR    := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSHDIR     := $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISHDIR    := $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d

# SwiftPM reads libvips' flags from the file scripts/pkgconfig-vips writes (the system's, less glib's
# -pthread, which SwiftPM warns about on every build).
export PKG_CONFIG_PATH := $(CURDIR)/.build/pkgconfig$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH))

bootstrap:
	@scripts/bootstrap
	@scripts/pkgconfig-vips

build: bootstrap
	SWIFT=$(SWIFT) scripts/build-release sxkit

# Any warning in the build's output (the compiler's or SwiftPM's) fails it.
build-debug: bootstrap
	@bash -o pipefail -c '$(SWIFT) build --build-tests 2>&1 | tee .build/build-debug.log'
	@scripts/no-build-warnings .build/build-debug.log

demo: build
	$(RELEASE) demo

# The check that man/ and completions/ match the CLI, then unit, vector and end-to-end tests, then
# the fuzz targets' seeds and past findings replayed (no sanitizers; seconds).
# The in-process XFTP client/server tests run on their own, after the rest: they need Swift's
# cooperative threads (as many as cores), which the synchronous end-to-end tests hold while their
# sxkit processes run; side by side, a handshake could wait past its 30 s deadline.
XFTP_IN_PROCESS := SXXFTPClientServerTests
test: build-debug
	@scripts/docs-check
	$(SWIFT) test --skip-build --parallel --skip $(XFTP_IN_PROCESS)
	$(SWIFT) test --skip-build --parallel --filter $(XFTP_IN_PROCESS)
	SWIFT=$(SWIFT) scripts/fuzz --replay

completions: build-debug
	@scripts/generate-docs completions completions

man: bootstrap
	@scripts/generate-docs man man $(MAN_DATE)

install: $(if $(filter $(RELEASE),$(BINARY)),build)
	install -d "$(BINDIR)" "$(MAN1DIR)" "$(BASHDIR)" "$(ZSHDIR)" "$(FISHDIR)"
	install -m 0755 "$(BINARY)" "$(BINDIR)/sxkit"
	install -m 0644 man/*.1 "$(MAN1DIR)/"
	install -m 0644 completions/sxkit.bash "$(BASHDIR)/sxkit"
	install -m 0644 completions/_sxkit "$(ZSHDIR)/_sxkit"
	install -m 0644 completions/sxkit.fish "$(FISHDIR)/sxkit.fish"

uninstall:
	rm -f "$(BINDIR)/sxkit" "$(BASHDIR)/sxkit" "$(ZSHDIR)/_sxkit" "$(FISHDIR)/sxkit.fish"
	rm -f $(foreach page,$(notdir $(wildcard man/*.1)),"$(MAN1DIR)/$(page)")

bench: build
	bench/run

# The fault suite (issue 18): kill -9 at instants spread over a measured run, file-size limits and
# full file systems, for every journalled write; STRESS_TRIALS=N kills per operation (default 20).
stress: build
	SXKIT=$(RELEASE) stress/run

# Cross-check against SimpleX's own XFTP client (xftp-web, in Node) with files both ways through
# relay serve (interop/README.md). SIMPLEXMQ: a simplexmq checkout, which this project does not hold.
interop: build
	SXKIT=$(RELEASE) SIMPLEXMQ="$(SIMPLEXMQ)" interop/xftp-web/run

# Coverage-guided fuzzing of the parsers with libFuzzer (README "Fuzzing"): a sanitizer build in
# .build-fuzz, then FUZZ_SECONDS per target (300 by default).
FUZZ_SECONDS ?= 300
fuzz: bootstrap
	SWIFT=$(SWIFT) scripts/fuzz --seconds $(FUZZ_SECONDS)

clean:
	rm -rf .build .build-fuzz
