#!/usr/bin/env bash
# Installs the Debian packages webcap needs, only those that are missing.
# Chromium renders pages (the service drives chromium-headless-shell, the same build without the
# desktop UI; chromium stays for operators who choose the full browser); the fonts make emoji and CJK text render instead of boxes;
# uBlock Origin's package ships the filter lists the ad blocker is built from (nothing is downloaded at run time).
# ffmpeg encodes animated captures (format=mp4, webm, gif); its ffprobe reads them back in the tests.
# openssl makes a throwaway certificate in the egress-proxy test.
# wrk is the load of the bench's cache-hit run (bench/wrk-load.ts).
set -euo pipefail

packages=(chromium chromium-headless-shell fonts-liberation fonts-noto-color-emoji fonts-noto-cjk webext-ublock-origin-chromium poppler-utils ffmpeg openssl wrk)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "webcap: installing Debian packages: ${missing[*]}"
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
