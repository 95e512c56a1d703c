#!/usr/bin/env bash
# Installs the Debian packages the build needs (when missing) and builds into ./build.
# Used by scripts/run-main.sh and scripts/run-tests.sh; safe to run again (incremental).
# Extra Debian package names as arguments are installed too (the test tools, for run-tests.sh).
# BI_BUILD_TARGETS="a b" builds only those ninja targets (run-main.sh: bi-run and what it runs).
# One line per step on stderr; apt, cmake and compiler output go to $build_dir/bootstrap.log and
# its last lines are shown only when a step fails.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BI_BUILD_DIR:-$root/build}"
packages=(build-essential cmake ninja-build ccache pkg-config libpoco-dev rapidjson-dev
          libcxxopts-dev catch2 libtomlplusplus-dev libssl-dev "$@")
mkdir -p "$build_dir"
log="$build_dir/bootstrap.log"
: > "$log"

# step DESCRIPTION COMMAND...: one line, the command's output into the log; its tail on failure.
step() {
  local what="$1"
  shift
  echo "bootstrap: $what" >&2
  if ! "$@" >>"$log" 2>&1; then
    echo "bootstrap: failed: $what (last lines of $log):" >&2
    tail -n 40 "$log" >&2
    exit 1
  fi
}

missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  step "apt-get update" "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  step "installing ${missing[*]}" "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

jobs="$(nproc 2>/dev/null || echo 2)"
# shellcheck source=scripts/ccache-env.sh
. "$root/scripts/ccache-env.sh"
# shellcheck disable=SC2086 # BI_CMAKE_ARGS is a list of arguments
# Prefix /usr: the build is laid out as the Debian packages are (lib/<multiarch>), so `cpack -G
# DEB` in it makes them (scripts/build-packages.sh); install with the package, not `cmake --install`.
step "configuring $build_dir" cmake -S "$root" -B "$build_dir" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=/usr -DBI_WERROR="${BI_WERROR:-ON}" \
  "${ccache_launcher[@]}" ${BI_CMAKE_ARGS:-}
targets=()
read -r -a targets <<< "${BI_BUILD_TARGETS:-}"
if [ "${#targets[@]}" -gt 0 ]; then
  step "building ${targets[*]}" cmake --build "$build_dir" --parallel "$jobs" --target "${targets[@]}"
else
  step "building every target" cmake --build "$build_dir" --parallel "$jobs"
fi
