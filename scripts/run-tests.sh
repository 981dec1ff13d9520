#!/usr/bin/env bash
# Runs every test against real PostgreSQL and Redis, writing vitest's results to test-results.json.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/test-services.sh
trap stop_private_services EXIT
rm -f test-results.json
npx vitest run --reporter=default --reporter=json --outputFile.json=test-results.json "$@"
