#!/usr/bin/env bash
# Installs the Debian packages the build needs (when missing) and builds into ./build.
# Used by scripts/run-main.sh and scripts/run-tests.sh; safe to run again (incremental).
# Extra Debian package names as arguments are installed too (the test tools, for run-tests.sh).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BI_BUILD_DIR:-$root/build}"
packages=(build-essential cmake ninja-build pkg-config libpoco-dev rapidjson-dev libcxxopts-dev
          catch2 libtomlplusplus-dev libssl-dev "$@")

missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "bootstrap: installing ${missing[*]}" >&2
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >&2
fi

jobs="$(nproc 2>/dev/null || echo 2)"
cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DBI_WERROR="${BI_WERROR:-ON}" ${BI_CMAKE_ARGS:-} >&2
cmake --build "$build_dir" --parallel "$jobs" >&2
