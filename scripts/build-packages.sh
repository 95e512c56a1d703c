#!/usr/bin/env bash
# Builds the two Debian packages, bi-run and bi-run-dev, from this source tree:
#   scripts/build-packages.sh [OUT-DIR]      (default: build/packages)
# Installs what the build needs (as scripts/bootstrap.sh does, plus dpkg-dev and file for
# dpkg-shlibdeps), builds only what the packages hold, then runs `cpack -G DEB`. Install one with
# `apt install ./build/packages/bi-run_*.deb`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BI_BUILD_DIR:-$root/build}"
out="${1:-$build_dir/packages}"
BI_BUILD_TARGETS="${BI_BUILD_TARGETS:-bi-run bi-plugin-host bi-mock-server exact spark bi_docs bi_changelog}" \
  "$root/scripts/bootstrap.sh" dpkg-dev file
echo "build-packages: cpack -G DEB into $out" >&2
mkdir -p "$out"
out="$(cd "$out" && pwd)"
if ! (cd "$build_dir" && cpack -G DEB -B "$out" >>"$build_dir/bootstrap.log" 2>&1); then
  echo "build-packages: cpack failed (last lines of $build_dir/bootstrap.log):" >&2
  tail -n 40 "$build_dir/bootstrap.log" >&2
  exit 1
fi
ls -1 "$out"/*.deb
