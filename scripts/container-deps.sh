#!/usr/bin/env bash
# Builds the CI stand-ins of the images compose.yaml pulls (PostgreSQL, Redis, nginx, an S3 store)
# from Debian's packages and npm, since our machines reach no container registry
# (../shared/containers.md), and installs podman-compose, the CNI plugin that lets containers reach
# each other by service name, and Debian's docker-compose (1.29), whose `config` checks the file
# against the Compose schema without a Docker daemon. deploy/compose/ci.override.yaml swaps them in; users pull the
# real images. Layers are cached: a run with nothing changed takes a few seconds. Run as root.
set -euo pipefail
scripts=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$scripts/container-engine.sh"

if ! command -v podman-compose >/dev/null || ! command -v docker-compose >/dev/null || [ ! -x /usr/lib/cni/dnsname ]; then
  echo "webcap: installing podman-compose, docker-compose and the dnsname CNI plugin"
  sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends podman-compose docker-compose \
    golang-github-containernetworking-plugin-dnsname >/dev/null
fi
bash "$scripts/container-base.sh"

deps=$(dirname "$scripts")/deploy/compose
ca=${WEBCAP_BUILD_CA-/etc/ssl/certs/ca-certificates.crt}
ca_args=()
if [ -n "$ca" ] && [ -f "$ca" ]; then
  ca_args=(--volume "$ca:/egress-ca.crt:ro" --build-arg NODE_EXTRA_CA_CERTS=/egress-ca.crt)
fi

# The tags deploy/compose/ci.override.yaml names.
build() {
  local tag=$1 dir=$2
  shift 2
  local started
  started=$(date +%s)
  podman build --pull=never --format docker --quiet "$@" --tag "$tag" "$deps/$dir" >/dev/null
  echo "webcap: built $tag in $(($(date +%s) - started)) s"
}
build webcap-ci/postgres:15 postgres
build webcap-ci/redis:7 redis
build webcap-ci/nginx:1.22 nginx
build webcap-ci/s3rver:3.7 s3 "${ca_args[@]}"
