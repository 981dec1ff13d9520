# `make start` and `make test` install whatever is missing first (Debian packages, npm packages, build).
SHELL := /bin/bash
SOURCES := $(shell find src clients/typescript/src -name '*.ts' ! -name '*.test.ts') tsconfig.json clients/typescript/tsconfig.json \
  $(shell find console/src -type f ! -name '*.test.ts') console/index.html console/vite.config.ts

.PHONY: start test install system-deps check bench clean

# glibc's malloc: 2 arenas instead of 8 per core, and large blocks always mapped apart (no
# dynamic threshold) keep the service's idle memory flat over a long run (docs/performance.md,
# "Soak"); both must be in the environment before the process starts.
start: install
	MALLOC_ARENA_MAX=$${MALLOC_ARENA_MAX:-2} MALLOC_MMAP_THRESHOLD_=$${MALLOC_MMAP_THRESHOLD_:-131072} node dist/cli/main.js serve

test: install
	bash scripts/run-tests.sh

install: system-deps node_modules/.package-lock.json dist/.built

system-deps:
	@bash scripts/install-system-deps.sh

# npm ci writes node_modules/.package-lock.json; reinstall whenever the lock file changes.
node_modules/.package-lock.json: package-lock.json
	PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund
	@touch $@

dist/.built: $(SOURCES) node_modules/.package-lock.json
	npm run build
	@touch $@

check: install
	npm run check

bench: install
	npm run bench

clean:
	rm -rf dist node_modules test-results.json
