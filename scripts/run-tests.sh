#!/usr/bin/env bash
# Installs and builds what is missing, then runs the whole test suite under CTest.
# Live tests run only when BI_LLAMA_SERVER names a llama-server binary; otherwise they skip.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# clang-format for the `format` test; clang-tidy for the tidy build that .ci/run runs next;
# clang 14 with its libFuzzer runtime and symbolizer for scripts/run-fuzz.sh, which CI runs after;
# headless Chromium, a font and python3 for the `browser` test of the HTML report; slurm-wlm and
# munge for the single-node Slurm cluster of the `cluster` test; dpkg-dev, file, lintian, man-db
# and bash-completion for the `package` test of the Debian packages.
"$root/scripts/bootstrap.sh" clang-format clang-tidy clang-14 libclang-rt-14-dev llvm-14 \
  chromium-headless-shell fonts-dejavu-core python3 slurm-wlm munge \
  dpkg-dev file lintian man-db bash-completion
build_dir="${BI_BUILD_DIR:-$root/build}"
jobs="$(nproc 2>/dev/null || echo 2)"
cd "$build_dir"
exec ctest --output-on-failure --parallel "$jobs" --timeout 300 "$@"
