#!/usr/bin/env bash
# Sourced by the container-*.sh scripts: installs podman and buildah from Debian when missing and
# points podman at scripts/container-podman.conf. Images are built and run with podman on our
# machines (no container registry, no Docker daemon); docs/deploy.md says what users run instead.

container_engine_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export CONTAINERS_CONF="${CONTAINERS_CONF:-$container_engine_dir/container-podman.conf}"

if ! command -v podman >/dev/null || ! command -v buildah >/dev/null || ! command -v debootstrap >/dev/null ||
  ! command -v runc >/dev/null; then
  echo "webcap: installing podman, buildah and debootstrap"
  sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends podman buildah fuse-overlayfs uidmap slirp4netns \
    runc debootstrap >/dev/null
fi
