#!/usr/bin/env bash
# Builds the webcap image (tag webcap:dev, or WEBCAP_IMAGE) from the Dockerfile with podman, making
# the local base images first (container-base.sh). Layers are cached: a build with nothing changed
# takes about a second. Usage: scripts/container-image.sh [CONTEXT_DIR] (default: this checkout).
# The host's CA bundle is mounted into the build for npm (our network re-signs HTTPS with a CA that
# only the host trusts); WEBCAP_BUILD_CA names another file, or none when empty.
set -euo pipefail
scripts=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$scripts/container-engine.sh"
bash "$scripts/container-base.sh"

context=${1:-$(dirname "$scripts")}
image=${WEBCAP_IMAGE:-webcap:dev}
ca=${WEBCAP_BUILD_CA-/etc/ssl/certs/ca-certificates.crt}
ca_args=()
if [ -n "$ca" ] && [ -f "$ca" ]; then
  ca_args=(--volume "$ca:/egress-ca.crt:ro" --build-arg NODE_EXTRA_CA_CERTS=/egress-ca.crt)
fi

started=$(date +%s)
# The docker format keeps HEALTHCHECK, which the OCI format has no field for.
podman build --pull=never --format docker "${ca_args[@]}" --tag "$image" --file "$context/Dockerfile" "$context"
echo "webcap: built $image in $(($(date +%s) - started)) s, $(podman image inspect --format '{{.Size}}' "$image" |
  awk '{ printf "%.0f MB", $1 / 1e6 }')"
