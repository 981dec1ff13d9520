# webcap: one image for `serve` (the default), `worker`, `admin`, `doctor` and `mcp`.
# Build:  docker build -t webcap .
# Run:    docker run -p 8080:8080 -v webcap:/data --read-only --tmpfs /tmp webcap
# docs/deploy.md says what it contains, how it runs read-only and how to choose Chromium's sandbox.

ARG NODE_IMAGE=node:22-bookworm-slim

# --- deps: every npm package, better-sqlite3's addon compiled (for the build and test stages) ----
FROM ${NODE_IMAGE} AS deps
# An extra CA for npm behind a TLS-inspecting proxy (a file mounted into the build); unset, none.
ARG NODE_EXTRA_CA_CERTS
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# node-gyp builds against the image's own headers instead of downloading them.
ENV npm_config_nodedir=/usr/local \
    npm_config_update_notifier=false
COPY package.json package-lock.json ./
COPY clients/typescript/package.json clients/typescript/
COPY console/package.json console/
# No install scripts but better-sqlite3's and argon2's: the others fetch or build what the service
# never runs (node-llama-cpp, a dev dependency), or only check a binary the build does not use.
# argon2's tries its prebuilt addon in a child process and compiles it when that one crashes, as
# it does on some machines (a segmentation fault at load).
RUN npm ci --ignore-scripts --no-audit --no-fund \
 && npm rebuild better-sqlite3 argon2

# --- build: compiles the TypeScript, then drops the dev dependencies ------------------------------
FROM deps AS build
COPY tsconfig.json ./
COPY clients/typescript clients/typescript
COPY console console
COPY src src
# `npm run build` builds the SDK (@webcap/sdk, a workspace the CLI imports) first, then the service,
# then the console's front end (@webcap/console, a workspace of build tools only) into dist/console.
# The prune also drops peer-only packages: the full puppeteer, which @ghostery/adblocker-puppeteer
# names as a peer for its types only. TypeScript (23 MB) was an optional peer of a package of that
# puppeteer's: the lock file marks it devOptional, which no prune removes, so it goes by hand. Of
# better-sqlite3's build, only the addon is kept (not the objects, SQLite's sources, the test
# extension). The console's workspace link goes too: its sources stay in this stage.
RUN npm run build \
 && npm prune --omit=dev --omit=peer --ignore-scripts --no-audit --no-fund \
 && rm -rf node_modules/typescript node_modules/.bin/tsc node_modules/.bin/tsserver node_modules/@webcap/console \
 && cd node_modules/better-sqlite3 \
 && mv build/Release/better_sqlite3.node . \
 && rm -rf build deps src \
 && mkdir -p build/Release \
 && mv better_sqlite3.node build/Release/

# --- runtime --------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
# Chromium's headless shell (the browser the service drives), uBlock Origin's filter lists (the ad
# blocker reads them; nothing is downloaded at run time), ffmpeg (encodes animated captures; the
# test stage reads them back with its ffprobe), tini as PID 1 (forwards SIGTERM, reaps
# Chromium's orphans), and fonts for Latin, Greek, Cyrillic (Liberation, DejaVu), most other
# scripts (Noto), Chinese, Japanese and Korean (Noto CJK) and colour emoji. fc-cache writes the
# font cache now: the root filesystem is read-only at run time.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      chromium-headless-shell webext-ublock-origin-chromium ffmpeg tini fontconfig \
      fonts-liberation fonts-dejavu-core fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji \
 && rm -rf /var/lib/apt/lists/* \
 && fc-cache -f
# A fixed numeric uid, so that Kubernetes' runAsNonRoot can check it; /data is its only writable
# place besides /tmp. HOME is /tmp: what Chromium keeps in the home directory is scratch.
RUN groupadd --system --gid 10001 webcap \
 && useradd --system --uid 10001 --gid webcap --home-dir /tmp --no-create-home --shell /usr/sbin/nologin webcap \
 && mkdir /data \
 && chown webcap:webcap /data \
 && chmod 700 /data
WORKDIR /app
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules node_modules
COPY --from=build /src/dist dist
COPY --from=build /src/clients/typescript/package.json clients/typescript/
COPY --from=build /src/clients/typescript/dist clients/typescript/dist
# glibc's malloc settings that keep a long run's memory flat (README, docs/performance.md "Soak");
# listen on every interface of the container; SQLite and local blobs on the volume.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    WEBCAP_DATA_DIR=/data \
    MALLOC_ARENA_MAX=2 \
    MALLOC_MMAP_THRESHOLD_=131072
VOLUME /data
EXPOSE 8080
USER 10001:10001
# /healthz of `serve` (PORT) or of `worker` (WORKER_PORT), whichever this container runs.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "const e=process.env;Promise.any([e.PORT||8080,e.WORKER_PORT||8081].map(p=>fetch(`http://127.0.0.1:${p}/healthz`).then(r=>r.ok||Promise.reject()))).then(()=>process.exit(0),()=>process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--", "node", "dist/cli/main.js"]
CMD ["serve"]

# --- test: the project's whole suite on this image's Node, as its user (scripts/container-suite.sh) --
# Built only with --target test: the runtime image above plus what the suite needs beside it. The
# checkout comes from a build context named `suite` (the script passes the repository's files);
# the dev dependencies from the deps stage. The full chromium runs test/full-browser.test.ts and
# test/hostile-frames.test.ts; openssl makes certificates in the egress-proxy and sitemap tests;
# poppler-utils reads PDFs back in test/capture-options.test.ts.
FROM runtime AS test
USER root
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium openssl poppler-utils \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /suite
COPY --from=suite --chown=10001:10001 . .
COPY --from=deps /src/node_modules node_modules
# The suite's own build of dist/ (the processes project's `webcap` processes run it); vitest keeps
# its cache in node_modules/.vite and Vite 8 its bundled config in node_modules/.vite-temp (which
# the console's build above has already made), the places under node_modules the suite writes.
RUN npm run build \
 && touch dist/.built \
 && chown -R 10001:10001 dist clients/typescript/dist \
 && mkdir -p node_modules/.vite node_modules/.vite-temp \
 && chown -R 10001:10001 node_modules/.vite node_modules/.vite-temp
# As on a developer's machine: vitest's mode, not the image's production. No server to check.
ENV NODE_ENV=test
HEALTHCHECK NONE
USER 10001:10001
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["bash", "scripts/run-tests.sh"]

# --- the image users run (the last stage is what a build without --target makes) -----------------
FROM runtime
