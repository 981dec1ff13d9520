#!/usr/bin/env bash
# What `podman kube play` needs beyond scripts/container-engine.sh: catatonit, from which podman
# builds the pause image of every pod it runs (no registry to pull one from). Run as root.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/container-engine.sh"
if ! command -v catatonit >/dev/null; then
  echo "webcap: installing catatonit"
  sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends catatonit >/dev/null
fi
