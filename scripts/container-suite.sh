#!/usr/bin/env bash
# Runs the project's whole test suite (the projects of `make test`, not the containers project)
# inside the built image, on its Node 22, as its non-root user: builds the Dockerfile's `test`
# target (the runtime image plus the dev dependencies, the checkout and the test-only Debian
# packages; cached layers) and runs scripts/run-tests.sh in it with the host's network, so that it
# reaches the PostgreSQL and Redis that scripts/test-services.sh finds or starts on 127.0.0.1.
# vitest's results land in test-results-node22.json; exits with the suite's status.
# Usage: scripts/container-suite.sh [VITEST ARGS...] (files or options, as run-tests.sh takes them).
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/container-engine.sh
bash scripts/container-base.sh || exit 1

image=${WEBCAP_TEST_SUITE_IMAGE:-webcap:test}
results=test-results-node22.json
ca=${WEBCAP_BUILD_CA-/etc/ssl/certs/ca-certificates.crt}
ca_args=()
if [ -n "$ca" ] && [ -f "$ca" ]; then
  ca_args=(--volume "$ca:/egress-ca.crt:ro" --build-arg NODE_EXTRA_CA_CERTS=/egress-ca.crt)
fi

work=$(mktemp -d /var/tmp/webcap-suite.XXXXXX)
source scripts/test-services.sh
trap 'stop_private_services; rm -rf "$work"' EXIT

# The build context `suite`: the checkout's own files as git sees them (tracked, and new ones not
# ignored), without node_modules, dist, data or results; the Dockerfile's .dockerignore keeps the
# main context to what the runtime image is built from.
mkdir "$work/suite" "$work/results"
git ls-files -z --cached --others --exclude-standard |
  while IFS= read -r -d '' file; do if [ -e "$file" ]; then printf '%s\0' "$file"; fi; done |
  tar --null -T - -c | tar -x -C "$work/suite" || exit 1
# The image's user writes the results.
chmod 777 "$work/results"

# The image this build replaces, removed once it is untagged: each is gigabytes.
previous=$(podman image inspect --format '{{.Id}}' "$image" 2>/dev/null)
started=$(date +%s)
podman build --pull=never --format docker "${ca_args[@]}" --build-context "suite=$work/suite" \
  --target test --tag "$image" --file Dockerfile . || exit 1
built=$(date +%s)
echo "webcap: built $image in $((built - started)) s"
if [ -n "$previous" ] && [ "$previous" != "$(podman image inspect --format '{{.Id}}' "$image")" ]; then
  podman rmi "$previous" >/dev/null 2>&1 || true
fi

rm -f "$results"
podman run --rm --network=host --env TEST_DATABASE_URL --env TEST_REDIS_URL \
  --volume "$work/results:/results" "$image" \
  bash -c 'bash scripts/run-tests.sh "$@"; status=$?; cp test-results.json /results/ 2>/dev/null; exit $status' \
  run-tests "$@"
status=$?
echo "webcap: the suite ran in the image in $(($(date +%s) - built)) s"
[ -f "$work/results/test-results.json" ] && cp "$work/results/test-results.json" "$results"
node scripts/test-summary.mjs "$results" || status=1
exit "$status"
