# webcap: one image for `serve` (the default), `worker`, `admin`, `doctor` and `mcp`.
# Build:  docker build -t webcap .
# Run:    docker run -p 8080:8080 -v webcap:/data --read-only --tmpfs /tmp webcap
# docs/deploy.md says what it contains, how it runs read-only and how to choose Chromium's sandbox.

ARG NODE_IMAGE=node:22-bookworm-slim

# --- build: compiles better-sqlite3 and the TypeScript, then drops the dev dependencies ---------
FROM ${NODE_IMAGE} AS build
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
# No install scripts but better-sqlite3's: the others fetch or build what the service never runs
# (node-llama-cpp, a dev dependency), or only check a binary the build does not use.
RUN npm ci --ignore-scripts --no-audit --no-fund \
 && npm rebuild better-sqlite3
COPY tsconfig.json ./
COPY clients/typescript clients/typescript
COPY src src
# `npm run build` builds the SDK (@webcap/sdk, a workspace the CLI imports) first, then the service.
# The prune also drops peer-only packages: the full puppeteer, which @ghostery/adblocker-puppeteer
# names as a peer for its types only. TypeScript (23 MB) was an optional peer of a package of that
# puppeteer's: the lock file marks it devOptional, which no prune removes, so it goes by hand. Of
# better-sqlite3's build, only the addon is kept (not the objects, SQLite's sources, the test
# extension).
RUN npm run build \
 && npm prune --omit=dev --omit=peer --ignore-scripts --no-audit --no-fund \
 && rm -rf node_modules/typescript node_modules/.bin/tsc node_modules/.bin/tsserver \
 && cd node_modules/better-sqlite3 \
 && mv build/Release/better_sqlite3.node . \
 && rm -rf build deps src \
 && mkdir -p build/Release \
 && mv better_sqlite3.node build/Release/

# --- runtime --------------------------------------------------------------------------------------
FROM ${NODE_IMAGE}
# Chromium's headless shell (the browser the service drives), uBlock Origin's filter lists (the ad
# blocker reads them; nothing is downloaded at run time), tini as PID 1 (forwards SIGTERM, reaps
# Chromium's orphans), and fonts for Latin, Greek, Cyrillic (Liberation, DejaVu), most other
# scripts (Noto), Chinese, Japanese and Korean (Noto CJK) and colour emoji. fc-cache writes the
# font cache now: the root filesystem is read-only at run time.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      chromium-headless-shell webext-ublock-origin-chromium tini fontconfig \
      fonts-liberation fonts-dejavu-core fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji \
 && rm -rf /var/lib/apt/lists/* \
 && fc-cache -f
# A fixed numeric uid, so that Kubernetes' runAsNonRoot can check it; /data is its only writable
# place besides /tmp. HOME is /tmp: what Chromium keeps in the home directory is scratch.
RUN groupadd --system --gid 10001 webcap \
 && useradd --system --uid 10001 --gid webcap --home-dir /tmp --no-create-home --shell /usr/sbin/nologin webcap \
 && mkdir /data \
 && chown webcap:webcap /data
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
