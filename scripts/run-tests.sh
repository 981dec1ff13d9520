#!/usr/bin/env bash
# Runs every test against real PostgreSQL and Redis, writing vitest's results to test-results.json.
# The run gets a temp dir of its own (TMPDIR), which must be empty again afterwards: a test that
# leaves files behind fails the run.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/test-services.sh
run_tmp=$(mktemp -d /tmp/webcap-run.XXXXXX)
trap 'stop_private_services; rm -rf "$run_tmp"' EXIT
rm -f test-results.json
# Node 22's npm (npx here, `npm run build` in a test) turns on Node's compile cache, which it keeps
# in $TMPDIR/node-compile-cache, in the run's temp dir; Node 20 has none. Off, as on Node 20.
export NODE_DISABLE_COMPILE_CACHE=1
TMPDIR="$run_tmp" npx vitest run --reporter=default --reporter=json --outputFile.json=test-results.json "$@"
status=$?
left=$(find "$run_tmp" -mindepth 1 -maxdepth 1 | head -n 20)
if [ -n "$left" ]; then
  echo "webcap: the tests left these behind in their temp dir:"
  echo "$left"
  status=1
fi
exit "$status"
