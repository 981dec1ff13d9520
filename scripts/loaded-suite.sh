#!/usr/bin/env bash
# The whole suite on a fresh clone beside a CPU load (issue 32): N busy loops (default 4) run for
# the suite's length, the load average is sampled every 30 s, and the wall time, the load seen and
# the suite's verdict are printed at the end. Usage: scripts/loaded-suite.sh [busy-loops] [ref]
set -euo pipefail
loops=${1:-4}
ref=${2:-HEAD}
repo=$(git rev-parse --show-toplevel)
clone=$(mktemp -d /tmp/webcap-loaded.XXXXXX)
git clone -q "$repo" "$clone"
git -C "$clone" checkout -q "$(git -C "$repo" rev-parse "$ref")"

pids=()
stop() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap stop EXIT
for _ in $(seq "$loops"); do
  bash -c 'while :; do :; done' &
  pids+=($!)
done
loads="$clone/load-samples.txt"
(while :; do cut -d' ' -f1 /proc/loadavg >>"$loads"; sleep 30; done) &
pids+=($!)

start=$(date +%s)
status=0
(cd "$clone" && make test) >"$clone/suite.log" 2>&1 || status=$?
end=$(date +%s)
stop

tail -n 8 "$clone/suite.log"
awk -v s="$((end - start))" -v st="$status" -v c="$clone" '
  { n++; sum += $1; if (min == "" || $1 < min) min = $1; if ($1 > max) max = $1 }
  END { printf "webcap: loaded suite exit %d in %d min %d s; load average min %.1f, mean %.1f, max %.1f (%d samples); log in %s/suite.log\n", st, s / 60, s % 60, min, sum / n, max, n, c }
' "$loads"
exit "$status"
